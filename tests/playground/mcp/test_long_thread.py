"""A thread of 10,000 checkpoints, written by a real graph on SqliteSaver, read through
``playground mcp``: every answer stays under the answer cap, and the checkpoints and the
timeline's steps page with cursors from the head to the first checkpoint."""

from __future__ import annotations

import sqlite3
import time
from typing import TypedDict

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.mcp.bounds import ANSWER_CAP, cursor_for
from tests.playground.mcp.client import mcp_session, wire_bytes

CHECKPOINTS = 10_000
THREAD = "long"
CALL_S = 20  # one page's answer, tree read included, on a busy two-core machine


class _Count(TypedDict):
    n: int


def _ticking(saver):
    """One node that runs again until the thread holds :data:`CHECKPOINTS` checkpoints (an
    input checkpoint, then one per step)."""
    builder = StateGraph(_Count)
    builder.add_node("tick", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "tick")
    builder.add_conditional_edges(
        "tick", lambda state: END if state["n"] >= CHECKPOINTS - 2 else "tick")
    return builder.compile(checkpointer=saver)


@pytest.fixture(scope="module")
def long_thread(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("long") / "long.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA synchronous=OFF")  # a test's file: no fsync per checkpoint
    try:
        _ticking(SqliteSaver(conn)).invoke(
            {"n": 0}, {"configurable": {"thread_id": THREAD}, "recursion_limit": 2 * CHECKPOINTS})
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == CHECKPOINTS
    finally:
        conn.close()
    return str(path)


@pytest.fixture(scope="module")
def session(long_thread):
    with mcp_session(long_thread) as connected:
        yield connected


def _timed(session, name, arguments):
    started = time.monotonic()
    result = session.call(name, arguments)
    assert time.monotonic() - started < CALL_S, name
    assert not result.is_error, result.content[0].text
    assert wire_bytes(result) <= ANSWER_CAP
    return result.structured_content


def test_a_ten_thousand_checkpoint_thread_pages_under_the_answer_cap(session):
    pages = [_timed(session, "get_thread", {"thread_id": THREAD, "limit": 200})]
    for _ in range(3):
        pages.append(_timed(session, "get_thread", {"thread_id": THREAD, "limit": 200,
                                                     "cursor": pages[-1]["next_cursor"]}))
    last = _timed(session, "get_thread", {"thread_id": THREAD, "limit": 200,
                                          "cursor": cursor_for("get_thread", 7)})

    first = pages[0]
    assert first["checkpoints_total"] == CHECKPOINTS and first["status"] == "finished"
    assert first["head"]["ordinal"] == CHECKPOINTS
    assert first["branches"][0]["label"] == "head · finished · original run"
    assert 0 < len(first["checkpoints"]) < 200  # the cap pages sooner than the limit
    ordinals = [c["ordinal"] for page in pages for c in page["checkpoints"]]
    assert ordinals == list(range(CHECKPOINTS, CHECKPOINTS - len(ordinals), -1))
    assert [c["ordinal"] for c in last["checkpoints"]] == list(range(7, 0, -1))
    assert last["next_cursor"] is None


def test_its_timeline_totals_come_whole_and_its_steps_page(session):
    first = _timed(session, "get_timeline", {"thread_id": THREAD, "limit": 200})
    second = _timed(session, "get_timeline", {"thread_id": THREAD, "limit": 200,
                                              "cursor": first["next_cursor"]})

    assert first["steps_total"] >= CHECKPOINTS - 2
    assert first["slowest_step"]["node"] == "tick"
    assert [node["node"] for node in first["nodes"]][:1] == ["tick"]
    steps = first["steps"] + second["steps"]
    assert [s["ordinal"] for s in steps] == list(range(steps[0]["ordinal"],
                                                        steps[0]["ordinal"] + len(steps)))


def test_its_first_and_last_checkpoints_and_the_thread_list_answer_at_once(session):
    oldest = _timed(session, "get_checkpoint", {"thread_id": THREAD, "checkpoint": "#1"})
    head = _timed(session, "get_checkpoint", {"thread_id": THREAD})
    changed = _timed(session, "diff_checkpoints", {"thread_id": THREAD})
    listed = _timed(session, "list_threads", {})

    assert oldest["source"] == "input" and oldest["parent"] is None
    assert head["values"] == {"n": CHECKPOINTS - 2} and head["next"] == []
    assert changed["lines"] == [f"~ n: {CHECKPOINTS - 3} -> {CHECKPOINTS - 2}"]
    assert listed["threads"][0]["checkpoints"] == CHECKPOINTS
