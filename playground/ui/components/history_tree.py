"""The history tree: a thread's every checkpoint as a git graph you click (Vega-Lite).

One row per checkpoint, newest at the top as in ``git log --graph``; one lane per branch, each
branch tip labelled in words (:mod:`playground.timetravel.tree_layout`). Clicking a checkpoint
selects it (Streamlit returns the chart's point selection); the Up and Down keys move the
selection along its branch; a box takes a checkpoint's ``#N`` or id to jump to.

A long thread is drawn whole. The chart shows a window of rows; at its left, a strip of the
whole thread holds the window (its ticks drawn dark): drag them to scroll, or drag across the
strip for other rows, its whole length for the whole thread's shape. The strip and the rows are
one Vega-Lite view, so scrolling never reruns the page; the window opens around the selection.
Everything drawn comes from the database and reaches the page as data (Vega text), never as
markup.
"""

from __future__ import annotations

import streamlit as st

from playground.timetravel.limits import clip
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree
from playground.timetravel.tree_layout import KINDS, TreeLayout, along_branch, kept_layout
from playground.ui import resources
from playground.ui.components.checkpoints import select, select_picked
from playground.ui.components.tables import arrow_rows
from playground.ui.markup import md_escape

VISIBLE = 22  # rows in the window at once
READABLE = 80  # rows at most with their labels drawn
SVG_ROWS = 200
ROW_PX = 24  # a row's height: room for 12 px text and a ring
LANE_PX = 18
CHAR_PX = 7  # an upper estimate of a 12 px character's width, to place a tip's label
STRIP_PX = 40  # the overview strip's width, at the view's left
LEFT_PX = 12  # from the strip to the first lane
NODE_CHARS = 40
_KIND_COLOURS = dict(zip(KINDS, ("#4c78a8", "#9ecae9", "#b279a2", "#54a24b", "#f58518",
                                  "#e45756", "#7f7f7f"), strict=True))
SELECTED_BRANCH, LEFT_BRANCH, RIGHT_BRANCH, OTHER = (
    "selected branch", "left branch", "right branch", "other branches")
SELECTED, COMMON = "selected", "common ancestor"
_COMMON_COLOUR = "#7a4cc2"
DESCRIPTION = "history tree"  # names the chart in its spec (tests and benchmarks find it so)


def _rows(tree: CheckpointTree, layout: TreeLayout, lines: dict[str, str],
          rings: dict[str, str]) -> list[dict]:
    """The chart's rows, one per checkpoint, every x in pixels (the chart has no x scale):
    lanes start right of the overview strip, where the thread has one."""
    left = (STRIP_PX if len(tree) > VISIBLE else 0) + LEFT_PX
    text_x = left + layout.lanes * LANE_PX - 6
    rows = []
    nodes = tree.nodes
    for row in layout.rows:
        record = nodes[row.checkpoint_id]
        text = f"#{row.ordinal} {clip(row.node, NODE_CHARS)}"
        parent = row.parent_ordinal
        rows.append({
            "id": row.checkpoint_id, "row": row.ordinal, "ox": 6 + min(row.lane, 5) * 5,
            "x": left + row.lane * LANE_PX,
            "px": None if parent is None else left + row.parent_lane * LANE_PX,
            "prow": parent,
            # a line leaves its parent's lane and turns into its own just above the parent
            "bend": None if parent is None else (
                parent if row.parent_lane == row.lane else min(parent + 0.5, row.ordinal)),
            "text": text, "textx": text_x, "tip": row.tip or None,
            "tipx": text_x + len(text) * CHAR_PX + 10,
            "kind": row.kind, "line": lines.get(row.checkpoint_id, OTHER),
            "ring": rings.get(row.checkpoint_id),
            "node": row.node, "step": record.step, "source": record.source or "?",
            "time": (record.created_at or "")[:23].replace("T", " ") or "unknown",
            "bytes": record.stored_bytes, "branch": layout.branches[row.branch].label,
        })
    return rows


def _window(key: str, ordinal: int, total: int) -> tuple[float, float]:
    """The rows drawn first: the last window while the selection is well inside it, else a
    window around the selection (so a click does not move what the person looks at)."""
    if total <= VISIBLE:
        return 0.5, total + 0.5
    last = st.session_state.get(f"{key}-window")
    if last and last[0] + 1 <= ordinal <= last[1] - 1 and last[1] - last[0] == VISIBLE:
        return last
    low = min(max(ordinal - VISIBLE / 2, 0.5), total + 0.5 - VISIBLE)
    found = (low, low + VISIBLE)
    st.session_state[f"{key}-window"] = found
    return found


def _spec(layout: TreeLayout, window: tuple[float, float], total: int, pickable: bool,
          compare: bool) -> dict:
    """One layered Vega-Lite view as wide as its column (``width: container``, so the labels
    end in "…" at the page's edge, never cut by it): the overview strip at its left, on a y
    scale of its own over the whole thread, holds the window (an interval selection that only
    a drag inside the strip moves); the rows drawn right of it follow the window."""
    shown = min(total, VISIBLE)
    height = shown * ROW_PX
    whole = total > VISIBLE
    y_scale = ({"domain": {"param": "window", "encoding": "y"}} if whole
               else {"domain": [0.5, total + 0.5]})
    y = {"field": "row", "type": "quantitative", "axis": None, "scale": y_scale}
    x = {"field": "x", "type": "quantitative", "axis": None, "scale": None}
    # Zoomed out past READABLE rows (a long window: the whole thread), labels would be drawn
    # over each other: they are hidden, and the points shrink to show the shape.
    rows_shown = (f"(window && window.row ? window.row[1] - window.row[0] : {total})"
                  if whole else str(total))
    readable = f"{rows_shown} <= {READABLE}"
    line_domain = [LEFT_BRANCH, RIGHT_BRANCH, OTHER] if compare else [SELECTED_BRANCH, OTHER]
    line_range = ["#1f77b4", "#d62728", "#b0b0b0"] if compare else ["#333333", "#b0b0b0"]
    stroke = {"field": "line", "type": "nominal", "title": "lines",
              "scale": {"domain": line_domain, "range": line_range},
              "legend": _LEGEND}
    tooltip = [{"field": "text", "title": "checkpoint"}, {"field": "id", "title": "id"},
               {"field": "node"}, {"field": "step"}, {"field": "source"},
               {"field": "time"}, {"field": "bytes", "title": "stored bytes", "format": ","},
               {"field": "branch", "title": "its branch"}]
    # One colour scale for the rows and the overview (the legend is drawn once), over the
    # kinds this thread has: a legend entry for nothing on the picture only adds to read.
    present = [kind for kind in KINDS if kind in layout.kinds]
    kind_colour = {"field": "kind", "type": "nominal", "title": "checkpoints",
                   "scale": {"domain": present,
                             "range": [_KIND_COLOURS[kind] for kind in present]},
                   "legend": _LEGEND}
    # Only the rows in the window are marks (a line, where it crosses the window): Vega
    # filters them again as the window moves, and a long thread's picture costs what its
    # window holds, not what the thread does.
    if whole:
        low, high = "window.row[0] - 1", "window.row[1] + 1"
        near = f"(!window.row || (datum.row >= {low} && datum.row <= {high}))"
        crossing = f"(!window.row || (datum.row >= {low} && datum.prow <= {high}))"
    else:
        near = crossing = "true"
    points = {
        "transform": [{"filter": near}],
        "mark": {"type": "circle", "size": {"expr": f"{readable} ? 110 : 16"},
                 "stroke": "white", "strokeWidth": {"expr": f"{readable} ? 1 : 0"},
                 "opacity": 1, "clip": True,
                 "cursor": "pointer" if pickable else "default"},
        "encoding": {
            "x": x, "y": y, "tooltip": tooltip,
            "color": kind_colour,
            # what a screen reader says of a point (and what a browser test finds it by)
            "description": {"field": "text"},
        },
    }
    if pickable:
        # a click in the overview strip is the end of a drag there, not a pick
        points["params"] = [{"name": "pick", "select": {
            "type": "point", "fields": ["id"], "on": f"click[x() > {STRIP_PX if whole else 0}]",
            "nearest": True, "clear": False, "toggle": False}}]
    ring_domain = [COMMON] if compare else [SELECTED]
    layers = [
        {"transform": [{"filter": f"datum.prow != null && {crossing}"}],
         "mark": {"type": "rule", "strokeWidth": 2, "clip": True},
         "encoding": {"x": {**x, "field": "px"}, "y": {**y, "field": "prow"},
                      "x2": {"field": "x"}, "y2": {"field": "bend"}, "stroke": stroke}},
        {"transform": [{"filter": f"datum.prow != null && {crossing}"}],
         "mark": {"type": "rule", "strokeWidth": 2, "clip": True},
         "encoding": {"x": x, "y": {**y, "field": "bend"}, "y2": {"field": "row"},
                      "stroke": stroke}},
        points,
        {"transform": [{"filter": f"datum.ring != null && {near}"}],
         "mark": {"type": "point", "size": 330, "filled": False, "strokeWidth": 2.5,
                  "clip": True},
         "encoding": {"x": x, "y": y, "shape": {
             "field": "ring", "type": "nominal", "title": "marks",
             "scale": {"domain": ring_domain,
                       "range": ["diamond"] if compare else ["circle"]},
             "legend": _LEGEND},
             "color": {"condition": {"test": f"datum.ring === '{COMMON}'",
                                     "value": _COMMON_COLOUR}, "value": "#111111"}}},
        # past the view's right edge a label ends in "…" (its tooltip has it all)
        {"transform": [{"filter": near}],
         "mark": {"type": "text", "align": "left", "baseline": "middle", "fontSize": 12,
                  "dx": 4, "clip": True, "color": "#31333f",
                  "opacity": {"expr": f"{readable} ? 1 : 0"},
                  "limit": {"expr": "max(width - datum.textx - 4, 0)"},
                  "cursor": "pointer" if pickable else "default"},
         "encoding": {"x": {**x, "field": "textx"}, "y": y, "text": {"field": "text"},
                      "tooltip": tooltip}},
        {"transform": [{"filter": f"datum.tip != null && {near}"}],
         "mark": {"type": "text", "align": "left", "baseline": "middle", "fontSize": 12,
                  "fontWeight": "bold", "clip": True, "color": "#8a3b00",
                  "opacity": {"expr": f"{readable} ? 1 : 0"},
                  "limit": {"expr": "max(width - datum.tipx, 0)"}},
         "encoding": {"x": {**x, "field": "tipx"}, "y": y, "text": {"field": "tip"},
                      "tooltip": tooltip}},
    ]
    # fit-x: as wide as the column, and as tall as its rows (legends below, not in the rows)
    spec = {"width": "container", "height": height, "config": _CONFIG,
            "autosize": {"type": "fit-x", "contains": "padding"},
            "description": DESCRIPTION, "usermeta": _renderer(total)}
    if not whole:
        return {**spec, "layer": layers}
    # The overview: every checkpoint a tick in the strip, on a y scale of the whole thread.
    # Its window is an interval selection moved only by a drag inside the strip (anywhere
    # else a press is a click on a checkpoint), and drawn as the ticks inside it, darker.
    inside = f"x() <= {STRIP_PX}"
    whole_y = {"field": "row", "type": "quantitative", "axis": None,
               "scale": {"domain": [0.5, total + 0.5]}}
    ticks = {"type": "tick", "orient": "horizontal", "thickness": 1, "size": 10,
             "aria": False}  # a scroll control, not content: screen readers skip it
    strip_x = {"field": "ox", "type": "quantitative", "axis": None, "scale": None}
    overview = [
        {"data": {"values": [{}]},  # the strip's ground, so it reads as a control
         "mark": {"type": "rect", "color": "#f0f2f6", "cornerRadius": 3, "aria": False},
         "encoding": {"x": {"value": 2}, "x2": {"value": STRIP_PX - 4}, "y": {"value": 0},
                      "y2": {"value": height}}},
        {"params": [{"name": "window", "value": {"y": list(window)}, "select": {
            "type": "interval", "encodings": ["y"], "clear": False,
            "on": f"[pointerdown[{inside}], window:pointerup] > window:pointermove!",
            "translate": f"[pointerdown[{inside}], window:pointerup] > window:pointermove!",
            "zoom": f"wheel![{inside}]",
            "mark": {"fillOpacity": 0, "strokeOpacity": 0, "cursor": "ns-resize"}}}],
         "mark": ticks,
         "encoding": {"x": strip_x, "y": whole_y, "color": kind_colour}},
        {"transform": [{"filter": {"param": "window", "empty": False}}],
         "mark": {**ticks, "color": "#222222", "thickness": 2},
         "encoding": {"x": strip_x, "y": whole_y}},
    ]
    return {**spec, "layer": overview + layers,
            "resolve": {"scale": {"y": "independent"}}}


def _renderer(rows: int) -> dict:
    """SVG for a thread of up to SVG_ROWS checkpoints (each point an element a test or a
    screen reader finds by its ``#N``), a canvas past that (it paints only what the window
    shows, where SVG would keep every mark of the thread in the page)."""
    return {"embedOptions": {"renderer": "svg" if rows <= SVG_ROWS else "canvas"}}


_LEGEND = {"orient": "bottom", "direction": "vertical"}
_CONFIG = {"view": {"stroke": None}, "legend": {"labelFontSize": 12, "titleFontSize": 12,
                                                 "labelLimit": 220, "symbolSize": 90}}


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
                 compare: tuple[str, str, str | None] | None = None) -> None:
    """Draw the thread's history tree; a clicked checkpoint is selected (page reruns).

    Args:
        storage: where the tree was read (for who wrote each checkpoint).
        tree: the thread's tree.
        selected: the checkpoint the page shows, ringed; None draws no selection.
        key: the chart's widget key.
        key_prefix: the page's selection prefix (see :func:`select`).
        compare: (left tip, right tip, common ancestor) to highlight two branches instead;
            the chart is then read-only.
    """
    layout = kept_layout(resources.tree_cache(), storage, tree)
    lines, rings = _highlights(tree, layout, selected, compare)
    rows = _rows(tree, layout, lines, rings)
    # the window opens on the selection, or on Compare's right branch
    at = tree.ordinal(selected or (compare[1] if compare else tree.head))
    window = _window(key, at, len(tree))
    pickable = compare is None
    spec = _spec(layout, window, len(tree), pickable, compare is not None)
    event = st.vega_lite_chart(arrow_rows(rows), spec, width="stretch", key=f"{key}-chart",
                               on_select="rerun" if pickable else "ignore",
                               selection_mode=["pick"] if pickable else None)
    facts = [f"{len(tree):,} checkpoint{'s' if len(tree) != 1 else ''}",
             f"{len(layout.branches):,} branch{'es' if len(layout.branches) != 1 else ''}"]
    if pickable:
        facts.append("click a checkpoint to open it; Newer and Older (the Up and Down keys) "
                     "move along its branch")
    if len(tree) > VISIBLE:
        facts.append("the strip at the left is the whole thread, its dark ticks the rows shown: "
                     "drag them to scroll, or drag across the strip to show other rows (its "
                     "whole length for the whole thread's shape)")
    st.caption(" · ".join(facts))
    if not pickable:
        return
    select_picked(event, "id", tree, selected, key, key_prefix)


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
                    key_prefix: str = "") -> None:
    """Older/Newer along the selected checkpoint's branch (Down/Up keys) and a jump box."""
    layout = kept_layout(resources.tree_cache(), storage, tree)
    older = along_branch(layout, tree, selected, newer=False)
    newer = along_branch(layout, tree, selected, newer=True)
    down_col, up_col, jump_col = st.columns([1, 1, 2], vertical_alignment="bottom")
    down_col.button("Older", icon=":material/arrow_downward:", shortcut="Down",
                    disabled=older is None, key=key_prefix + "tree-older", width="stretch",
                    on_click=select, args=(older, key_prefix),
                    help="The parent of this checkpoint (the Down key)")
    up_col.button("Newer", icon=":material/arrow_upward:", shortcut="Up",
                  disabled=newer is None, key=key_prefix + "tree-newer", width="stretch",
                  on_click=select, args=(newer, key_prefix),
                  help="The next checkpoint along this branch (the Up key)")
    jump = key_prefix + "tree-jump"
    jump_col.text_input("Go to checkpoint", key=jump, placeholder="#12 or a checkpoint id",
                        on_change=_go_to, args=(tree, jump, key_prefix))
    problem = st.session_state.get(f"{jump}-problem")
    if problem:
        st.caption(":material/error: " + md_escape(problem, 300))
