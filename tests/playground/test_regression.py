"""A thread exported as a regression test: the file passes on the code that made the thread,
and fails with a step-aligned difference naming the first step once the code goes another way.

Each exported file is run the way its user runs it: ``pytest`` in a process of its own, with no
server and no network, from the project's folder or from any other."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from playground.apps.launch import AppChoice, load_app
from playground.places.door import open_storage
from playground.runtime.driven import RunSettings, driven
from playground.timetravel.regression_file import regression_test
from playground.timetravel.tree import load_tree
from tests.playground.apps.user_graphs import write_support

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def thread_of(path: Path, choice: AppChoice, turns, settings: RunSettings | None = None,
              thread: str = "t1") -> None:
    """Run ``turns`` (inputs or Command answers) on the app, checkpointing to ``path``."""
    app = load_app(choice)
    with SqliteSaver.from_conn_string(str(path)) as saver:
        graph = driven(app.graph(saver), settings)
        for turn in turns:
            graph.invoke(turn, {"configurable": {"thread_id": thread}})


def export(path: Path, graph: dict, out: Path, thread: str = "t1", at: str | None = None,
           settings: dict | None = None, started_in: Path | None = None) -> Path:
    """Export the thread to ``out``, ``graph``'s paths typed in ``started_in`` (where
    ``playground run`` would be started; default: the folder ``out`` is written to)."""
    with closing(open_storage(str(path))) as storage:
        tree = load_tree(storage, thread)
        out.write_text(regression_test(storage, tree, at or tree.head, graph, settings,
                                       written_to=out.parent,
                                       started_in=started_in or out.parent))
    return out


def pytest_in(folder: Path, test_file: Path) -> subprocess.CompletedProcess:
    """Run an exported test file as its owner would: ``python -m pytest`` in the project.

    Without the plugins this environment installs for its own tests (schemathesis and
    Hypothesis, Playwright, xdist: 4 s of start-up, where pytest alone takes 0.2 s); an
    exported file needs none of them.
    """
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(test_file)], cwd=folder, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})


def ask(text: str) -> dict:
    return {"messages": [HumanMessage(text)]}


def support_project(tmp_path: Path) -> Path:
    """A project folder holding the ReAct-style support agent (``support_agent.py``)."""
    project = tmp_path / "project"
    project.mkdir()
    write_support(project)
    return project


def test_an_exported_thread_passes_on_its_code_and_fails_naming_the_step_after_a_change(
        tmp_path):
    project = support_project(tmp_path)
    db = tmp_path / "checkpoints.sqlite"
    thread_of(db, AppChoice(str(project / "support_agent.py") + ":graph"),
              [ask("where is A17?"), ask("and B22?")])
    test_file = export(db, {"graph": "support_agent.py:graph"}, project / "test_support.py")

    passed = pytest_in(project, test_file)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "1 passed" in passed.stdout

    write_support(project, review=True)  # the routing change
    failed = pytest_in(project, test_file)

    assert failed.returncode == 1
    report = failed.stdout
    assert "The thread ran another way than it was recorded." in report
    assert "First difference at step 3: only this run runs review" in report
    assert "!   3  -" in report and "review" in report
    assert "(the paths part)" in report and "(the paths meet again)" in report


def test_an_exported_test_passes_run_from_another_folder_and_saved_in_another(tmp_path):
    project = support_project(tmp_path)
    db = tmp_path / "checkpoints.sqlite"
    thread_of(db, AppChoice(str(project / "support_agent.py") + ":graph"), [ask("where is A17?")])
    (project / "tests").mkdir()
    test_file = export(db, {"graph": "support_agent.py:graph"},
                       project / "tests" / "test_support.py", started_in=project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    from_elsewhere = pytest_in(elsewhere, test_file)  # pytest run from another folder
    assert from_elsewhere.returncode == 0, from_elsewhere.stdout + from_elsewhere.stderr
    assert "GRAPH = {'graph': '../support_agent.py:graph'}" in test_file.read_text()

    # History's download: where it is saved is not known, so it is made for the folder
    # `playground run` was started in, which it keeps as the second place to look
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    with closing(open_storage(str(db))) as storage:
        tree = load_tree(storage, "t1")
        downloaded = regression_test(storage, tree, tree.head, {"graph": "support_agent.py:graph"},
                                     started_in=project)
    (downloads / "test_downloaded.py").write_text(downloaded)
    found = pytest_in(elsewhere, downloads / "test_downloaded.py")
    assert found.returncode == 0, found.stdout + found.stderr


def test_an_interrupt_answer_is_replayed_from_the_exported_file(tmp_path):
    """The create_agent example with human review: the thread paused for approval and was
    approved; the export replays the approval."""
    db = tmp_path / "checkpoints.sqlite"
    config = EXAMPLES / "approval_agent" / "langgraph.json"
    choice = AppChoice(config=str(config), graph_name="assistant")
    thread_of(db, choice, [ask("Email Ada about the launch"),
                           Command(resume={"decisions": [{"type": "approve"}]})])
    test_file = export(db, {"config": "langgraph.json", "graph_name": "assistant"},
                       tmp_path / "test_approval.py", started_in=config.parent)

    ran = pytest_in(config.parent, test_file)

    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_react_example_replays_with_the_context_it_ran_with(tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    config = EXAMPLES / "react_agent" / "langgraph.json"
    choice = AppChoice(config=str(config), graph_name="agent")
    context = {"model": "stand-in/brief", "max_search_results": 2}
    thread_of(db, choice, [ask("What is LangGraph?")], RunSettings(context=context))
    test_file = export(db, {"config": "langgraph.json", "graph_name": "agent"},
                       tmp_path / "test_react.py", settings={"context": context},
                       started_in=config.parent)

    ran = pytest_in(config.parent, test_file)

    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_support_chat_example_replays_through_its_subgraph_and_its_refund_question(
        tmp_path):
    """A subgraph node writes back the whole conversation: only new messages are replies."""
    db = tmp_path / "checkpoints.sqlite"
    spec = f"{EXAMPLES / 'support_chat.py'}:graph"
    thread_of(db, AppChoice(spec), [ask("Where is my order A17?"), ask("Please refund A17"),
                                    Command(resume="yes"), ask("Where is my order B22?")])
    test_file = export(db, {"graph": spec}, tmp_path / "test_support_chat.py")

    ran = pytest_in(tmp_path, test_file)

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert '"Where is my order B22?"' in test_file.read_text()


def test_a_ticket_agent_thread_replays_against_a_freshly_seeded_ticket_api(tmp_path):
    """The built-in agent's nodes call the ticket API: the test starts the bundled one with
    fresh tickets, so a thread that read fresh tickets replays to the same ETags."""
    from playground.agent.client import TicketClient
    from playground.agent.graph import build_agent
    from playground.agent.turns import resume, start_turn
    from ticket_api.server import start_embedded

    db = tmp_path / "checkpoints.sqlite"
    with start_embedded(str(tmp_path / "tickets.sqlite")) as api, \
            SqliteSaver.from_conn_string(str(db)) as saver:
        client = TicketClient(api.url, tenant="room-1")
        graph = driven(build_agent(client, saver))
        start_turn(graph, "t1", "raise t7 to high")
        resume(graph, "t1")
        client.close()
    test_file = export(db, {"builtin": "ticket-agent"}, tmp_path / "test_ticket_agent.py")

    ran = pytest_in(tmp_path, test_file)

    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "the built-in ticket agent" in test_file.read_text()
