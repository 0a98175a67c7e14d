"""A branch as a pytest file: what the file holds (plain JSON, the graph's spec), hostile text
kept as data, a thread that cannot be replayed refused, and the same file from either backend."""

from __future__ import annotations

import ast
from contextlib import closing
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.apps.launch import AppChoice, load_app
from playground.apps.state_fields import delta_reducers
from playground.places.door import open_storage
from playground.runtime.driven import driven
from playground.timetravel.regression_file import regression_test
from playground.timetravel.tree import load_tree
from tests.playground.test_regression import (
    ask,
    export,
    pytest_in,
    support_project,
    thread_of,
)


def test_a_thread_on_either_backend_exports_a_file_that_passes(database, tmp_path):
    project = support_project(tmp_path)
    app = load_app(AppChoice(f"{project / 'support_agent.py'}:graph"))
    graph = driven(app.graph(database.saver))
    for question in ("where is A17?", "and B22?"):
        graph.invoke(ask(question), {"configurable": {"thread_id": "t1"}})
    with closing(database.open()) as storage:
        tree = load_tree(storage, "t1")
        text = regression_test(storage, tree, tree.head, {"graph": "support_agent.py:graph"})
    test_file = project / "test_from_backend.py"
    test_file.write_text(text)

    ran = pytest_in(project, test_file)

    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_exported_file_holds_its_recording_as_json_and_names_the_graph_by_its_spec(
        tmp_path):
    project = support_project(tmp_path)
    db = tmp_path / "checkpoints.sqlite"
    thread_of(db, AppChoice(str(project / "support_agent.py") + ":graph"),
              [ask("where is A17?")])
    text = export(db, {"graph": "support_agent.py:graph"}, project / "test_one.py").read_text()

    module = ast.parse(text)
    names = {t.id for node in module.body if isinstance(node, ast.Assign) for t in node.targets}
    assert {"GRAPH", "RECORDING", "EXPECTED", "THREAD_ID"} <= names
    assert "GRAPH = {'graph': 'support_agent.py:graph'}" in text
    assert "pickle" not in text and "base64" not in text
    assert '"order_id": "A17"' in text  # the recorded tool call, as JSON


def test_hostile_text_in_a_thread_stays_data_in_the_exported_file(tmp_path):
    project = support_project(tmp_path)
    db = tmp_path / "checkpoints.sqlite"
    hostile = 'where is """); import os; os.system("echo owned") #\\ A17?'
    thread_of(db, AppChoice(str(project / "support_agent.py") + ":graph"), [ask(hostile)],
              thread='x"""\\')
    test_file = export(db, {"graph": "support_agent.py:graph"}, project / "test_hostile.py",
                       thread='x"""\\')

    ran = pytest_in(project, test_file)

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "owned" not in ran.stdout


def test_a_thread_that_does_not_begin_with_an_input_is_refused(tmp_path):
    project = support_project(tmp_path)
    db = tmp_path / "checkpoints.sqlite"
    app = load_app(AppChoice(f"{project / 'support_agent.py'}:graph"))
    with SqliteSaver.from_conn_string(str(db)) as saver:
        driven(app.graph(saver)).update_state({"configurable": {"thread_id": "t1"}},
                                              {"messages": [HumanMessage("hi")]})
    with closing(open_storage(str(db))) as storage, pytest.raises(ValueError) as refused:
        regression_test(storage, load_tree(storage, "t1"), load_tree(storage, "t1").head,
                        {"graph": "support_agent.py:graph"})

    assert "does not begin with an input" in str(refused.value)


def test_a_delta_chat_exports_a_test_that_passes_against_its_graph(database, tmp_path):
    # The example keeps messages and notes on DeltaChannels: the exported values are the ones
    # LangGraph loads (rebuilt), so the replayed run meets them.
    project = tmp_path / "project"
    project.mkdir()
    (project / "delta_chat.py").write_text(
        (Path(__file__).parents[3] / "examples" / "delta_chat.py").read_text())
    app = load_app(AppChoice(f"{project / 'delta_chat.py'}:graph"))
    graph = driven(app.graph(database.saver))
    for question in ("hello", "where is my order?", "it was A17"):
        graph.invoke(ask(question), {"configurable": {"thread_id": "d1"}})
    with closing(database.open()) as storage:
        storage.reducers = delta_reducers(app.template)
        tree = load_tree(storage, "d1")
        text = regression_test(storage, tree, tree.head, {"graph": "delta_chat.py:graph"})
    assert "DeltaSnapshot" not in text and "1. general: hello" in text
    test_file = project / "test_delta_chat.py"
    test_file.write_text(text)
    ran = pytest_in(project, test_file)
    assert ran.returncode == 0, ran.stdout + ran.stderr
