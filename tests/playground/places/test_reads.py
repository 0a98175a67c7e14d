"""Conformance of reads: every backend gives the engine the same thread, tree, sizes and values
as LangGraph's own history, and an inspection writes nothing."""

from __future__ import annotations

import pytest

from playground.serde import graph_serde
from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.sizes import size_report
from playground.timetravel.tree import load_tree
from tests.playground.timetravel import sample_graphs
from tests.playground.timetravel.sample_graphs import config

SHAPES = {
    "loop": (sample_graphs.make_loop, sample_graphs.loop_graph),
    "fan": (sample_graphs.make_fan, sample_graphs.fan_graph),
    "nested": (sample_graphs.make_nested, sample_graphs.nested_graph),
    "forked": (sample_graphs.make_forked, sample_graphs.pause_graph),
    "long": (sample_graphs.make_long, sample_graphs.pause_graph),
}


def history_facts(graph, thread_id: str) -> dict[str, tuple]:
    """What LangGraph says of each checkpoint: parent, step, source, next, time."""
    facts = {}
    for snapshot in graph.get_state_history(config(thread_id)):
        parent = snapshot.parent_config
        facts[snapshot.config["configurable"]["checkpoint_id"]] = (
            parent["configurable"]["checkpoint_id"] if parent else None,
            snapshot.metadata["step"], snapshot.metadata["source"],
            tuple(sorted(snapshot.next)), snapshot.created_at,
        )
    return facts


@pytest.mark.parametrize("shape", list(SHAPES))
def test_tree_equals_get_state_history_for_every_shape(database, shape):
    make, build = SHAPES[shape]
    make(database.saver, shape)

    with database.storage() as storage:
        tree = load_tree(storage, shape, all_details=True)

    with database.fresh_saver() as saver:
        graph = build(saver)
        assert {cid: (r.parent_id, r.step, r.source, tree.details[cid].next,
                      tree.details[cid].created_at) for cid, r in tree.nodes.items()} == \
            history_facts(graph, shape)
        head = graph.get_state(config(shape)).config["configurable"]["checkpoint_id"]
    assert tree.head == head


def test_forked_thread_reads_as_three_branches_with_the_head_paused(database):
    sample_graphs.make_forked(database.saver, "forked")

    with database.storage() as storage:
        tree = load_tree(storage, "forked")

    assert (len(tree), len(tree.leaves), len(tree.forks)) == (9, 3, 2)
    assert tree.paused == {tree.head} and tree.details[tree.head].next == ("write",)


def test_thread_list_counts_checkpoints_branches_and_the_waiting_node(database):
    sample_graphs.make_forked(database.saver, "forked")
    sample_graphs.make_long(database.saver, "long", turns=4)

    with database.storage() as storage:
        threads = {t.thread_id: t for t in storage.threads()}

    assert set(threads) == {"forked", "long"}
    assert threads["long"].checkpoints == 20 and threads["long"].branches == 1
    assert threads["forked"].branches == 3 and threads["forked"].head_next == ("write",)
    assert threads["long"].stored_bytes == database.stored_bytes("long")


def test_sizes_count_every_stored_byte_once(database):
    sample_graphs.make_long(database.saver, "long", turns=3)

    with database.storage() as storage:
        report = size_report("long", storage.records("long"))

    assert report.checkpoints == 15
    assert report.stored_bytes == database.stored_bytes("long")
    assert report.stored_bytes > report.resume_load_bytes > 0


def test_subgraph_namespaces_are_listed_and_read(database):
    sample_graphs.make_nested(database.saver, "nested")

    with database.storage() as storage:
        namespaces = storage.namespaces("nested")
        inner = storage.records("nested", namespaces[1])

    assert namespaces[0] == "" and namespaces[1].startswith("inner:")
    assert len(inner) >= 2 and all(r.checkpoint_ns == namespaces[1] for r in inner)


def test_values_leave_out_langgraph_bookkeeping_channels(database):
    sample_graphs.make_forked(database.saver, "forked")

    with database.storage() as storage:
        head = load_tree(storage, "forked").head
        values = storage.values("forked", head)

    assert values == {"ticket": "t7", "priority": "normal", "note": "raise t7"}


def test_pending_writes_name_their_node_and_channel(database):
    sample_graphs.make_fan(database.saver, "fan")

    with database.storage() as storage:
        first_step = storage.records("fan")[1]
        writes = storage.pending_writes("fan", first_step.checkpoint_id)

    assert {(w.node, tuple(w.value)) for w in writes if w.channel == "notes"} == {
        ("left", ("left on tickets",)), ("right", ("right on tickets",))}
    assert all(w.size > 0 for w in writes)


def test_fingerprint_changes_when_the_thread_does(database):
    graph = sample_graphs.pause_graph(database.saver)
    graph.invoke({"ticket": "t1"}, config("t"))
    with database.storage() as storage:
        before = storage.fingerprint("t")
        assert storage.fingerprint("t") == before  # reading changes nothing
        graph.invoke(None, config("t"))
        assert storage.fingerprint("t") != before
        assert storage.fingerprint("nobody") is None


def test_unknown_thread_is_reported_by_name(database):
    sample_graphs.make_loop(database.saver, "loop")

    with database.storage() as storage, pytest.raises(UnknownThread, match="'ghost'"):
        storage.records("ghost")


def test_inspection_reads_everything_and_changes_no_row(database):
    for shape, (make, _) in SHAPES.items():
        make(database.saver, shape)
    before = database.rows()

    with database.storage() as storage:
        for thread in storage.threads():
            for ns in storage.namespaces(thread.thread_id):
                records = storage.records(thread.thread_id, ns)
                storage.details(thread.thread_id, [r.checkpoint_id for r in records], ns)
                storage.signals(thread.thread_id, ns)
                for record in records:
                    storage.values(thread.thread_id, record.checkpoint_id, ns)

    assert database.rows() == before


def test_a_read_only_storage_hands_out_no_saver_and_refuses_every_write(database):
    from playground.timetravel.migrate import MigrationRefused, rename_channel
    from playground.timetravel.prune import PruneRefused, prune_keep_latest

    sample_graphs.make_long(database.saver, "long", turns=2)
    before = database.rows()

    with database.storage() as storage:
        assert not storage.writable
        with pytest.raises(CheckpointDbError, match="read-only"):
            storage.saver(graph_serde())
        with pytest.raises(PruneRefused, match="read-only"):
            prune_keep_latest(storage, "long", 1, dry_run=False)
        with pytest.raises(MigrationRefused, match="read-only"):
            rename_channel(storage, "long", "note", "remark", apply=True)

    assert database.rows() == before


def test_a_writable_storage_hands_out_the_official_saver_on_the_same_rows(database):
    sample_graphs.make_forked(database.saver, "forked")

    with database.storage(writable=True) as storage:
        graph = sample_graphs.pause_graph(storage.saver(graph_serde()))
        state = graph.get_state(config("forked"))
        head = load_tree(storage, "forked").head

    assert state.config["configurable"]["checkpoint_id"] == head
    assert state.next == ("write",)
