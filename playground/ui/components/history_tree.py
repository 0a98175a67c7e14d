"""The history tree: a thread's every checkpoint as a git graph you click.

One row per checkpoint, newest at the top as in ``git log --graph``; one lane per branch, each
branch tip labelled in words (:mod:`playground.timetravel.tree_layout`). Clicking a checkpoint
selects it; the Up and Down keys move the selection along its branch; a box takes a
checkpoint's ``#N`` or id to jump to.

The drawing is one of the playground's custom components (:mod:`.drawings`: d3, in the page,
no iframe). Python lays the graph out and sends it as plain data; the browser draws only the
rows in view, so a long thread is drawn whole and scrolls, with a strip at its left that shows
the whole thread's shape. docs/architecture.md says why this and not a chart library.
Everything drawn comes from the database and reaches the page as text nodes, never as markup.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from playground.timetravel.limits import clip
from playground.timetravel.records import CHECKPOINT_NAMES
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree
from playground.timetravel.tree_layout import (
    BROKEN,
    EDIT,
    FAILED,
    INPUT,
    KINDS,
    PAUSED,
    REPLAY,
    STEP,
    Ending,
    TreeLayout,
    along_branch,
    kept_layout,
)
from playground.ui import resources
from playground.ui.components.checkpoints import select, select_drawn_pick, walked_tip
from playground.ui.components.drawings import HISTORY_TREE
from playground.ui.markup import md_escape

VISIBLE = 22  # rows in view at once; a longer thread scrolls
NODE_CHARS = 40
_KIND_COLOURS = dict(zip(KINDS, ("#4c78a8", "#9ecae9", "#b279a2", "#54a24b", "#f58518",
                                  "#e45756", "#7f7f7f"), strict=True))
# Where many checkpoints share a pixel of the overview strip, the rarest kind is the one drawn
# (a lone failure among thousands of steps still shows).
_RAREST_FIRST = (FAILED, BROKEN, PAUSED, EDIT, REPLAY, INPUT, STEP)
SELECTED_BRANCH, LEFT_BRANCH, RIGHT_BRANCH, OTHER = (
    "selected branch", "left branch", "right branch", "other branches")
SELECTED, COMMON = "selected", "common ancestor"
KEY_HINT = "key-hint"  # ends the key of the element holding a keyboard hint (touch hides it)
# A row's fields, in the order tree_data sends them (the drawing's ``F`` names the same).
ROW_FIELDS = ("ordinal", "lane", "parent", "parent_lane", "kind", "line", "ring", "node", "tip",
              "id", "step", "source", "time", "bytes", "branch")


def tree_data(tree: CheckpointTree, layout: TreeLayout, selected: str | None,
              compare: tuple[str, str, str | None] | None = None) -> dict:
    """What the drawing is given: one row per checkpoint, oldest first, as short lists of
    :data:`ROW_FIELDS`, and the legend's names and colours.

    ``kind``, ``line``, ``ring`` and ``branch`` are indexes into ``kinds``, ``lines`` (0 is
    the other branches), ``rings`` (or None) and ``branches``.
    """
    lines, rings = _highlights(tree, layout, selected, compare)
    line_names = [OTHER, LEFT_BRANCH, RIGHT_BRANCH] if compare else [OTHER, SELECTED_BRANCH]
    line_colours = ["#b0b0b0", "#1f77b4", "#d62728"] if compare else ["#b0b0b0", "#333333"]
    ring_names = [COMMON] if compare else [SELECTED]
    present = [kind for kind in KINDS if kind in layout.kinds]
    kind_index = {kind: n for n, kind in enumerate(present)}
    line_index = {name: n for n, name in enumerate(line_names)}
    ring_index = {name: n for n, name in enumerate(ring_names)}
    nodes = tree.nodes
    rows = []
    for row in layout.rows:
        record = nodes[row.checkpoint_id]
        ring = rings.get(row.checkpoint_id)
        rows.append([
            row.ordinal, row.lane, row.parent_ordinal, row.parent_lane, kind_index[row.kind],
            line_index[lines.get(row.checkpoint_id, OTHER)],
            None if ring is None else ring_index[ring], clip(row.node, NODE_CHARS),
            row.tip or None, row.checkpoint_id, record.step, record.source or "?",
            (record.created_at or "")[:23].replace("T", " ") or "unknown",
            record.stored_bytes, row.branch,
        ])
    used_lines = {lines.get(cid, OTHER) for cid in nodes} if lines else {OTHER}
    return {
        "drawing": "history_tree",
        "rows": rows,
        "branches": [branch.label for branch in layout.branches],
        "lanes": layout.lanes,
        "kinds": [[kind, _KIND_COLOURS[kind], _RAREST_FIRST.index(kind)] for kind in present],
        "lines": [[name, colour, name in used_lines]
                  for name, colour in zip(line_names, line_colours, strict=True)],
        "rings": [[name, "diamond" if compare else "circle",
                   "#7a4cc2" if compare else "#111111", name in rings.values()]
                  for name in ring_names],
        "selected": selected,
        "visible": VISIBLE,
        "pickable": compare is None,
    }


def _highlights(tree: CheckpointTree, layout: TreeLayout, selected: str | None,
                compare: tuple[str, str, str | None] | None
                ) -> tuple[dict[str, str], dict[str, str]]:
    """Which lines are drawn dark (the selected branch, or Compare's two) and which
    checkpoints carry a ring (the selection, the common ancestor)."""
    if compare is not None:
        left, right, common = compare
        lines = dict.fromkeys(tree.path_to(right), RIGHT_BRANCH)
        lines.update(dict.fromkeys(tree.path_to(left), LEFT_BRANCH))
        if common is not None:
            for cid in tree.path_to(common):
                lines.pop(cid, None)  # shared by both: neither side's own
        return lines, ({common: COMMON} if common else {})
    if selected is None:
        return {}, {}
    branch = layout.branch_of(layout.row(selected))
    lines = dict.fromkeys(tree.path_to(branch.tip), SELECTED_BRANCH)
    return lines, {selected: SELECTED}


def history_tree(storage: Storage, tree: CheckpointTree, selected: str | None, key: str,
                 key_prefix: str = "",
                 compare: tuple[str, str, str | None] | None = None,
                 ending: Ending | None = None) -> None:
    """Draw the thread's history tree; a clicked checkpoint is selected (the page reruns).

    Args:
        storage: where the tree was read (for who wrote each checkpoint).
        tree: the thread's tree.
        selected: the checkpoint the page shows, ringed; None draws no selection.
        key: the drawing's widget key.
        key_prefix: the page's selection prefix (see :func:`select`).
        compare: (left tip, right tip, common ancestor) to highlight two branches instead;
            the tree is then read-only.
        ending: the app's words for how a step ended (``App.step_ending``), said at finished
            tips; only for the app's own threads (another graph's values mean other things).
    """
    layout = kept_layout(resources.tree_cache(), storage, tree, ending)
    data = tree_data(tree, layout, selected, compare)
    # the list opens on the selection, or on Compare's right branch
    data["at"] = tree.ordinal(selected or (compare[1] if compare else tree.head))
    pickable = compare is None
    drawing = f"{key}-chart"
    callbacks = ({"on_pick_change": partial(select_drawn_pick, tree, drawing, key_prefix)}
                 if pickable else {})
    HISTORY_TREE(data=data, key=drawing, **callbacks)
    facts = [f"{len(tree):,} checkpoint{'s' if len(tree) != 1 else ''}",
             f"{len(layout.branches):,} branch{'es' if len(layout.branches) != 1 else ''}"]
    if pickable:
        facts.append("click a checkpoint to open it; Newer and Older move along its branch")
    if len(tree) > VISIBLE:
        facts.append("the strip at the left is the whole thread: press or drag in it to scroll "
                     "there")
    st.caption(" · ".join(facts), help=CHECKPOINT_NAMES)  # what a row's name means
    if pickable:
        # Its own element: a touch screen has no keys to press, and the stylesheet
        # (history_tree.css, KEY_HINT) hides it there.
        with st.container(key=f"{key}-{KEY_HINT}"):
            st.caption(":material/keyboard: The Up and Down keys do the same as Newer and Older.")


def _go_to(tree: CheckpointTree, key: str, key_prefix: str) -> None:
    """The jump box's callback: a ``#N``, ``N`` or a checkpoint id (or its start)."""
    typed = (st.session_state.get(key) or "").strip()
    st.session_state[key] = ""
    if not typed:
        return
    number = typed.lstrip("#")
    found = None
    if number.isdigit():
        index = int(number)
        if 1 <= index <= len(tree):
            found = list(tree.nodes)[index - 1]
    elif typed in tree.nodes:
        found = typed
    elif len(typed) >= 4:
        found = next((cid for cid in tree.nodes if cid.startswith(typed)), None)
    if found is None:
        st.session_state[f"{key}-problem"] = (
            f"No checkpoint {clip(typed, 80)!r} in this thread: give a number from #1 to "
            f"#{len(tree):,}, or a checkpoint id.")
    else:
        st.session_state.pop(f"{key}-problem", None)
        select(found, key_prefix)


def tree_navigation(storage: Storage, tree: CheckpointTree, selected: str,
                    key_prefix: str = "", ending: Ending | None = None) -> None:
    """Older/Newer along the selected checkpoint's branch (Down/Up keys) and a jump box.

    ``ending`` is the one :func:`history_tree` is given (the same layout, read once).
    """
    layout = kept_layout(resources.tree_cache(), storage, tree, ending)
    # A walk keeps the branch it came down: Newer goes back up towards the same tip, and the
    # actions below act on that branch, even at a fork point.
    walked = walked_tip(tree, selected, key_prefix)
    older = along_branch(layout, tree, selected, newer=False)
    newer = along_branch(layout, tree, selected, newer=True, toward=walked)
    down_col, up_col, jump_col = st.columns([1, 1, 2], vertical_alignment="bottom")
    down_col.button("Older", icon=":material/arrow_downward:", shortcut="Down",
                    disabled=older is None, key=key_prefix + "tree-older", width="stretch",
                    on_click=select, args=(older, key_prefix, walked),
                    help="The parent of this checkpoint (the Down key)")
    up_col.button("Newer", icon=":material/arrow_upward:", shortcut="Up",
                  disabled=newer is None, key=key_prefix + "tree-newer", width="stretch",
                  on_click=select, args=(newer, key_prefix, walked),
                  help="The next checkpoint along this branch (the Up key)")
    jump = key_prefix + "tree-jump"
    jump_col.text_input("Go to checkpoint", key=jump, placeholder="#12 or a checkpoint id",
                        on_change=_go_to, args=(tree, jump, key_prefix))
    problem = st.session_state.get(f"{jump}-problem")
    if problem:
        st.caption(":material/error: " + md_escape(problem, 300))
