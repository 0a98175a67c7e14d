"""The tree the engine reads from storage equals what LangGraph's own history says."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from playground.places.door import open_storage
from playground.timetravel.tree import build_tree, ensure_details, load_tree

THREADS = ["loop", "fan", "nested", "forked", "long"]


def _history_facts(graph, thread_id: str) -> dict[str, tuple]:
    facts = {}
    for snapshot in graph.get_state_history({"configurable": {"thread_id": thread_id}}):
        parent = snapshot.parent_config
        facts[snapshot.config["configurable"]["checkpoint_id"]] = (
            parent["configurable"]["checkpoint_id"] if parent else None,
            snapshot.metadata["step"],
            snapshot.metadata["source"],
            tuple(sorted(snapshot.next)),
            snapshot.created_at,
        )
    return facts


def _tree_facts(tree) -> dict[str, tuple]:
    facts = {}
    for cid, r in tree.nodes.items():
        detail = tree.details[cid]
        facts[cid] = (r.parent_id, r.step, r.source, detail.next, detail.created_at)
    return facts


@pytest.mark.parametrize("thread_id", THREADS)
def test_tree_from_sql_equals_get_state_history(sample_db, thread_id):
    path, graphs = sample_db
    source = open_storage(path)

    tree = load_tree(source, thread_id, all_details=True)

    assert _tree_facts(tree) == _history_facts(graphs[thread_id], thread_id)
    head = graphs[thread_id].get_state({"configurable": {"thread_id": thread_id}})
    assert tree.head == head.config["configurable"]["checkpoint_id"]


def test_forked_thread_has_three_branches_and_the_head_paused(sample_db):
    path, _ = sample_db
    tree = load_tree(open_storage(path), "forked")

    assert len(tree) == 9
    assert len(tree.leaves) == 3
    assert len(tree.forks) == 2
    assert tree.paused == {tree.head}
    assert tree.details[tree.head].next == ("write",)
    sources = [tree.nodes[cid].source for cid in tree.current_branch]
    assert sources == ["input", "loop", "loop", "fork", "loop"]


def test_writers_name_the_nodes_whose_writes_made_each_checkpoint(sample_db):
    path, _ = sample_db
    fan = load_tree(open_storage(path), "fan", all_details=True)

    writers = [fan.details[cid].writers for cid in fan.nodes]

    assert writers == [(), ("__start__",), ("left", "right"), ("join",)]


def test_subgraph_checkpoints_live_in_their_own_namespace(sample_db):
    path, _ = sample_db
    source = open_storage(path)

    namespaces = source.namespaces("nested")
    inner = [ns for ns in namespaces if ns]

    assert namespaces[0] == "" and len(inner) == 1 and inner[0].startswith("inner:")
    assert len(load_tree(source, "nested", inner[0])) >= 3
    assert len(load_tree(source, "nested")) == 4  # the root history leaves them out


def test_any_saver_falls_back_to_list_and_gives_the_same_tree(samples):
    saver = InMemorySaver()
    graph = samples.make_forked(saver, "mem")

    tree = load_tree(open_storage(saver), "mem", all_details=True)

    assert _tree_facts(tree) == _history_facts(graph, "mem")


def test_thread_list_counts_checkpoints_branches_and_status(sample_db):
    path, _ = sample_db

    threads = {t.thread_id: t for t in open_storage(path).threads()}

    assert set(threads) == set(THREADS)
    assert threads["forked"].checkpoints == 9
    assert threads["forked"].branches == 3
    assert threads["forked"].head_next == ("write",)
    assert threads["long"].head_next == ()
    assert threads["long"].checkpoints == 100


def test_pruned_parent_makes_a_root_instead_of_breaking_the_tree(sample_db):
    path, _ = sample_db
    records = open_storage(path).records("loop")

    tree = build_tree("loop", records[2:])

    assert tree.roots == (records[2].checkpoint_id,)
    assert tree.current_branch[0] == records[2].checkpoint_id


def test_loading_decodes_only_the_leaves_until_more_is_asked(sample_db):
    path, _ = sample_db
    source = open_storage(path)

    tree = load_tree(source, "long")
    leaves_only = set(tree.details)
    ensure_details(source, tree, list(tree.nodes)[:3])

    assert leaves_only == set(tree.leaves)
    assert set(tree.details) == set(tree.leaves) | set(list(tree.nodes)[:3])


def test_building_a_tree_of_no_records_is_refused():
    with pytest.raises(ValueError, match="no checkpoints"):
        build_tree("x", [])


def test_tree_cache_reuses_a_tree_until_the_thread_changes(tmp_path, samples):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from playground.timetravel.migrate import rename_channel
    from playground.timetravel.tree import TreeCache

    path = tmp_path / "c.sqlite"
    saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    graph = samples.make_forked(saver, "t")
    cache = TreeCache()

    first = cache.get(open_storage(path), "t")
    again = cache.get(open_storage(path), "t")
    graph.invoke(None, {"configurable": {"thread_id": "t"}})  # a new checkpoint
    grown = cache.get(open_storage(path), "t")
    writable = open_storage(path, writable=True)
    rename_channel(writable, "t", "note", "memo", apply=True)  # the head rewritten in place
    writable.close()
    renamed = cache.get(open_storage(path), "t")

    assert again is first
    assert grown is not first and len(grown) == len(first) + 1
    assert renamed is not grown and len(renamed) == len(grown)


def test_the_tree_cache_is_bounded_by_the_bytes_of_its_trees_not_their_count(tmp_path):
    from playground.places.door import open_storage
    from playground.savers import open_saver
    from playground.timetravel.tree import _RECORD_BYTES, TreeCache
    from tests.playground.timetravel.sample_graphs import make_long

    with open_saver(tmp_path / "c.sqlite") as saver:
        for name in ("a", "b", "c"):
            make_long(saver, name, turns=3)
    source = open_storage(tmp_path / "c.sqlite")
    one = len(TreeCache().get(source, "a"))
    cache = TreeCache(max_bytes=2 * one * _RECORD_BYTES)  # room for two of these trees

    first = cache.get(source, "a")
    cache.get(source, "b")
    assert cache.get(source, "a") is first  # still held
    cache.get(source, "c")  # pushes out the least recently used: b
    assert cache.get(source, "a") is first
    assert cache._budget.total <= 2 * one * _RECORD_BYTES


def test_moved_since_names_the_checkpoints_stored_after_the_tree_was_read(database, samples):
    from playground.timetravel.tree import TreeCache, moved_since

    graph = samples.pause_graph(database.saver)
    graph.invoke({"ticket": "t7"}, {"configurable": {"thread_id": "t"}})
    with database.storage() as storage:
        drawn = TreeCache().get(storage, "t")
        assert moved_since(storage, drawn) is None  # nothing stored since: act on it

        graph.invoke(None, {"configurable": {"thread_id": "t"}})  # another tab resumes
        moved = moved_since(storage, drawn)

    assert moved is not None and len(moved.new_ids) == 1
    assert moved.writers == ("write",) and moved.ordinal == len(drawn) + 1
    assert moved.line() == (f"the thread moved on since this page was drawn: checkpoint "
                            f"#{len(drawn) + 1} is new, written by write")
