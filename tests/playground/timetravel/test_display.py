"""The drawable tree: readable at any size, forks visible, highlights without a shape change."""

from __future__ import annotations

import re

from playground.places.door import open_storage
from playground.timetravel.display import MAX_DRAWN, run_id, tree_view, view_dot
from playground.timetravel.records import CheckpointRecord
from playground.timetravel.tree import build_tree, load_tree


def _record(cid: str, parent: str | None, source: str = "loop") -> CheckpointRecord:
    return CheckpointRecord(cid, parent, "", 0, source, 10, 5, 0)


def _chain(n: int, prefix: str = "c", parent: str | None = None) -> list[CheckpointRecord]:
    records = []
    for i in range(n):
        cid = f"{prefix}{i:06d}"
        records.append(_record(cid, parent))
        parent = cid
    return records


def test_small_tree_draws_every_checkpoint(sample_db):
    path, _ = sample_db
    tree = load_tree(open_storage(path), "forked")

    view = tree_view(tree)

    assert len(view.nodes) == 9 and view.folded_runs == 0
    assert len(view.edges) == 8


def test_long_linear_run_folds_into_one_node_that_can_be_expanded():
    tree = build_tree("t", _chain(50))

    folded = tree_view(tree)
    run = next(n for n in folded.nodes if n.kind == "run")
    expanded = tree_view(tree, expanded=[run.node_id])

    assert len(folded.nodes) == 3  # root, "... 48 steps", head
    assert run.label.startswith("… 48 steps")
    assert len(expanded.nodes) == 50


def test_forks_stay_visible_inside_a_long_history():
    trunk = _chain(40)
    branch = _chain(30, prefix="b", parent=trunk[19].checkpoint_id)
    tree = build_tree("t", trunk + branch)

    view = tree_view(tree)
    drawn_checkpoints = {n.members[0] for n in view.nodes if n.kind == "checkpoint"}

    assert trunk[19].checkpoint_id in drawn_checkpoints  # the fork point
    assert trunk[20].checkpoint_id in drawn_checkpoints  # first of each branch
    assert branch[0].checkpoint_id in drawn_checkpoints
    assert sum(len(n.members) for n in view.nodes) == len(tree)


def test_huge_tree_is_capped_near_the_limit_and_keeps_the_head_branch():
    trunk = _chain(300)
    records = list(trunk)
    for i in range(0, 300, 2):  # 150 one-checkpoint side branches: many forks
        records.append(_record(f"s{i:06d}", trunk[i].checkpoint_id))
    tree = build_tree("t", records)

    view = tree_view(tree)

    assert len(view.nodes) <= MAX_DRAWN
    assert view.hidden > 0
    drawn = {m for n in view.nodes if n.kind != "more" for m in n.members}
    # The head's branch is longer than the cap: its newest part is what stays drawn.
    assert set(tree.current_branch[-150:]) <= drawn
    assert view.node_for(tree.head).is_head
    assert sum(len(n.members) for n in view.nodes) == len(tree)


def test_selected_checkpoint_is_drawn_alone_even_inside_a_run():
    tree = build_tree("t", _chain(50))
    middle = list(tree.nodes)[25]

    view = tree_view(tree, selected=middle)

    node = view.node_for(middle)
    assert node.kind == "checkpoint" and node.is_selected


def test_dot_highlights_head_and_selection_by_colour_and_pen_not_shape(sample_db):
    path, _ = sample_db
    tree = load_tree(open_storage(path), "forked")
    first = next(iter(tree.nodes))

    source = open_storage(path)
    plain = view_dot(tree_view(tree, storage=source)).source
    selected = view_dot(tree_view(tree, selected=first, storage=source)).source

    def shapes(src: str) -> dict[str, str]:
        return dict(re.findall(r'"(cp_[\w-]+)" \[[^\]]*?shape=(\w+)', src, re.DOTALL))

    assert shapes(plain) == shapes(selected)
    assert set(shapes(plain).values()) == {"box"}
    assert "HEAD" in plain and "penwidth=3" in plain
    assert "#ffd166" in selected and "#ffd166" not in plain
    assert "→ write" in plain  # labels say what runs next, decoded for the drawn nodes


def test_run_ids_carry_their_shape_prefix():
    assert run_id("a", "b") == "run_a_b"
