"""Where a branch's time and tokens went: a Gantt chart of its steps (Vega-Lite), a table per
node, and the two branches of Compare side by side.

One lane per node. Running time is blue, and a step that may include a pause (it began a new
run whose start is not recorded) is a paler blue with a dashed outline; a wait (for an answer,
paused before a step, between turns) is grey; the idle time before an edit or a fork is pale and
dashed; an edit or a fork is an instant, drawn as a tick at its moment; the slowest running steps
are outlined red; every kind is in the legend. A range brushed across the chart is shown alone
(**Whole branch** gives the rest back); "Fold long waits" folds each wait or idle stretch longer
than the running time to a short gap, marked with its real length, by shifting the later bars
(here, not in the browser). Selecting a bar selects its checkpoint in the tree. Past
:data:`MAX_MARKS` steps the chart draws buckets of steps per lane instead of one mark each (the
table still counts every step). Everything shown comes from the database: Vega-Lite draws it as
data, never as markup.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from pathlib import Path

import streamlit as st

from playground.timetravel.limits import clip
from playground.timetravel.recording import branch_tip
from playground.timetravel.storage import Storage
from playground.timetravel.timeline import (
    EDIT,
    IDLE,
    PRICES_ENV,
    RUN,
    WAIT,
    Step,
    Timeline,
    kept_timeline,
    read_prices,
)
from playground.timetravel.tree import CheckpointTree
from playground.ui import resources
from playground.ui.components.checkpoints import select_picked
from playground.ui.components.tables import arrow_rows
from playground.ui.markup import md_escape

MAX_MARKS = 1_000  # past this many steps, the chart draws buckets
SLOWEST = 3  # running steps outlined as the slowest
FOLD_GAP = 0.15  # a folded wait's width, as a share of the branch's running time
FONT_PX = 12  # the smallest text on the chart
MAYBE = "running, may include a pause"
ZOOM = "zoom"  # the chart's brush: a range to show alone
WHAT = {RUN: "running", WAIT: "waiting", IDLE: "idle", EDIT: "edit or fork (an instant)"}
_DOMAIN = [WHAT[RUN], MAYBE, WHAT[WAIT], WHAT[IDLE], WHAT[EDIT]]
_RANGE = ["#4c78a8", "#9ecae9", "#a0a0a0", "#e6e6e6", "#f58518"]


def _bars(found: Timeline) -> tuple[list[dict], int]:
    """Chart rows (steps, or buckets past MAX_MARKS) and how many steps have no known time."""
    timed = [step for step in found.steps if step.seconds is not None]
    unknown = len({s.checkpoint_id for s in found.steps if s.seconds is None})
    slowest = {id(step) for step in sorted((s for s in timed if s.kind == RUN),
                                           key=lambda s: s.seconds, reverse=True)[:SLOWEST]}
    if len(timed) <= MAX_MARKS:
        return [_row(step, id(step) in slowest) for step in timed], unknown
    return _buckets(timed), unknown


def _row(step: Step, slow: bool) -> dict:
    return {"checkpoint": step.checkpoint_id, "lane": clip(step.node, 60),
            "what": MAYBE if step.maybe_paused else WHAT.get(step.kind, step.kind),
            "kind": step.kind, "maybe": step.maybe_paused,
            "from": round(step.start, 6), "to": round(step.end, 6),
            "seconds": round(step.seconds, 6), "at": f"#{step.ordinal}", "steps": 1,
            "tokens in": step.usage.input, "tokens out": step.usage.output,
            "note": clip(step.note, 200), "slowest": slow}


def _buckets(timed: list[Step]) -> list[dict]:
    """Steps grouped per lane and span of time: at most MAX_MARKS marks in all."""
    end = max(step.end for step in timed) or 1.0
    lanes = {step.node for step in timed}
    bins = max(1, MAX_MARKS // max(len(lanes), 1))
    grouped: dict[tuple[str, str, bool, int], list[Step]] = {}
    for step in timed:
        where = min(bins - 1, math.floor(step.start / end * bins))
        grouped.setdefault((step.node, step.kind, step.maybe_paused, where), []).append(step)
    rows = []
    for steps in grouped.values():
        slowest = max(steps, key=lambda s: s.seconds)
        row = _row(slowest, False)
        maybe = sum(1 for s in steps if s.maybe_paused)
        row.update({"from": round(min(s.start for s in steps), 6),
                    "to": round(max(s.end for s in steps), 6),
                    "seconds": round(sum(s.seconds for s in steps), 6), "steps": len(steps),
                    "tokens in": sum(s.usage.input for s in steps),
                    "tokens out": sum(s.usage.output for s in steps),
                    "at": f"{len(steps)} steps from #{min(s.ordinal for s in steps)}",
                    "note": f"{maybe} may include a pause" if maybe else ""})
        rows.append(row)
    return rows


def _length(seconds: float) -> str:
    """A duration as a person says it: ``45 s``, ``2 min``, ``3 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def fold_long_waits(rows: list[dict], running: float) -> tuple[list[dict], list[dict]]:
    """The chart rows with every wait or idle stretch longer than ``running`` (the branch's
    running time) folded to a short fixed gap (:data:`FOLD_GAP` of the running time), the later
    bars shifted left by what was cut; and one label per fold, at its gap, saying how long it
    really was. Each row keeps its real ``seconds``; only where it is drawn moves."""
    gap = max(running, 0.001) * FOLD_GAP
    spans = sorted((row["from"], row["to"], row["what"]) for row in rows
                   if row["kind"] in (WAIT, IDLE) and row["to"] - row["from"] > max(running, gap))
    merged: list[list] = []
    for start, end, what in spans:  # overlapping long stretches fold as one
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end, what])
    if not merged:
        return rows, []

    def moved(at: float) -> float:
        cut = 0.0
        for start, end, _ in merged:
            if at >= end:
                cut += end - start - gap
            elif at > start:  # inside a fold: squeezed into its gap
                return start - cut + (at - start) / (end - start) * gap
            else:
                break
        return at - cut

    folded = [{**row, "from": round(moved(row["from"]), 6), "to": round(moved(row["to"]), 6)}
              for row in rows]
    labels = [{"at": round(moved(start) + gap / 2, 6),
               "label": f"⋯ {_length(end - start)} {'idle' if what == WHAT[IDLE] else 'wait'} "
                        "folded"} for start, end, what in merged]
    return folded, labels


def _axis_title(folded: bool) -> str:
    return ("seconds since the branch's first checkpoint" +
            (" (long waits folded)" if folded else ""))


def _spec(lanes: int, labels: Iterable[dict] = (), folded: bool = False,
          span: tuple[float, float] | None = None) -> dict:
    tooltip = [{"field": "at", "title": "checkpoint"}, {"field": "lane", "title": "node"},
               {"field": "what"}, {"field": "seconds", "format": ".3f"},
               {"field": "note"}, {"field": "tokens in"}, {"field": "tokens out"}]
    y = {"field": "lane", "type": "nominal", "title": None, "sort": None}
    x = {"field": "from", "type": "quantitative", "title": _axis_title(folded)}
    if span is not None:  # zoomed: the range brushed, and bars outside it clipped
        x["scale"] = {"domain": list(span), "nice": False, "zero": False}
    color = {"field": "what", "type": "nominal", "title": None,
             "scale": {"domain": _DOMAIN, "range": _RANGE}}
    dashed = "datum.kind === 'idle' || datum.maybe"
    bars = {
        "transform": [{"filter": f"datum.kind !== '{EDIT}'"}],
        # pick: a click on a bar selects its checkpoint; zoom: a drag across the chart
        # brushes a range, which the page then shows alone (both come back with on_select).
        "params": [{"name": "pick", "select": {"type": "point", "fields": ["checkpoint"]}},
                   {"name": ZOOM, "select": {"type": "interval", "encodings": ["x"],
                                             "zoom": False, "translate": False,
                                             "mark": {"fill": "#888", "fillOpacity": 0.2}}}],
        "mark": {"type": "bar", "height": 16, "cornerRadius": 2, "cursor": "pointer",
                 "clip": True},
        "encoding": {
            "y": y, "x": x, "x2": {"field": "to"}, "color": color,
            "stroke": {"condition": [{"test": "datum.slowest", "value": "#d62728"},
                                     {"test": dashed, "value": "#5f5f5f"}], "value": None},
            "strokeWidth": {"condition": [{"test": "datum.slowest", "value": 2},
                                          {"test": dashed, "value": 1}], "value": 0},
            "strokeDash": {"condition": {"test": dashed, "value": [4, 3]}, "value": [1, 0]},
            "opacity": {"condition": {"param": "pick", "value": 1, "empty": True},
                        "value": 0.35},
            "tooltip": tooltip,
        },
    }
    instants = {
        "transform": [{"filter": f"datum.kind === '{EDIT}'"}],
        "mark": {"type": "tick", "thickness": 3, "size": 22, "cursor": "pointer",
                 "clip": True},
        "encoding": {"y": y, "x": x, "color": color, "tooltip": tooltip,
                     "opacity": {"condition": {"param": "pick", "value": 1, "empty": True},
                                 "value": 0.35}},
    }
    layers = [bars, instants]
    labels = list(labels)
    if labels:  # a fold: a dashed rule across the lanes, and how long it really was
        data = {"values": labels}
        layers.append({"data": data, "mark": {"type": "rule", "strokeDash": [2, 2],
                                              "color": "#5f5f5f", "clip": True},
                       "encoding": {"x": {"field": "at", "type": "quantitative"}}})
        # Inside the plot: a zoomed chart clips what is drawn outside its range.
        layers.append({"data": data, "mark": {"type": "text", "fontSize": FONT_PX,
                                              "dx": 3, "align": "left", "baseline": "top",
                                              "color": "#333333", "clip": True},
                       "encoding": {"x": {"field": "at", "type": "quantitative"},
                                    "y": {"value": 1}, "text": {"field": "label"}}})
    return {
        "height": {"step": 26} if lanes else 60,
        "layer": layers,
        "config": {"axis": {"labelFontSize": FONT_PX, "titleFontSize": FONT_PX},
                   "legend": {"labelFontSize": FONT_PX, "titleFontSize": FONT_PX,
                              "orient": "bottom", "columns": 3, "symbolStrokeWidth": 1}},
    }


def _zoomed(key: str, tip: str, folded: bool) -> tuple[float, float] | None:
    """The range brushed on this chart, for this branch drawn this way; None for the whole
    branch. A **Whole branch** button gives the whole branch back."""
    span = st.session_state.get(f"{key}-span")
    if not span or span[0] != (tip, folded):
        return None
    st.button("Whole branch", icon=":material/zoom_out:", key=f"{key}-whole",
              on_click=st.session_state.pop, args=(f"{key}-span", None),
              help="Show the branch's whole time again")
    return span[1]


def _zoom_to(event: object, key: str, tip: str, folded: bool) -> None:
    """A range brushed on the chart: the page shows it alone from its next run."""
    selection = getattr(event, "selection", None) or {}
    brushed = selection.get(ZOOM) if isinstance(selection, dict) else None
    extent = brushed.get("from") if isinstance(brushed, dict) else None
    if not (isinstance(extent, list) and len(extent) == 2
            and all(isinstance(v, int | float) for v in extent)):
        return
    low, high = sorted(float(v) for v in extent)
    if high - low <= 0 or not math.isfinite(high - low):
        return
    st.session_state[f"{key}-span"] = ((tip, folded), (round(low, 6), round(high, 6)))
    st.rerun()


def timeline_panel(storage: Storage, tree: CheckpointTree, selected: str, key: str,
                   key_prefix: str = "") -> None:
    """The chart and the per-node table of the branch through ``selected``; a picked bar
    selects its checkpoint (and reruns the page to draw it)."""
    tip = branch_tip(tree, selected)
    found = kept_timeline(resources.tree_cache(), storage, tree, tip)
    usage = found.usage
    st.markdown(f"**Where the time and tokens went** · branch to #{tree.ordinal(tip)}: ran "
                f"{found.run_seconds:.3f} s, waited {found.wait_seconds:.3f} s, idle "
                f"{found.idle_seconds:.3f} s; {usage.input:,} tokens in, {usage.output:,} out")
    rows, unknown = _bars(found)
    labels: list[dict] = []
    if rows:
        fold = st.toggle("Fold long waits", key=f"{key}-fold",
                         help="Draw each wait or idle stretch longer than the running time as "
                              "a short gap marked with its real length.")
        if fold:
            rows, labels = fold_long_waits(rows, found.run_seconds)
        lanes = len({row["lane"] for row in rows})
        span = _zoomed(key, tip, bool(labels))
        # The rows go as an Arrow table: a list of dicts would go through pandas first. The
        # chart's key changes with its range, so a new range starts with no brush drawn.
        event = st.vega_lite_chart(arrow_rows(rows), _spec(lanes, labels, bool(labels), span),
                                   width="stretch", on_select="rerun",
                                   selection_mode=["pick", ZOOM],
                                   key=f"{key}-chart-{span}")
        _zoom_to(event, key, tip, bool(labels))
        select_picked(event, "checkpoint", tree, selected, key, key_prefix)
    st.caption(md_escape(" · ".join(_notes(found, unknown, labels))))
    prices = _prices()
    totals = found.totals(prices)
    if totals:
        st.dataframe(arrow_rows([{
            "node": t.node, "calls": t.calls, "time (s)": round(t.seconds, 3),
            "share of wall time": f"{t.share:.0%}", "task time (s)": round(t.task_seconds, 3),
            "tokens in": t.usage.input, "tokens out": t.usage.output,
            "model": ", ".join(t.usage.models) or "-",
            **({"cost": "-" if t.cost is None else f"{t.cost:.4f}"} if prices else {}),
        } for t in totals]), hide_index=True, width="stretch", key=f"{key}-nodes")


def _notes(found: Timeline, unknown: int, labels: list[dict]) -> list[str]:
    """What the chart's caption says: what is known, and what is not."""
    notes = []
    if len(found.steps) > MAX_MARKS:
        notes.append(f"{len(found.steps):,} steps, drawn as buckets of steps per node")
    if unknown:
        notes.append(f"{unknown} steps with an unknown time (a missing, unreadable or "
                     "backwards timestamp) are not drawn")
    if found.maybe_paused:
        notes.append(f"{found.maybe_paused} step{'s' if found.maybe_paused != 1 else ''} may "
                     "include a pause (dashed: a new run whose start is not recorded)")
    if labels:
        notes.append(f"{len(labels)} long wait{'s' if len(labels) != 1 else ''} folded")
    usage = found.usage
    if usage.without:
        notes.append(f"{usage.without} AI messages carry no usage: their tokens are unknown, "
                     "not counted")
    notes.append("blue: running; grey: waiting (an answer, a pause before a step, the next "
                 "input); pale, dashed: idle before an edit or a fork; orange ticks: edits and "
                 "forks; red outline: the slowest steps; drag across the chart to see that "
                 "range alone; "
                 "share: of the running wall time, task time: the tasks' times summed")
    return notes


def _prices() -> dict | None:
    """The price table the server was started with (read once per change of the file)."""
    path = os.environ.get(PRICES_ENV)
    if not path:
        return None
    try:
        return read_prices(Path(path))
    except (OSError, ValueError) as exc:
        st.caption(f"No costs: {md_escape(exc, 300)}")
        return None


def branches_side_by_side(storage: Storage, tree: CheckpointTree, left: str,
                          right: str) -> None:
    """Compare's time and tokens: each branch's, and the difference."""
    cache = resources.tree_cache()
    a, b = kept_timeline(cache, storage, tree, left), kept_timeline(cache, storage, tree, right)
    rows = []
    for what, left_value, right_value in (
            ("running time (s)", a.run_seconds, b.run_seconds),
            ("waiting (s)", a.wait_seconds, b.wait_seconds),
            ("idle (s)", a.idle_seconds, b.idle_seconds),
            ("steps that may include a pause", a.maybe_paused, b.maybe_paused),
            ("tokens in", a.usage.input, b.usage.input),
            ("tokens out", a.usage.output, b.usage.output)):
        rows.append({"": what, "left": round(left_value, 3), "right": round(right_value, 3),
                     "right - left": round(right_value - left_value, 3)})
    st.markdown("**Time and tokens of the two branches** (each from its first checkpoint)")
    st.dataframe(arrow_rows(rows), hide_index=True, width="stretch")
