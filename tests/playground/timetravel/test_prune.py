"""Conformance of prune: keep the newest N checkpoints or delete a branch, the same plan, report
and refusals on every backend, and what must survive does."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, TypedDict

import pytest
from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph

from playground.timetravel.prune import PruneRefused, delete_branch, prune_keep_latest
from tests.playground.timetravel.sample_graphs import config, make_forked, pause_graph


def run_paused_turns(saver, thread_id: str, turns: int):
    """Finished turns, then one more that pauses before ``write``."""
    graph = pause_graph(saver)
    for turn in range(turns):
        graph.invoke({"ticket": f"t{turn}"}, config(thread_id))
        graph.invoke(None, config(thread_id))
    graph.invoke({"ticket": "last"}, config(thread_id))
    assert graph.get_state(config(thread_id)).next == ("write",)
    return graph


def ids(snapshots) -> list[str]:
    return [s.config["configurable"]["checkpoint_id"] for s in snapshots]


def test_prune_keeps_the_newest_and_a_fresh_process_resumes_the_head(database):
    graph = run_paused_turns(database.saver, "t", turns=4)
    head = graph.get_state(config("t")).config

    with database.storage(writable=True) as storage:
        report = prune_keep_latest(storage, "t", 3, dry_run=False)

    assert report.checkpoints_after == 3 and not report.dry_run
    assert report.checkpoints_before == report.checkpoints_after + len(report.deleted_ids)
    with database.fresh_saver() as saver:
        fresh = pause_graph(saver)
        assert fresh.invoke(None, config("t")) == {"ticket": "last", "priority": "high",
                                                   "note": "raise last"}
        snapshots = list(fresh.get_state_history(config("t")))
    assert snapshots[1].config["configurable"]["checkpoint_id"] == \
        head["configurable"]["checkpoint_id"]
    assert len(snapshots) == 4


def test_prune_cuts_the_parent_link_of_the_oldest_kept_checkpoint(database):
    graph = run_paused_turns(database.saver, "t", turns=2)

    with database.storage(writable=True) as storage:
        report = prune_keep_latest(storage, "t", 3, dry_run=False)

    kept = list(graph.get_state_history(config("t")))
    assert ids(kept)[-1:] == list(report.detached_ids)
    assert kept[-1].parent_config is None
    assert all(s.parent_config is not None for s in kept[:-1])


def test_prune_dry_run_changes_nothing_and_reports_what_the_real_run_does(database):
    run_paused_turns(database.saver, "t", turns=3)
    before = database.rows()

    with database.storage() as storage:  # a dry run needs no write access
        dry = prune_keep_latest(storage, "t", 2)
    assert dry.dry_run and database.rows() == before
    with database.storage(writable=True) as storage:
        real = prune_keep_latest(storage, "t", 2, dry_run=False)
    assert real == replace(dry, dry_run=False)


def test_prune_bytes_after_equal_a_raw_sum_and_other_threads_are_untouched(database):
    run_paused_turns(database.saver, "t", turns=3)
    run_paused_turns(database.saver, "other", turns=1)
    other = database.rows("other")

    with database.storage(writable=True) as storage:
        report = prune_keep_latest(storage, "t", 2, dry_run=False)
        assert report.bytes_after == storage.stored_bytes("t")

    assert report.bytes_before > report.bytes_after == database.stored_bytes("t")
    assert report.writes_deleted > 0
    assert database.rows("other") == other


def test_prune_leaves_no_write_of_a_deleted_checkpoint(database):
    run_paused_turns(database.saver, "t", turns=3)

    with database.storage(writable=True) as storage:
        prune_keep_latest(storage, "t", 2, dry_run=False)

    rows = database.rows("t")
    kept = {row[2] for row in rows["checkpoints"]}
    writes = rows["writes" if database.kind == "sqlite" else "checkpoint_writes"]
    assert writes and {row[2] for row in writes} <= kept


def test_prune_keeping_more_than_exist_deletes_nothing(database):
    run_paused_turns(database.saver, "t", turns=0)
    before = database.rows()

    with database.storage(writable=True) as storage:
        report = prune_keep_latest(storage, "t", 50, dry_run=False)

    assert report.deleted_ids == () and report.bytes_after == report.bytes_before
    assert database.rows() == before


@pytest.mark.parametrize("keep", [0, -2])
def test_prune_keeping_fewer_than_one_is_refused_and_changes_nothing(database, keep):
    run_paused_turns(database.saver, "t", turns=1)
    before = database.rows()

    with database.storage(writable=True) as storage, pytest.raises(PruneRefused,
                                                                    match="at least 1"):
        prune_keep_latest(storage, "t", keep, dry_run=False)
    assert database.rows() == before


def test_prune_of_an_unknown_thread_is_refused_naming_it_and_its_namespace(database):
    run_paused_turns(database.saver, "t", turns=0)

    with database.storage(writable=True) as storage:
        with pytest.raises(PruneRefused, match="'nope'"):
            prune_keep_latest(storage, "nope", 3, dry_run=False)
        with pytest.raises(PruneRefused, match="namespace 'inner'"):
            prune_keep_latest(storage, "t", 3, checkpoint_ns="inner", dry_run=False)


def branch_of(snapshots: list, root: str) -> set[str]:
    """Ids of ``root`` and its descendants, from LangGraph's own parent_config links."""
    parent = {s.config["configurable"]["checkpoint_id"]:
              s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None
              for s in snapshots}
    branch, grew = {root}, True
    while grew:
        found = {cid for cid, pid in parent.items() if pid in branch} - branch
        branch |= found
        grew = bool(found)
    return branch


def update_fork(snapshots: list) -> str:
    """The checkpoint make_forked wrote with update_state (the edit of the paused state)."""
    return next(s.config["configurable"]["checkpoint_id"] for s in snapshots
                if s.metadata["source"] == "update")


def test_delete_branch_removes_exactly_the_fork_and_its_descendants(database):
    graph = make_forked(database.saver, "f")
    snapshots = list(graph.get_state_history(config("f")))
    fork = update_fork(snapshots)
    expected = branch_of(snapshots, fork)
    assert len(expected) >= 2  # the edit and its resume

    with database.storage(writable=True) as storage:
        report = delete_branch(storage, "f", fork, dry_run=False)

    assert set(report.deleted_ids) == expected and report.detached_ids == ()
    remaining = list(graph.get_state_history(config("f")))
    assert set(ids(remaining)) == set(ids(snapshots)) - expected
    assert remaining[0].config == snapshots[0].config  # the head did not move
    assert report.bytes_after == database.stored_bytes("f") < report.bytes_before


def test_delete_branch_dry_run_changes_nothing(database):
    graph = make_forked(database.saver, "f")
    fork = update_fork(list(graph.get_state_history(config("f"))))
    before = database.rows()

    with database.storage() as storage:
        report = delete_branch(storage, "f", fork)

    assert report.dry_run and report.deleted_ids and database.rows() == before


def test_deleting_the_heads_branch_is_refused_and_changes_nothing(database):
    graph = make_forked(database.saver, "f")
    snapshots = list(graph.get_state_history(config("f")))
    before = database.rows()

    with database.storage(writable=True) as storage:
        for checkpoint_id in (ids(snapshots)[0], ids(snapshots)[-1]):  # the head, the root
            with pytest.raises(PruneRefused, match="head"):
                delete_branch(storage, "f", checkpoint_id, dry_run=False)
    assert database.rows() == before


def test_delete_branch_of_an_unknown_checkpoint_is_refused_naming_it(database):
    make_forked(database.saver, "f")

    with database.storage(writable=True) as storage, pytest.raises(PruneRefused,
                                                                    match="no checkpoint 'x-1'"):
        delete_branch(storage, "f", "x-1", dry_run=False)


def extend(state: list, batches: list) -> list:
    return state + [item for batch in batches for item in batch]


class Logged(TypedDict, total=False):
    # DeltaChannel (beta) stores no value in most checkpoints: it is rebuilt from ancestor writes
    log: Annotated[list, DeltaChannel(extend, snapshot_frequency=50)]


def test_prune_refuses_to_cut_below_a_delta_channel_and_changes_nothing(database):
    builder = StateGraph(Logged)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", END)
    graph = builder.compile(checkpointer=database.saver)
    for _ in range(3):
        graph.invoke({"log": ["in"]}, config("d"))
    before = database.rows()

    with database.storage(writable=True) as storage, pytest.raises(PruneRefused,
                                                                    match="DeltaChannel"):
        prune_keep_latest(storage, "d", 2, dry_run=False)
    assert database.rows() == before
    assert graph.get_state(config("d")).values["log"] == ["in", "a"] * 3


def test_prune_of_a_database_without_saver_tables_is_refused(database):
    from playground.places.saver_object import SaverStorage

    storage = SaverStorage(database.saver)
    with pytest.raises(PruneRefused, match="no checkpoint tables"):
        prune_keep_latest(storage, "t", 1)
