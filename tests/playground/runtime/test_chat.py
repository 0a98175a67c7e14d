"""Edit a human message and fork, regenerate an AI one: new branches beside the old."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from playground.apps.launch import AppChoice, load_app
from playground.places.door import open_storage
from playground.runtime.chat import ChatActionRefused, edit_and_fork, regenerate
from playground.runtime.run import GraphRun
from playground.savers import open_saver
from playground.timetravel.tree import load_tree

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
THREAD = {"configurable": {"thread_id": "t1"}}


@pytest.fixture
def chat(tmp_path):
    app = load_app(AppChoice(graph=f"{EXAMPLES}/support_chat.py:graph"))
    with open_saver(tmp_path / "chat.sqlite", app.serde()) as saver:
        graph = app.graph(saver)
        for text in ("Where is my order A17?", "Where is my order B22?"):
            list(GraphRun(graph, THREAD, {"messages": [HumanMessage(text, id=text[-4:-1])]}))
        yield graph, tmp_path / "chat.sqlite"


def _texts(graph):
    return [m.content for m in graph.get_state(THREAD).values["messages"]]


def test_edit_and_fork_reruns_from_before_the_message_on_a_new_branch(chat):
    graph, path = chat
    before = load_tree(open_storage(path), "t1")

    run = edit_and_fork(graph, THREAD, "B22", "Please refund A17")
    list(run)

    after = load_tree(open_storage(path), "t1")
    assert _texts(graph)[:4] == _texts(graph)[:4]  # the first exchange is kept as it was
    assert "Please refund A17" in _texts(graph) and "Where is my order B22?" not in _texts(graph)
    assert len(after.leaves) == len(before.leaves) + 1
    assert run.outcome.status == "waiting"  # the refund asks for approval on the new branch


def test_edit_of_the_first_message_forks_from_the_thread_start(chat):
    graph, _ = chat

    list(edit_and_fork(graph, THREAD, "A17", "Where is my order B22?"))

    assert _texts(graph)[0] == "Where is my order B22?"


def test_regenerate_runs_the_node_that_wrote_the_message_again(chat):
    graph, path = chat
    answer = graph.get_state(THREAD).values["messages"][-1]

    run = regenerate(graph, THREAD, answer.id)
    steps = list(run)

    assert [s.node for s in steps if s.kind == "update"] == ["assistant"]
    assert len(load_tree(open_storage(path), "t1").leaves) == 2


def test_a_message_not_on_the_current_branch_is_refused(chat):
    graph, _ = chat

    with pytest.raises(ChatActionRefused, match="not in the thread's current conversation"):
        edit_and_fork(graph, THREAD, "no-such-id", "hi")


def test_an_empty_edit_is_refused_and_writes_nothing(chat):
    graph, path = chat
    before = len(load_tree(open_storage(path), "t1"))

    with pytest.raises(ChatActionRefused, match="empty"):
        edit_and_fork(graph, THREAD, "B22", "  ")

    assert len(load_tree(open_storage(path), "t1")) == before
