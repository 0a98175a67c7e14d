"""The Compare view: two branches of a thread side by side, step by step, on History and Inspect.

Everything shown comes from :func:`playground.timetravel.compare.compare_branches`; this only
draws it. Every string from the database reaches the page escaped (a table cell is text, the
rest goes through :func:`~playground.ui.markup.md_escape`), and the first difference is said in
words with an icon, never by colour alone.
"""

from __future__ import annotations

import streamlit as st

from playground.timetravel.compare import (
    BranchComparison,
    BranchStep,
    CompareRefused,
    compare_branches,
    newest_branches,
)
from playground.timetravel.limits import clip
from playground.timetravel.messages import describe
from playground.timetravel.records import checkpoint_name
from playground.timetravel.status import Status
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree
from playground.timetravel.tree_layout import Ending
from playground.ui.components.history_tree import history_tree
from playground.ui.components.tables import arrow_rows
from playground.ui.components.text_block import text_block
from playground.ui.components.timeline_chart import branches_side_by_side
from playground.ui.markup import md_escape

EXPLORE, COMPARE = "Explore", "Compare"


def open_compare(view_key: str, compare_key: str, left: str, right: str) -> None:
    """Show Compare with these two branch ends on the page's next run (after a re-run).

    Widget values cannot change once the widgets are drawn in a run, so this is kept and
    applied by :func:`view_switch` before it draws them.
    """
    st.session_state[f"{view_key}-open"] = (compare_key, left, right)


def view_switch(key: str) -> str:
    """The page's two views of a thread: **Explore** (the tree, one checkpoint) or **Compare**
    (two branches side by side); Explore until one is picked."""
    opened = st.session_state.pop(f"{key}-open", None)
    if opened is not None:
        compare_key, left, right = opened
        st.session_state[key] = COMPARE
        st.session_state[f"{compare_key}-left"] = left
        st.session_state[f"{compare_key}-right"] = right
    st.session_state.setdefault(key, EXPLORE)
    picked = st.segmented_control("View", [EXPLORE, COMPARE], key=key,
                                  label_visibility="collapsed")
    return picked or EXPLORE


def _choice_label(tree: CheckpointTree, checkpoint_id: str) -> str:
    record, detail = tree.nodes[checkpoint_id], tree.details.get(checkpoint_id)
    named = checkpoint_name(record.source, detail.writers if detail else ())
    marks = []
    if checkpoint_id == tree.head:
        marks.append("head")
    if checkpoint_id in tree.leaves:
        marks.append("tip")
    if checkpoint_id in tree.paused | tree.failed | tree.stopped:
        marks.append(tree.tip_status(checkpoint_id).kind)  # failed is never paused
    suffix = f" ({', '.join(marks)})" if marks else ""
    return f"#{tree.ordinal(checkpoint_id)} · {clip(named, 60)}{suffix}"


def _side(step: BranchStep | None) -> tuple[str, str]:
    if step is None:
        return "-", ""
    writes = "; ".join(f"{clip(channel, 60)} = {describe(value, 80)}"
                       for channel, value in step.writes)
    return clip(step.label, 80), writes


def _rows(comparison: BranchComparison) -> list[dict]:
    rows = []
    for index, pair in enumerate(comparison.pairs):
        if index == comparison.first_difference:
            mark = "first difference"
        else:
            mark = "same" if pair.same else "differs"
        left_node, left_writes = _side(pair.left)
        right_node, right_writes = _side(pair.right)
        rows.append({"#": index + 1, "": mark, "paths": pair.note or "",
                     "left node": left_node, "left wrote": left_writes,
                     "right node": right_node, "right wrote": right_writes})
    return rows


def compare_view(storage: Storage, tree: CheckpointTree, key: str,
                 ending: Ending | None = None) -> BranchComparison | None:
    """Two pickers (the heads of the two newest branches by default), then the comparison.

    Args:
        storage: the database the tree was read from (open for this page run).
        tree: the thread's tree.
        key: a prefix for the widgets' keys (History and Inspect each have their own).
        ending: the app's words for how a branch's last step ended (History's own app).

    Returns:
        The comparison drawn, or None when there was nothing to compare.
    """
    ids = list(tree.nodes)
    try:
        default_left, default_right = newest_branches(tree)
    except CompareRefused as exc:
        st.info(md_escape(exc), icon=":material/call_split:")
        default_left = default_right = tree.head
    for name, default in (("left", default_left), ("right", default_right)):
        if st.session_state.get(f"{key}-{name}") not in tree.nodes:
            st.session_state[f"{key}-{name}"] = default  # a new thread: its own defaults
    left_col, right_col = st.columns(2)
    left = left_col.selectbox("Left branch ends at", ids, key=f"{key}-left",
                              format_func=lambda cid: _choice_label(tree, cid))
    right = right_col.selectbox("Right branch ends at", ids, key=f"{key}-right",
                                format_func=lambda cid: _choice_label(tree, cid))
    if left == right:
        st.caption("Pick two different checkpoints: each ends one branch.")
        return None
    comparison = compare_branches(storage, tree, left, right)
    ancestor = (f"#{tree.ordinal(comparison.ancestor)}" if comparison.ancestor
                else "none (the branches share no checkpoint)")
    st.markdown(f"**Common ancestor:** {ancestor} · left ends at #{tree.ordinal(left)}"
                f"{_standing(comparison.left_status)} · right ends at #{tree.ordinal(right)}"
                f"{_standing(comparison.right_status)}")
    # The two branches in the thread's picture: each line its colour, the ancestor marked.
    history_tree(storage, tree, None, f"{key}-tree",
                 compare=(left, right, comparison.ancestor), ending=ending)
    line = comparison.difference_line()
    if comparison.identical:
        st.success(md_escape(line.capitalize()), icon=":material/check_circle:")
    else:
        st.warning(md_escape(line[0].upper() + line[1:]), icon=":material/difference:")
    branches_side_by_side(storage, tree, left, right)
    if comparison.pairs:
        rows = _rows(comparison)
        picked = st.dataframe(
            arrow_rows(rows), hide_index=True, width="stretch", key=f"{key}-steps",
            on_select="rerun", selection_mode="single-row", column_config={
                "#": st.column_config.NumberColumn(width=40),
                "": st.column_config.TextColumn(width=110),
                "paths": st.column_config.TextColumn(width=140),
                "left node": st.column_config.TextColumn(width=100),
                "right node": st.column_config.TextColumn(width=100),
                "left wrote": st.column_config.TextColumn(width="medium"),
                "right wrote": st.column_config.TextColumn(width="medium")})
        # A cell holds what fits; the picked step's writes are shown whole below.
        chosen = [i for i in picked.selection.rows if i < len(rows)]
        if chosen:
            step = rows[chosen[0]]
            st.markdown(f"**Step {step['#']}**: what each side wrote")
            for side in ("left", "right"):
                st.caption(f"{side}: {md_escape(step[f'{side} node'], 200)}")
                text_block(step[f"{side} wrote"] or "(nothing)")
        else:
            st.caption("Click a step to read what each side wrote, whole.")
    else:
        st.caption("No steps after the common ancestor: one branch ends where the other "
                   "passes.")
    st.markdown("**Final state, left → right**")
    lines = comparison.final.lines()
    text_block("\n".join(lines) if lines else "(the same)")
    return comparison


def _standing(status: Status) -> str:
    return f" ({md_escape(status.short, 200)})"
