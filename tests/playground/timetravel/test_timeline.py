"""Where a thread's time and tokens went, read from its checkpoints (a real SqliteSaver).

The graphs' model is a stand-in that sleeps a known time and reports known usage, so the
timeline's durations are checked against the sleeps (within the machine's clock slack: never
less, and not more than a generous bound) and its tokens exactly.
"""

from __future__ import annotations

import operator
import time
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph, add_messages
from langgraph.types import Command, Send, interrupt

from playground.places.door import open_storage
from playground.timetravel.timeline import (
    EDIT,
    IDLE,
    PAUSE_WORTH_SECONDS,
    RUN,
    WAIT,
    kept_timeline,
    parse_time,
    timeline,
)
from playground.timetravel.tree import TreeCache, load_tree
from tests.playground.timetravel.sample_graphs import Counter, counting_chain

SLACK_S = 0.5  # what a busy machine may add to a step, at most, in these tests


class Chat(TypedDict):
    messages: Annotated[list, add_messages]


def _model(seconds: float, tokens_in: int, tokens_out: int, name: str = "stand-in-large"):
    def model(state: Chat) -> dict:
        time.sleep(seconds)
        return {"messages": [AIMessage(
            "done", usage_metadata={"input_tokens": tokens_in, "output_tokens": tokens_out,
                                    "total_tokens": tokens_in + tokens_out,
                                    "input_token_details": {"cache_read": 7}},
            response_metadata={"model_name": name})]}
    return model


def _config(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


def _timeline(saver_path, thread: str):
    storage = open_storage(saver_path)
    return timeline(storage, load_tree(storage, thread))


@pytest.fixture
def path(saver, tmp_path):
    return tmp_path / "checkpoints.db"


def test_each_steps_time_and_tokens_match_what_the_model_took(saver, path):
    builder = StateGraph(Chat)
    builder.add_node("plan", _model(0.3, 1200, 80))
    builder.add_node("write", _model(0.6, 2000, 450))
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "write")
    builder.add_edge("write", END)
    builder.compile(checkpointer=saver).invoke({"messages": [("user", "go")]}, _config("t"))

    found = _timeline(path, "t")
    assert [step.node for step in found.steps] == ["input", "plan", "write"]  # not __start__
    by_node = {step.node: step for step in found.steps if step.kind == RUN}
    assert 0.3 <= by_node["plan"].seconds <= 0.3 + SLACK_S
    assert 0.6 <= by_node["write"].seconds <= 0.6 + SLACK_S
    assert (by_node["plan"].usage.input, by_node["plan"].usage.output) == (1200, 80)
    assert (found.usage.input, found.usage.output, found.usage.cache_read) == (3200, 530, 14)
    assert found.usage.models == ("stand-in-large",)
    totals = {t.node: t for t in found.totals()}
    assert totals["write"].share > totals["plan"].share > 0
    assert found.totals()[0].node == "write"  # slowest first


def test_an_answer_given_after_a_delay_is_a_wait_not_a_slow_step(saver, path):
    def review(state: Chat) -> dict:
        interrupt("ship it?")
        return {}

    builder = StateGraph(Chat)
    builder.add_node("draft", _model(0.1, 10, 5))
    builder.add_node("review", review)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "review")
    builder.add_edge("review", END)
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"messages": [("user", "go")]}, _config("t"))
    time.sleep(0.8)  # the person reads the question
    graph.invoke(Command(resume="yes"), _config("t"))

    found = _timeline(path, "t")
    waits = [step for step in found.steps if step.kind == WAIT]
    assert [(w.node, w.note) for w in waits] == [("review", "waited for an answer to review")]
    assert waits[0].seconds >= 0.8
    assert found.wait_seconds >= 0.8
    assert found.run_seconds < 0.8  # the wait is not counted as running time
    assert {t.node for t in found.totals()} >= {"draft", "review"}


def test_a_new_turn_after_a_pause_is_a_wait_between_turns(saver, path):
    builder = StateGraph(Chat)
    builder.add_node("answer", _model(0.05, 3, 4))
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"messages": [("user", "hi")]}, _config("t"))
    time.sleep(0.5)
    graph.invoke({"messages": [("user", "and now?")]}, _config("t"))

    found = _timeline(path, "t")
    between = [step for step in found.steps if step.note == "between two turns"]
    assert len(between) == 1 and between[0].seconds >= 0.5
    assert found.usage.input == 6 and found.usage.messages == 2


class Fan(TypedDict, total=False):
    topics: list[str]
    notes: Annotated[list[str], operator.add]


def test_a_send_fan_out_puts_each_parallel_task_on_its_own_row_in_one_step(saver, path):
    def research(state: dict) -> dict:
        time.sleep(0.1)
        return {"notes": [state["topic"]]}

    builder = StateGraph(Fan)
    builder.add_node("research", research)
    builder.add_conditional_edges(
        START, lambda state: [Send("research", {"topic": t}) for t in state["topics"]])
    builder.add_edge("research", END)
    builder.compile(checkpointer=saver).invoke({"topics": ["a", "b", "c"]}, _config("t"))

    found = _timeline(path, "t")
    parallel = [step for step in found.steps if step.node == "research"]
    assert len({step.checkpoint_id for step in parallel}) == 1  # one step
    assert len({step.task_id for step in parallel}) == 3  # a row per task
    assert all(step.start == parallel[0].start and step.end == parallel[0].end
               for step in parallel)


def _run_in_line(saver, nodes: dict) -> None:
    """One run of thread "t" through ``nodes`` one after the other."""
    builder = StateGraph(Chat)
    names = list(nodes)
    for name in names:
        builder.add_node(name, nodes[name])
    for before, after in zip([START, *names], [*names, END], strict=True):
        builder.add_edge(before, after)
    builder.compile(checkpointer=saver).invoke({"messages": [("user", "go")]}, _config("t"))


def _stored_rows(conn) -> list[tuple]:
    return conn.execute("SELECT checkpoint_id, type, checkpoint FROM checkpoints "
                        "ORDER BY checkpoint_id").fetchall()


def test_crafted_times_and_usage_are_shown_as_unknown_never_used(saver, path):
    import sqlite3

    _run_in_line(saver, {
        "one": lambda state: {"messages": [AIMessage("x", usage_metadata={
            "input_tokens": -5, "output_tokens": 10, "total_tokens": 5})]},
        "two": lambda state: {"messages": [AIMessage("y", usage_metadata={
            "input_tokens": 10**12, "output_tokens": 1, "total_tokens": 1})]},
        "three": lambda state: {"messages": [AIMessage("z")]}})
    # A file someone sent: one checkpoint claims the year 9999, one goes back in time.
    with sqlite3.connect(path) as conn:
        rows = _stored_rows(conn)
        for (cid, kind, blob), ts in zip(rows[-2:], ("9999-12-31T23:59:59+00:00",
                                                     "2001-01-01T00:00:00+00:00"), strict=True):
            checkpoint = saver.serde.loads_typed((kind, blob))
            checkpoint["ts"] = ts
            conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?",
                         (saver.serde.dumps_typed(checkpoint)[1], cid))

    found = _timeline(path, "t")
    unknown = [step for step in found.steps if step.unknown]
    assert len(unknown) == 2 and all(s.start is None and s.seconds is None for s in unknown)
    assert all(step.seconds is None or step.seconds < 60 for step in found.steps)
    assert found.usage.input == 0 and found.usage.messages == 0
    assert found.usage.without == 3  # a negative count, an absurd one, none at all


def test_crafted_times_in_langgraphs_own_layout_are_unknown_and_never_crash(saver, path):
    """The reader cuts a ts out of a blob's head where it sits as LangGraph puts it: a time out
    of range, or bytes that are not text, at that very place are unknown all the same."""
    import sqlite3

    _run_in_line(saver, {name: _model(0.0, 1, 1) for name in ("one", "two", "three")})
    with sqlite3.connect(path) as conn:
        rows = _stored_rows(conn)
        (far, kind, blob), (garbled, _, other) = rows[1], rows[-1]  # apart: each on its own
        checkpoint = saver.serde.loads_typed((kind, blob))
        checkpoint["ts"] = "9999-12-31T23:59:59.000000+00:00"  # 32 characters, as LangGraph's
        conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?",
                     (saver.serde.dumps_typed(checkpoint)[1], far))
        assert other[4:9] == bytes.fromhex("a27473d920")  # the layout the fast read expects
        conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?",
                     (other[:9] + b"\xff" * 32 + other[41:], garbled))

    found = _timeline(path, "t")
    by_checkpoint = {step.checkpoint_id: step for step in found.steps}
    assert by_checkpoint[far].unknown and by_checkpoint[far].seconds is None
    assert by_checkpoint[garbled].unknown and by_checkpoint[garbled].seconds is None
    assert sum(1 for step in found.steps if step.unknown) == 3  # and the step after the far one


def test_each_step_of_plain_nodes_names_the_task_langgraph_ran_there(saver, path):
    """Steps of one node each, asking nothing and writing no messages (most of a long
    thread), across two runs and an edit: each row is the task LangGraph ran there."""
    builder = StateGraph(Counter)
    for name in ("read", "plan", "write"):
        builder.add_node(name, lambda state: {"count": state["count"] + 1})
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_edge("plan", "write")
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"count": 0}, _config("t"))
    graph.update_state(_config("t"), {"count": 40})
    graph.invoke({"count": 5}, _config("t"))
    history = {snapshot.config["configurable"]["checkpoint_id"]: snapshot
               for snapshot in graph.get_state_history(_config("t"))}
    ran = {}
    for cid, snapshot in history.items():
        if snapshot.metadata["source"] == "loop" and snapshot.parent_config:
            parent = history[snapshot.parent_config["configurable"]["checkpoint_id"]]
            ran[cid] = [task.name for task in parent.tasks]

    steps = _timeline(path, "t").steps
    assert {step.checkpoint_id: [step.node] for step in steps if step.kind == RUN} == {
        cid: ["input" if name == "__start__" else name for name in names]
        for cid, names in ran.items()}
    # The first input is the branch's first checkpoint, no step; the second waited for it.
    assert [(step.node, step.kind) for step in steps if step.kind not in (RUN, IDLE)] == [
        ("update_state", EDIT), ("(next input)", WAIT)]
    assert all(step.task_id for step in steps if step.kind == RUN)


def test_parse_time_refuses_what_no_checkpoint_holds():
    assert parse_time("2026-12-02T10:00:00+00:00") is not None
    assert parse_time("2026-12-02T10:00:00.123Z") is not None
    for bad in (None, 42, "", "yesterday", "9999-01-01T00:00:00+00:00", "1970-01-01T00:00:00",
                "2026-13-45T99:00:00", "x" * 100):
        assert parse_time(bad) is None


def test_a_kept_timeline_is_read_once_per_state_of_the_thread(saver, path):
    _run_in_line(saver, {"one": _model(0.0, 3, 4)})
    storage, cache = open_storage(path), TreeCache()
    tree = cache.get(storage, "t")
    first = kept_timeline(cache, storage, tree)

    assert kept_timeline(cache, storage, cache.get(storage, "t")) is first  # a rerun reads nothing
    _run_in_line(saver, {"one": _model(0.0, 3, 4)})  # the thread grows: a new tree, read anew
    grown = kept_timeline(cache, storage, cache.get(storage, "t"))
    assert grown is not first and len(grown.steps) > len(first.steps)
    assert grown.usage.input == 2 * first.usage.input == 6



# -- running, waiting, idle (issue 28) ------------------------------------------------------


def _paused_before_write(saver):
    """read -> plan -> write, compiled to pause before write (as the ticket agent does)."""
    return counting_chain(saver, interrupt_before=("write",))


def test_resume_after_a_pause_counts_the_pause_as_a_wait(saver, path):
    from playground.runtime.driven import driven

    graph = driven(_paused_before_write(saver))  # the playground's runs record their start
    graph.invoke({"count": 0}, _config("t"))
    time.sleep(0.8)  # paused before write
    graph.invoke(None, _config("t"))

    found = _timeline(path, "t")
    waits = [step for step in found.steps if step.kind == WAIT]
    assert [(w.node, w.note) for w in waits] == [("write", "paused before write")]
    assert waits[0].seconds >= 0.8
    write = [step for step in found.steps if step.node == "write" and step.kind == RUN]
    assert len(write) == 1 and write[0].seconds < 0.5 and not write[0].maybe_paused
    assert write[0].start == waits[0].end  # the run began where the wait ended
    assert found.run_seconds < 0.5 and found.wait_seconds >= 0.8
    assert found.maybe_paused == 0
    totals = {t.node: t for t in found.totals()}
    assert totals["write"].calls == 1 and totals["write"].seconds < 0.5


def test_an_answer_with_a_recorded_run_start_is_a_wait_then_the_rerun(saver, path):
    from playground.runtime.driven import driven

    def review(state: Chat) -> dict:
        interrupt("ship it?")
        time.sleep(0.2)  # the node's own work after the answer
        return {}

    builder = StateGraph(Chat)
    builder.add_node("review", review)
    builder.add_edge(START, "review")
    builder.add_edge("review", END)
    graph = driven(builder.compile(checkpointer=saver))
    graph.invoke({"messages": [("user", "go")]}, _config("t"))
    time.sleep(0.8)
    graph.invoke(Command(resume="yes"), _config("t"))

    found = _timeline(path, "t")
    rows = [(step.node, step.kind) for step in found.steps if step.node == "review"]
    assert rows == [("review", WAIT), ("review", RUN)]
    wait, rerun = (step for step in found.steps if step.node == "review")
    assert wait.note == "waited for an answer to review" and wait.seconds >= 0.8
    assert 0.2 <= rerun.seconds < 0.2 + SLACK_S


def test_a_stock_thread_resumed_after_a_breakpoint_says_the_step_may_include_a_pause(
        saver, path):
    """No run ids (a stock LangGraph thread): LangGraph's own resume mark
    (versions_seen["__interrupt__"]) tells which step began the resumed run."""
    graph = _paused_before_write(saver)
    graph.invoke({"count": 0}, _config("t"))  # nothing in config["metadata"]
    time.sleep(PAUSE_WORTH_SECONDS + 0.1)  # a pause long enough to be worth telling
    graph.invoke(None, _config("t"))

    found = _timeline(path, "t")
    flagged = [step for step in found.steps if step.maybe_paused]
    assert [step.node for step in flagged] == ["write"]
    assert flagged[0].kind == RUN and "may include a pause" in flagged[0].note
    assert flagged[0].seconds >= PAUSE_WORTH_SECONDS  # counted, and said to hold the pause
    assert found.maybe_paused == 1
    assert {t.node: t.maybe_paused for t in found.totals()}["write"] == 1
    assert found.to_json()["steps_that_may_include_a_pause"] == 1


def test_a_new_run_whose_start_is_not_recorded_may_include_a_pause(saver, path):
    """An Agent Server stores a run id and no start: the step that began the run is flagged."""
    graph = _paused_before_write(saver)
    graph.invoke({"count": 0}, {**_config("t"), "metadata": {"run_id": "first"}})
    graph.invoke(None, {**_config("t"), "metadata": {"run_id": "second"}})

    found = _timeline(path, "t")
    assert [step.node for step in found.steps if step.maybe_paused] == ["write"]
    assert not [step for step in found.steps if step.kind == WAIT and step.node == "write"]


def test_a_replay_made_a_minute_later_is_an_instant_after_idle_time(saver, path):
    import datetime as dt
    import sqlite3

    graph = counting_chain(saver)
    graph.invoke({"count": 0}, _config("t"))
    after_read = next(snapshot for snapshot in graph.get_state_history(_config("t"))
                      if snapshot.next == ("plan",))
    graph.invoke(None, after_read.config)  # a replay: a fork, then plan and write again
    history = [snapshot.config["configurable"]["checkpoint_id"]
               for snapshot in graph.get_state_history(_config("t"))]
    fork = next(snapshot.config["configurable"]["checkpoint_id"]
                for snapshot in graph.get_state_history(_config("t"))
                if snapshot.metadata["source"] == "fork")
    replayed = {cid for cid in history if cid >= fork}  # ids are uuid6: by creation time
    # The replay was made a minute after its checkpoint: its checkpoints' times move on 60 s.
    with sqlite3.connect(path) as conn:
        for cid, kind, blob in _stored_rows(conn):
            if cid in replayed:
                checkpoint = saver.serde.loads_typed((kind, blob))
                moved = dt.datetime.fromisoformat(checkpoint["ts"]) + dt.timedelta(seconds=60)
                checkpoint["ts"] = moved.isoformat()
                conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?",
                             (saver.serde.dumps_typed(checkpoint)[1], cid))

    found = _timeline(path, "t")  # the head's branch: through the replay
    kinds = [(step.node, step.kind) for step in found.steps]
    assert ("fork", IDLE) in kinds and ("fork", EDIT) in kinds
    idle = next(step for step in found.steps if step.kind == IDLE)
    instant = next(step for step in found.steps if step.kind == EDIT)
    assert idle.seconds >= 60 and idle.end == instant.start == instant.end  # a moment
    real = max(step.seconds for step in found.steps if step.kind == RUN)
    assert real < 5
    assert all(step.seconds <= real for step in found.steps if step.kind not in (IDLE,))
    assert found.idle_seconds >= 60
    assert found.run_seconds < 5 and found.wait_seconds < 5
    assert "fork" not in {t.node for t in found.totals()}
    assert found.to_json()["idle_seconds"] >= 60


def test_a_send_fan_out_shares_of_wall_time_never_pass_100_percent(saver, path):
    def research(state: dict) -> dict:
        time.sleep(0.2)
        return {"notes": [state["topic"]]}

    builder = StateGraph(Fan)
    builder.add_node("research", research)
    builder.add_node("summarize", lambda state: {"notes": ["summary"]})
    builder.add_conditional_edges(
        START, lambda state: [Send("research", {"topic": t}) for t in state["topics"]])
    builder.add_edge("research", "summarize")
    builder.add_edge("summarize", END)
    builder.compile(checkpointer=saver).invoke({"topics": ["a", "b", "c"]}, _config("t"))

    found = _timeline(path, "t")
    totals = {t.node: t for t in found.totals()}
    assert all(0 <= t.share <= 1.0 for t in totals.values())
    assert sum(t.share for t in totals.values()) <= 1.0 + 1e-9
    research = totals["research"]
    assert research.calls == 1  # one step, three tasks
    assert research.task_seconds == pytest.approx(3 * research.seconds)  # each task a row
    nodes = {node["node"]: node for node in found.to_json()["nodes"]}
    assert nodes["research"]["task_seconds"] > nodes["research"]["seconds"]
