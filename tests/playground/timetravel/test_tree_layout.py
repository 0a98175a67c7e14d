"""The history tree as a git graph: a row per checkpoint, a lane per branch, tips in words."""

from __future__ import annotations

import contextlib
import itertools
import sqlite3

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from playground.places.door import open_storage
from playground.timetravel.records import CheckpointRecord
from playground.timetravel.tree import build_tree, load_tree
from playground.timetravel.tree_layout import (
    EDIT,
    FAILED,
    PAUSED,
    REPLAY,
    along_branch,
    tree_layout,
)
from tests.playground.timetravel import sample_graphs


def _record(cid: str, parent: str | None, source: str = "loop") -> CheckpointRecord:
    return CheckpointRecord(cid, parent, "", 0, source, 10, 5, 0)


def _chain(n: int, prefix: str, parent: str | None = None) -> list[CheckpointRecord]:
    records = []
    for i in range(n):
        records.append(_record(f"{prefix}{i:06d}", parent))
        parent = records[-1].checkpoint_id
    return records


class _Count(TypedDict, total=False):
    n: int


def _failing_graph(saver):
    """start -> boom, where boom raises: the thread's head is where it failed."""
    def boom(state: _Count) -> dict:
        raise RuntimeError("the tool is down")

    builder = StateGraph(_Count)
    builder.add_node("start", lambda s: {"n": 1})
    builder.add_node("boom", boom)
    builder.add_edge(START, "start")
    builder.add_edge("start", "boom")
    builder.add_edge("boom", END)
    return builder.compile(checkpointer=saver)


def test_every_checkpoint_gets_its_own_row_in_creation_order(sample_db):
    path, _ = sample_db
    storage = open_storage(path)
    tree = load_tree(storage, "forked")

    layout = tree_layout(storage, tree)

    assert [row.ordinal for row in layout.rows] == list(range(1, len(tree) + 1))
    assert [row.checkpoint_id for row in layout.rows] == list(tree.nodes)


def test_the_original_run_is_lane_zero_and_each_fork_leaves_its_parent(sample_db):
    path, _ = sample_db
    storage = open_storage(path)
    tree = load_tree(storage, "forked")

    layout = tree_layout(storage, tree)

    original, current = [tree.roots[0]], tree.roots[0]
    while tree.children.get(current):
        current = tree.children[current][0]  # the oldest child goes on with the run
        original.append(current)
    assert [cid for cid in original if layout.row(cid).lane != 0] == []
    assert layout.branches[0].origin == "original run" and layout.branches[0].tip == current
    assert len(layout.branches) == len(tree.leaves)
    for row in layout.rows:
        parent = tree.parent_of(row.checkpoint_id)
        if parent is not None:
            assert (row.parent_ordinal, row.parent_lane) == (
                tree.ordinal(parent), layout.row(parent).lane)


def test_branch_tips_say_what_each_branch_is(sample_db):
    path, _ = sample_db
    storage = open_storage(path)
    tree = load_tree(storage, "forked")

    labels = {branch.tip: branch.label for branch in tree_layout(storage, tree).branches}

    head = labels[tree.head]
    assert head.startswith("head · paused before write")
    assert "replay of #" in head  # the newest branch is the replay from after `read`
    others = [label for tip, label in labels.items() if tip != tree.head]
    assert any("fork of #" in label and "(edited)" in label for label in others)
    assert any(label.startswith("finished") for label in others)


def test_rows_name_the_node_that_wrote_each_checkpoint(sample_db):
    path, _ = sample_db
    storage = open_storage(path)
    tree = load_tree(storage, "forked")

    layout = tree_layout(storage, tree)
    nodes = [row.node for row in layout.rows[:5]]

    assert nodes == ["input", "loop · __start__", "loop · read", "loop · plan", "loop · write"]
    kinds = {row.kind for row in layout.rows}
    assert {EDIT, REPLAY, PAUSED} <= kinds


def test_a_failed_tip_says_where_it_failed(tmp_path):
    conn = sqlite3.connect(tmp_path / "f.sqlite", check_same_thread=False)
    graph = _failing_graph(SqliteSaver(conn))
    with contextlib.suppress(RuntimeError):
        graph.invoke({"n": 0}, sample_graphs.config("broken"))
    storage = open_storage(tmp_path / "f.sqlite")
    tree = load_tree(storage, "broken")

    layout = tree_layout(storage, tree)

    assert layout.branches[0].label == "head · failed in boom · original run"
    assert layout.row(tree.head).kind == FAILED


def test_short_branches_share_lanes_when_their_rows_do_not_overlap():
    # A trunk that grows ten checkpoints at a time; after each ten, a three-checkpoint replay
    # from five back. Ids count up: creation order, as uuid6 ids are.
    records: list[CheckpointRecord] = []
    trunk_tip = None

    def add(parent: str | None) -> str:
        records.append(_record(f"{len(records):08d}", parent))
        return records[-1].checkpoint_id

    for _ in range(10):
        for _ in range(10):
            trunk_tip = add(trunk_tip)
        parent = records[-5].checkpoint_id
        for _ in range(3):
            parent = add(parent)
    trunk_tip = add(trunk_tip)  # the head is on the trunk
    tree = build_tree("t", records)

    layout = tree_layout(None, tree)

    assert len(layout.branches) == 11
    assert layout.lanes == 2  # the ten replays take turns in one lane
    spans = sorted((tree.ordinal(b.fork_point), tree.ordinal(b.tip))
                   for b in layout.branches if b.lane == 1)
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert end < start  # no two branches of a lane overlap


def test_a_ten_thousand_checkpoint_chain_is_laid_out_whole():
    tree = build_tree("t", _chain(10_000, "c"))

    layout = tree_layout(None, tree)

    assert len(layout.rows) == 10_000 and layout.lanes == 1
    assert layout.rows[0].parent_ordinal is None and layout.rows[-1].parent_ordinal == 9_999


def test_older_and_newer_move_along_the_branch_a_walk_came_from(sample_db):
    path, _ = sample_db
    storage = open_storage(path)
    tree = load_tree(storage, "forked")
    layout = tree_layout(storage, tree)
    fork_point = next(cid for cid in tree.current_branch if len(tree.children[cid]) > 1)
    on_head = tree.current_branch[tree.current_branch.index(fork_point) + 1]

    assert along_branch(layout, tree, on_head, newer=False) == fork_point
    # walked down from the head's tip, a step back up returns to the head's branch
    assert along_branch(layout, tree, fork_point, newer=True, toward=tree.head) == on_head
    # with no walk behind it, newer follows the branch the checkpoint is drawn on
    drawn = layout.row(fork_point).branch
    assert layout.row(along_branch(layout, tree, fork_point, newer=True)).branch == drawn
    assert along_branch(layout, tree, tree.head, newer=True) is None
    root = tree.current_branch[0]
    assert along_branch(layout, tree, root, newer=False) is None


class _Steps(TypedDict, total=False):
    n: int


def _three_steps(saver):
    """a -> b -> c, each adding one: a thread of stock LangGraph checkpoints."""
    builder = StateGraph(_Steps)
    for name in ("a", "b", "c"):
        builder.add_node(name, lambda s: {"n": s.get("n", 0) + 1})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    builder.add_edge("c", END)
    return builder.compile(checkpointer=saver)


def _names(path, thread: str) -> dict[str, str]:
    """Each branch's name, by the branch's first checkpoint."""
    storage = open_storage(path)
    try:
        tree = load_tree(storage, thread)
        return {branch.first: branch.origin for branch in tree_layout(storage, tree).branches}
    finally:
        storage.close()


def test_no_branch_added_later_and_no_move_of_the_head_changes_a_branchs_name(tmp_path):
    path = tmp_path / "names.sqlite"
    graph = _three_steps(SqliteSaver(sqlite3.connect(path, check_same_thread=False)))
    thread = sample_graphs.config("t")
    graph.invoke({"n": 0}, thread)
    history = list(graph.get_state_history(thread))  # newest first
    after_a, after_b = history[-3].config, history[-4].config
    graph.invoke(None, after_a)  # a replay from after a: the head moves onto it
    before = _names(path, "t")

    graph.update_state(after_b, {"n": 40}, as_node="b")  # a fork further down the original
    graph.invoke(None, after_a)  # and a second replay from the same checkpoint
    after = _names(path, "t")

    assert sorted(before.values()) == ["original run", "replay of #3"]
    assert {first: after[first] for first in before} == before
    assert sorted(set(after.values()) - set(before.values())) == ["fork of #4 (edited)"]
    assert list(after.values()).count("replay of #3") == 2
