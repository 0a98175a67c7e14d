"""Streaming a graph's run: steps as they happen, breakpoints, answers, failures, the limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from playground.apps.launch import AppChoice, load_app
from playground.apps.loader import parse_spec, reload_graph
from playground.places.door import open_storage
from playground.runtime.run import (
    Breakpoints,
    GraphRun,
    Question,
    current_outcome,
    parse_answer,
    resume_command,
)
from playground.savers import open_saver
from playground.timetravel.tree import load_tree
from tests.playground.apps import user_graphs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
THREAD = {"configurable": {"thread_id": "t1"}}


@pytest.fixture
def chat(tmp_path):
    """The support chat on a SQLite file: (graph, path)."""
    app = load_app(AppChoice(graph=f"{EXAMPLES}/support_chat.py:graph"))
    with open_saver(tmp_path / "chat.sqlite", app.serde()) as saver:
        yield app.graph(saver), tmp_path / "chat.sqlite"


def _run(graph, payload, breakpoints=None, limit=25):
    run = GraphRun(graph, THREAD, payload, breakpoints or Breakpoints(), limit)
    return list(run), run.outcome


def test_chat_message_streams_each_node_then_waits_for_the_refund_answer(chat):
    graph, _ = chat

    steps, outcome = _run(graph, {"messages": [HumanMessage("Please refund A17")]})

    assert [(s.kind, s.node) for s in steps] == [
        ("start", "triage"), ("update", "triage"), ("start", "assistant"),
        ("update", "assistant"), ("start", "tools"), ("pause", "tools")]
    updates = {s.node: s.lines for s in steps if s.kind == "update"}
    assert 'messages + tool call refund(order_id="A17", amount=40.0)' in updates["assistant"]
    assert outcome.status == "waiting" and outcome.next == ("tools",)
    assert outcome.questions[0].text == "Approve a refund of $40.00 for order A17?"


def test_answer_resumes_and_finishes_the_run(chat):
    graph, _ = chat
    _, waiting = _run(graph, {"messages": [HumanMessage("Please refund A17")]})

    steps, outcome = _run(graph, resume_command(waiting.questions,
                                                {waiting.questions[0].interrupt_id: "yes"}))

    assert outcome.status == "finished"
    assert any("ai: Refunded $40.00 for order A17." in line for s in steps for line in s.lines)


def test_pause_before_stops_there_and_continue_goes_on(chat):
    graph, _ = chat
    stop = Breakpoints(before=("tools",))

    _, paused = _run(graph, {"messages": [HumanMessage("Where is my order A17?")]}, stop)
    steps, done = _run(graph, None, stop)

    assert paused.status == "paused" and paused.next == ("tools",)
    assert [s.node for s in steps if s.kind == "update"] == ["tools", "assistant"]
    assert done.status == "finished"


def test_step_mode_pauses_after_every_node(chat):
    graph, _ = chat
    step = Breakpoints(step=True)

    _, first = _run(graph, {"messages": [HumanMessage("Where is my order A17?")]}, step)
    _, second = _run(graph, None, step)

    assert first.next == ("assistant",) and second.next == ("tools",)


def test_node_error_names_the_node_with_the_users_traceback_and_retry_after_a_fix(tmp_path):
    path = user_graphs.write_flaky(tmp_path, broken=True, name="flaky_retry.py")
    spec = parse_spec(f"{path}:graph")
    app = load_app(AppChoice(graph=spec.text))
    with open_saver(tmp_path / "c.sqlite") as saver:
        _, failed = _run(app.graph(saver), {"text": " hi "})
        user_graphs.write_flaky(tmp_path, broken=False, name="flaky_retry.py")
        fixed = reload_graph(spec).copy(update={"checkpointer": saver})
        _, retried = _run(fixed, None)
        values = fixed.get_state(THREAD).values

    assert failed.status == "failed" and failed.failure.node == "shout"
    assert failed.failure.error == "ValueError: shout is broken"
    assert f'File "{path}"' in failed.failure.traceback
    assert "langgraph" not in failed.failure.traceback  # the user's frames only
    assert retried.status == "finished" and values["result"] == "HI"


def test_recursion_limit_is_an_outcome_not_a_crash(tmp_path):
    app = load_app(AppChoice(graph=f"{user_graphs.write_loop(tmp_path)}:graph"))
    with open_saver(tmp_path / "c.sqlite") as saver:
        _, outcome = _run(app.graph(saver), {"n": 0}, limit=5)

    assert outcome.status == "recursion"
    assert "recursion limit (5 steps)" in outcome.message


def test_outcome_read_from_the_tree_matches_the_graphs_own(chat):
    graph, path = chat
    _, paused = _run(graph, {"messages": [HumanMessage("Where is A17?")]},
                     Breakpoints(before=("tools",)))
    tree = load_tree(open_storage(path), "t1")

    assert current_outcome(graph, THREAD, tree) == paused


@pytest.mark.parametrize(("typed", "answer"), [
    ("yes", "yes"), ("true", True), ("3", 3), ('{"ok": 1}', {"ok": 1}),
    ("not json {", "not json {"),
])
def test_answer_is_json_when_it_parses_else_text(typed, answer):
    assert parse_answer(typed) == answer


def test_several_questions_are_answered_by_id():
    questions = (Question("a", "n", "?", None), Question("b", "n", "?", None))

    command = resume_command(questions, {"a": 1, "b": 2})

    assert command.resume == {"a": 1, "b": 2}
