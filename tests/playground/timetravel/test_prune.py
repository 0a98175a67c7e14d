"""Pruning a SqliteSaver database: old checkpoints, whole branches, and what must survive."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.timetravel.prune import (
    PruneRefused,
    delete_branch,
    prune_keep_latest,
    stored_bytes,
)
from tests.playground.timetravel.sample_graphs import config, make_forked, pause_graph


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "checkpoints.sqlite"


@pytest.fixture
def saver(db: Path):
    conn = sqlite3.connect(db, check_same_thread=False)
    yield SqliteSaver(conn)
    conn.close()


@pytest.fixture
def conn(db: Path, saver):
    """The engine's own connection, as the CLI or a page would open it."""
    saver.setup()
    connection = sqlite3.connect(db)
    yield connection
    connection.close()


def tables(conn: sqlite3.Connection) -> tuple[list, list]:
    return (
        conn.execute("SELECT * FROM checkpoints ORDER BY 1, 2, 3").fetchall(),
        conn.execute("SELECT * FROM writes ORDER BY 1, 2, 3, 4, 6").fetchall(),
    )


def fresh_sum(conn: sqlite3.Connection, thread_id: str) -> int:
    (checkpoints,) = conn.execute(
        "SELECT SUM(length(checkpoint) + length(metadata)) FROM checkpoints WHERE thread_id = ?",
        (thread_id,),
    ).fetchone()
    (writes,) = conn.execute(
        "SELECT COALESCE(SUM(length(value)), 0) FROM writes WHERE thread_id = ?", (thread_id,)
    ).fetchone()
    return checkpoints + writes


def run_paused_turns(saver: SqliteSaver, thread_id: str, turns: int):
    """Finished turns, then one more that pauses before ``write``."""
    graph = pause_graph(saver)
    for turn in range(turns):
        graph.invoke({"ticket": f"t{turn}"}, config(thread_id))
        graph.invoke(None, config(thread_id))
    graph.invoke({"ticket": "last"}, config(thread_id))
    assert graph.get_state(config(thread_id)).next == ("write",)
    return graph


def history(saver: SqliteSaver, thread_id: str) -> list:
    return list(pause_graph(saver).get_state_history(config(thread_id)))


def test_prune_keeps_latest_and_head_still_resumes(db, saver, conn):
    run_paused_turns(saver, "t", turns=4)
    head = history(saver, "t")[0]

    report = prune_keep_latest(conn, "t", 3, dry_run=False)

    assert report.checkpoints_after == 3 and not report.dry_run
    assert report.checkpoints_before == report.checkpoints_after + len(report.deleted_ids)
    # a fresh process on the same file resumes the paused write from the kept head
    with closing(sqlite3.connect(db, check_same_thread=False)) as other:
        graph = pause_graph(SqliteSaver(other))
        result = graph.invoke(None, config("t"))
        assert result == {"ticket": "last", "priority": "high", "note": "raise last"}
        snapshots = list(graph.get_state_history(config("t")))
    assert (
        snapshots[1].config["configurable"]["checkpoint_id"]
        == (head.config["configurable"]["checkpoint_id"])
    )
    assert len(snapshots) == 4


def test_prune_cuts_the_parent_link_of_the_oldest_kept_checkpoint(saver, conn):
    run_paused_turns(saver, "t", turns=2)

    report = prune_keep_latest(conn, "t", 3, dry_run=False)

    kept = history(saver, "t")
    assert [s.config["configurable"]["checkpoint_id"] for s in kept][-1:] == list(
        report.detached_ids
    )
    assert kept[-1].parent_config is None
    assert all(s.parent_config is not None for s in kept[:-1])


def test_prune_dry_run_changes_nothing_and_reports_what_the_real_run_does(saver, conn):
    run_paused_turns(saver, "t", turns=3)
    before = tables(conn)

    dry = prune_keep_latest(conn, "t", 2)

    assert dry.dry_run and tables(conn) == before
    real = prune_keep_latest(conn, "t", 2, dry_run=False)
    assert real == replace(dry, dry_run=False)


def test_prune_bytes_after_equal_a_fresh_sum_and_are_fewer(saver, conn):
    run_paused_turns(saver, "t", turns=3)
    run_paused_turns(saver, "other", turns=1)
    other_before = fresh_sum(conn, "other")

    report = prune_keep_latest(conn, "t", 2, dry_run=False)

    assert report.bytes_before > report.bytes_after == fresh_sum(conn, "t")
    assert report.bytes_after == stored_bytes(conn, "t")
    assert report.writes_deleted > 0
    assert conn.execute(
        "SELECT COUNT(*) FROM writes WHERE thread_id = 't' AND checkpoint_id NOT IN "
        "(SELECT checkpoint_id FROM checkpoints WHERE thread_id = 't')"
    ).fetchone() == (0,)
    assert fresh_sum(conn, "other") == other_before  # other threads are untouched


def test_prune_keeping_more_than_exist_deletes_nothing(saver, conn):
    run_paused_turns(saver, "t", turns=0)
    before = tables(conn)

    report = prune_keep_latest(conn, "t", 50, dry_run=False)

    assert report.deleted_ids == () and report.bytes_after == report.bytes_before
    assert tables(conn) == before


@pytest.mark.parametrize("keep", [0, -2])
def test_prune_keeping_fewer_than_one_is_refused_and_changes_nothing(saver, conn, keep):
    run_paused_turns(saver, "t", turns=1)
    before = tables(conn)

    with pytest.raises(PruneRefused, match="at least 1"):
        prune_keep_latest(conn, "t", keep, dry_run=False)
    assert tables(conn) == before


def test_prune_of_unknown_thread_is_refused_naming_it(saver, conn):
    run_paused_turns(saver, "t", turns=0)

    with pytest.raises(PruneRefused, match="'nope'"):
        prune_keep_latest(conn, "nope", 3, dry_run=False)


def branch_of(snapshots: list, root: str) -> set[str]:
    """Ids of ``root`` and its descendants, from LangGraph's own parent_config links."""
    parent = {
        s.config["configurable"]["checkpoint_id"]: (
            s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None
        )
        for s in snapshots
    }
    branch = {root}
    grew = True
    while grew:
        found = {cid for cid, pid in parent.items() if pid in branch} - branch
        branch |= found
        grew = bool(found)
    return branch


def update_fork(snapshots: list) -> str:
    """The checkpoint make_forked wrote with update_state (the edit of the paused state)."""
    return next(
        s.config["configurable"]["checkpoint_id"]
        for s in snapshots
        if s.metadata["source"] == "update"
    )


def test_delete_branch_removes_exactly_the_fork_and_its_descendants(saver, conn):
    graph = make_forked(saver, "f")
    snapshots = list(graph.get_state_history(config("f")))
    fork = update_fork(snapshots)
    expected = branch_of(snapshots, fork)
    assert len(expected) >= 2  # the edit and its resume

    report = delete_branch(conn, "f", fork, dry_run=False)

    assert set(report.deleted_ids) == expected
    remaining = list(graph.get_state_history(config("f")))
    all_ids = {s.config["configurable"]["checkpoint_id"] for s in snapshots}
    assert {s.config["configurable"]["checkpoint_id"] for s in remaining} == all_ids - expected
    # the head did not move and still answers
    assert remaining[0].config == snapshots[0].config
    assert report.detached_ids == ()
    assert report.bytes_after == fresh_sum(conn, "f") < report.bytes_before


def test_delete_branch_dry_run_changes_nothing(saver, conn):
    graph = make_forked(saver, "f")
    fork = update_fork(list(graph.get_state_history(config("f"))))
    before = tables(conn)

    report = delete_branch(conn, "f", fork)

    assert report.dry_run and report.deleted_ids and tables(conn) == before


def test_deleting_the_heads_branch_is_refused_and_changes_nothing(saver, conn):
    graph = make_forked(saver, "f")
    snapshots = list(graph.get_state_history(config("f")))
    head = snapshots[0].config["configurable"]["checkpoint_id"]
    root = snapshots[-1].config["configurable"]["checkpoint_id"]
    before = tables(conn)

    for checkpoint_id in (head, root):
        with pytest.raises(PruneRefused, match="head"):
            delete_branch(conn, "f", checkpoint_id, dry_run=False)
    assert tables(conn) == before


def test_delete_branch_of_unknown_checkpoint_is_refused_naming_it(saver, conn):
    make_forked(saver, "f")

    with pytest.raises(PruneRefused, match="no checkpoint 'x-1'"):
        delete_branch(conn, "f", "x-1", dry_run=False)


def extend(state: list, batches: list) -> list:
    return state + [item for batch in batches for item in batch]


class Logged(TypedDict, total=False):
    # DeltaChannel (beta) stores no value in most checkpoints: it is rebuilt from ancestor writes
    log: Annotated[list, DeltaChannel(extend, snapshot_frequency=50)]


def test_prune_refuses_to_cut_below_a_delta_channel_and_changes_nothing(saver, conn):
    builder = StateGraph(Logged)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", END)
    graph = builder.compile(checkpointer=saver)
    for _ in range(3):
        graph.invoke({"log": ["in"]}, config("d"))
    before = tables(conn)

    with pytest.raises(PruneRefused, match="DeltaChannel"):
        prune_keep_latest(conn, "d", 2, dry_run=False)
    assert tables(conn) == before
    assert graph.get_state(config("d")).values["log"] == ["in", "a"] * 3


def test_prune_of_a_connection_with_an_open_transaction_is_refused(saver, conn):
    run_paused_turns(saver, "t", turns=1)
    conn.execute("BEGIN")

    with pytest.raises(RuntimeError, match="commit or roll it back"):
        prune_keep_latest(conn, "t", 1, dry_run=False)
    conn.rollback()
