"""Tests of replay_from and fork_with_edit on real SQLite savers: the branches they add."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.timetravel.edit import EditRefused, edit_state
from playground.timetravel.replay import fork_with_edit, replay_from
from tests.playground.timetravel.sample_graphs import (
    config,
    make_fan,
    make_loop,
    make_nested,
    pause_graph,
)

MISSING_ID = "1f000000-0000-6000-8000-000000000000"


@pytest.fixture
def saver(tmp_path) -> Iterator[SqliteSaver]:
    conn = sqlite3.connect(tmp_path / "checkpoints.db", check_same_thread=False)
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


def count(saver: SqliteSaver) -> int:
    return len(list(saver.list(None)))


def checkpoint_id(cfg: RunnableConfig) -> str:
    return cfg["configurable"]["checkpoint_id"]


def history(graph, thread_id: str) -> dict:
    """The thread's root checkpoints by id."""
    return {checkpoint_id(s.config): s for s in graph.get_state_history(config(thread_id))}


def parent_id(snapshot) -> str | None:
    return checkpoint_id(snapshot.parent_config) if snapshot.parent_config else None


def finished_pause_thread(saver: SqliteSaver, thread_id: str = "p"):
    """read -> plan -> pause -> resume -> write: a finished main line."""
    graph = pause_graph(saver)
    graph.invoke({"ticket": "t7"}, config(thread_id))
    graph.invoke(None, config(thread_id))
    return graph


def after(graph, thread_id: str, next_nodes: tuple[str, ...]):
    """The oldest checkpoint of the thread whose next nodes are ``next_nodes``."""
    return next(
        s
        for s in reversed(list(graph.get_state_history(config(thread_id))))
        if s.next == next_nodes
    )


def assert_branch(graph, thread_id: str, result, replayed_id: str) -> None:
    """The new ids form one chain from the replayed checkpoint to the head."""
    tree = history(graph, thread_id)
    expected_parent = replayed_id
    for new_id in result.new_checkpoint_ids:
        assert parent_id(tree[new_id]) == expected_parent
        expected_parent = new_id
    assert result.new_checkpoint_ids[-1] == checkpoint_id(result.head_config)


# --- replay_from ------------------------------------------------------------------------------


def test_replay_from_past_checkpoint_adds_a_fork_branch(saver) -> None:
    graph = finished_pause_thread(saver)
    old_head = graph.get_state(config("p")).config
    after_read = after(graph, "p", ("plan",))
    old_ids = set(history(graph, "p"))

    result = replay_from(graph, after_read.config)

    tree = history(graph, "p")
    assert old_ids < set(tree)  # nothing was overwritten
    assert set(tree) - old_ids == set(result.new_checkpoint_ids)
    fork = tree[result.fork_checkpoint_id]
    assert parent_id(fork) == checkpoint_id(after_read.config)
    assert fork.metadata["source"] == "fork"
    assert result.replayed_checkpoint_id == checkpoint_id(after_read.config)
    assert_branch(graph, "p", result, result.replayed_checkpoint_id)
    assert checkpoint_id(result.head_config) != checkpoint_id(old_head)
    assert checkpoint_id(graph.get_state(config("p")).config) == checkpoint_id(result.head_config)


def test_replay_through_the_interrupt_pauses_again_and_reports_it(saver) -> None:
    graph = finished_pause_thread(saver)

    result = replay_from(graph, after(graph, "p", ("plan",)).config)

    # interrupt_before=["write"] was compiled in, so the branch stops before write again
    assert result.next == ("write",)
    assert result.paused
    assert result.values == {"ticket": "t7", "priority": "normal", "note": "raise t7"}
    # fork, then the checkpoint after plan
    assert len(result.new_checkpoint_ids) == 2


def test_replay_from_the_paused_checkpoint_runs_the_write(saver) -> None:
    graph = finished_pause_thread(saver)
    paused = after(graph, "p", ("write",))

    result = replay_from(graph, paused.config)

    assert not result.paused
    assert result.values["priority"] == "high"
    assert history(graph, "p")[result.fork_checkpoint_id].metadata["source"] == "fork"


def test_replay_of_the_loop_goes_round_again(saver) -> None:
    graph = make_loop(saver)
    count_one = next(
        s for s in graph.get_state_history(config("loop")) if s.values.get("count") == 1
    )

    result = replay_from(graph, count_one.config)

    assert result.values == {"count": 3, "log": ["bump 0", "bump 1", "bump 2", "done"]}
    assert result.next == ()
    # fork, bump (count 2), bump (count 3), done
    assert len(result.new_checkpoint_ids) == 4
    assert_branch(graph, "loop", result, checkpoint_id(count_one.config))


def test_replay_of_fan_out_runs_both_branches_again(saver) -> None:
    graph = make_fan(saver)
    before_fan = after(graph, "fan", ("left", "right"))

    result = replay_from(graph, before_fan.config)

    assert result.values["summary"] == "left on tickets + right on tickets"
    # fork, the parallel step as one checkpoint, join
    assert len(result.new_checkpoint_ids) == 3
    assert_branch(graph, "fan", result, checkpoint_id(before_fan.config))


def test_replay_of_unknown_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    with pytest.raises(ValueError) as refused:
        replay_from(graph, config("p", MISSING_ID))

    assert str(refused.value) == (
        f"no checkpoint '{MISSING_ID}' in thread 'p': choose one from the thread's history"
    )
    assert count(saver) == before


def test_replay_of_checkpoint_from_another_thread_is_refused(saver) -> None:
    graph = finished_pause_thread(saver, "p")
    other = after(graph, "p", ("plan",))

    with pytest.raises(ValueError, match="in thread 'q'"):
        replay_from(graph, config("q", checkpoint_id(other.config)))


def test_replay_without_checkpoint_id_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    with pytest.raises(ValueError, match="the config names no checkpoint_id"):
        replay_from(graph, config("p"))

    assert count(saver) == before


def test_replay_of_subgraph_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = make_nested(saver)
    # materialized: the saver holds its lock while a list() iterator is open (DESIGN.md)
    inner = next(
        t for t in list(saver.list(config("nested"))) if t.config["configurable"]["checkpoint_ns"]
    )
    before = count(saver)

    with pytest.raises(ValueError, match="belongs to the subgraph namespace 'inner:"):
        replay_from(graph, inner.config)

    assert count(saver) == before


def test_replay_of_finished_update_checkpoint_writes_nothing_and_says_so(saver) -> None:
    graph = finished_pause_thread(saver)
    edited = edit_state(graph, config("p"), {"note": "after the fact"}, as_node="write")
    before = count(saver)

    # an update checkpoint is its own fork point (no fork written) and nothing is due after write
    result = replay_from(graph, edited)

    assert count(saver) == before
    assert result.fork_checkpoint_id is None
    assert result.new_checkpoint_ids == ()
    assert checkpoint_id(result.head_config) == checkpoint_id(edited)
    assert result.values["note"] == "after the fact"


# --- fork_with_edit ---------------------------------------------------------------------------


def test_fork_with_edit_runs_the_edited_state(saver) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))

    result = fork_with_edit(graph, after_read.config, {"ticket": "t9"}, as_node="read")

    tree = history(graph, "p")
    fork = tree[result.fork_checkpoint_id]
    assert fork.metadata["source"] == "update"
    assert parent_id(fork) == checkpoint_id(after_read.config)
    assert fork.values["ticket"] == "t9"
    # plan ran on the edited ticket, then the branch paused before write
    assert result.values == {"ticket": "t9", "priority": "normal", "note": "raise t9"}
    assert result.next == ("write",)
    assert_branch(graph, "p", result, checkpoint_id(after_read.config))
    # the old branch still holds the original ticket
    assert graph.get_state(after_read.config).values["ticket"] == "t7"


def test_fork_with_edit_of_the_loop_count_skips_a_round(saver) -> None:
    graph = make_loop(saver)
    count_one = next(
        s for s in graph.get_state_history(config("loop")) if s.values.get("count") == 1
    )

    result = fork_with_edit(graph, count_one.config, {"count": 2}, as_node="bump")

    assert result.values == {"count": 3, "log": ["bump 0", "bump 2", "done"]}
    # update, bump (count 3), done
    assert len(result.new_checkpoint_ids) == 3


def test_fork_with_invalid_edit_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))
    before = count(saver)

    with pytest.raises(EditRefused, match="unknown key 'tiket'"):
        fork_with_edit(graph, after_read.config, {"tiket": "t9"}, as_node="read")
    with pytest.raises(EditRefused, match="unknown node 'reed'"):
        fork_with_edit(graph, after_read.config, {"ticket": "t9"}, as_node="reed")

    assert count(saver) == before


def test_fork_with_edit_of_unknown_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    with pytest.raises(ValueError, match=f"no checkpoint '{MISSING_ID}' in thread 'p'"):
        fork_with_edit(graph, config("p", MISSING_ID), {"ticket": "t9"}, as_node="read")

    assert count(saver) == before


class UserState(TypedDict, total=False):
    user: str
    greeting: str


def test_fork_with_edit_keeps_the_callers_configurable_keys(saver) -> None:
    def greet(state: UserState, config: RunnableConfig) -> dict:
        return {"greeting": f"hello {config['configurable']['user_name']}"}

    builder = StateGraph(UserState)
    builder.add_node("greet", greet)
    builder.add_edge(START, "greet")
    builder.add_edge("greet", END)
    graph = builder.compile(checkpointer=saver)
    run_config = {"configurable": {"thread_id": "u", "user_name": "ann"}}
    graph.invoke({"user": "x"}, run_config)
    start = after(graph, "u", ("greet",))
    fork_config = {"configurable": {**start.config["configurable"], "user_name": "bob"}}

    result = fork_with_edit(graph, fork_config, {"user": "y"}, as_node="__start__")

    assert result.values == {"user": "y", "greeting": "hello bob"}
