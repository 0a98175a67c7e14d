"""Where a branch's time and tokens went: a Gantt chart of its steps (the playground's d3
timeline drawing, :mod:`.drawings`), a table per node, and the two branches of Compare side by
side.

One lane per node. Running time is blue, and a step that may include a pause (it began a new
run whose start is not recorded) is a paler blue with a dashed outline; a wait (for an answer,
paused before a step, between turns) is grey; the idle time before an edit or a fork is pale and
dashed; an edit or a fork is an instant, drawn as a tick at its moment; the slowest running steps
are outlined red; every kind is in the legend. A range brushed across the chart is shown alone
(**Whole branch** gives the rest back); "Fold long waits" folds each wait or idle stretch longer
than the running time to a short gap, drawn as a break marked with its real length, by shifting
the later bars (here, not in the browser). It starts on where the waits and idle time outweigh
the running time (after a replay made minutes later the steps would be slivers beside one long
idle bar), off otherwise; a click on a break, or on the toggle, unfolds. The axis' ticks carry
their unit and, after a break, read real time. Selecting a bar selects its checkpoint in the
tree. Past :data:`MAX_MARKS` steps the chart draws buckets of steps per lane instead of one mark
each (the table still counts every step). Everything shown comes from the database: the drawing
sets it as text, never as markup.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable
from functools import partial
from pathlib import Path

import streamlit as st

from playground.timetravel.compare import common_ancestor
from playground.timetravel.limits import clip
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
from playground.ui.components.checkpoints import select_drawn_pick, walked_tip
from playground.ui.components.drawings import TIMELINE
from playground.ui.components.tables import arrow_rows
from playground.ui.markup import md_escape

MAX_MARKS = 1_000  # past this many steps, the chart draws buckets
SLOWEST = 3  # running steps outlined as the slowest
FOLD_GAP = 0.15  # a folded wait's width, as a share of the branch's running time
# The shortest wait worth folding: one that reads as a wait, whatever the branch's running time
# (a chat's 40 ms between two streamed steps is longer than its running, and no wait at all).
MIN_FOLD_SECONDS = 1.0
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
            "tokens_in": step.usage.input, "tokens_out": step.usage.output,
            "note": clip(step.note, 200), "slowest": slow,
            "dashed": step.maybe_paused or step.kind == IDLE}


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
                    "tokens_in": sum(s.usage.input for s in steps),
                    "tokens_out": sum(s.usage.output for s in steps),
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
    running time) and than :data:`MIN_FOLD_SECONDS` folded to a short fixed gap
    (:data:`FOLD_GAP` of the running time), the later bars shifted left by what was cut; and
    one label per fold, at its gap, saying how long it really was. Each row keeps its real
    ``seconds``; only where it is drawn moves."""
    gap = max(running, 0.001) * FOLD_GAP
    shortest = max(running, gap, MIN_FOLD_SECONDS)
    spans = sorted((row["from"], row["to"], row["what"]) for row in rows
                   if row["kind"] in (WAIT, IDLE) and row["to"] - row["from"] > shortest)
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
    return folded, [_fold_label(moved(start), gap, end - start, what)
                     for start, end, what in merged]


def _fold_label(at: float, gap: float, seconds: float, what: str) -> dict:
    """One fold as the drawing marks it: where its gap is drawn (``from``, ``to``, its middle
    ``at``), how many seconds it cut from the axis (the ticks after it add them back, so they
    read real time), and its real length in words."""
    return {"at": round(at + gap / 2, 6), "from": round(at, 6), "to": round(at + gap, 6),
            "cut": round(seconds - gap, 6), "seconds": round(seconds, 6),
            "label": f"{_length(seconds)} {'idle' if what == WHAT[IDLE] else 'wait'} folded"}


def long_waits_start_folded(found: Timeline, rows: list[dict]) -> bool:
    """Whether the chart opens with its long waits folded: when the branch waited and sat idle
    longer than it ran (at real scale its steps would be slivers beside one long grey bar), and
    at least one stretch is long enough to fold. Where running time dominates, the chart opens
    at real scale."""
    if found.wait_seconds + found.idle_seconds <= found.run_seconds:
        return False
    return bool(fold_long_waits(rows, found.run_seconds)[1])


def _axis_title(folded: bool) -> str:
    # The ticks carry their unit (s, min, h): the title says what is counted, not in what.
    return "time since the branch's first checkpoint" + (" (long waits folded)" if folded else "")


def chart_data(rows: list[dict], labels: Iterable[dict] = (), folded: bool = False,
               span: tuple[float, float] | None = None, selected: str | None = None) -> dict:
    """What the timeline drawing is given: its bars (steps, or buckets of steps), its lanes in
    the order of their first step, every kind with its colour (the legend names each), the
    folds (each drawn as a break with its label), the axis' title, the range shown (None: the
    whole branch) and the selected checkpoint, whose bars are outlined."""
    lanes = list(dict.fromkeys(row["lane"] for row in rows))
    return {
        "drawing": "timeline",
        "rows": rows,
        "lanes": lanes,
        # [name, colour, dashed outline, drawn as an instant]
        "kinds": [[what, colour, what in (MAYBE, WHAT[IDLE]), what == WHAT[EDIT]]
                  for what, colour in zip(_DOMAIN, _RANGE, strict=True)],
        "instant": EDIT,
        "folds": list(labels),
        "folded": folded,
        "axis": _axis_title(folded),
        "span": list(span) if span else None,
        "end": max((row["to"] for row in rows), default=0.0),
        "selected": selected,
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


def _zoom_to(drawing: str, key: str, tip: str, folded: bool) -> None:
    """A range dragged across the chart (the drawing's callback): the page shows it alone
    from its next run. The range comes back from the browser: anything but two finite,
    different numbers is ignored."""
    extent = (st.session_state.get(drawing) or {}).get(ZOOM)
    if not (isinstance(extent, list) and len(extent) == 2
            and all(isinstance(v, int | float) and not isinstance(v, bool) for v in extent)):
        return
    low, high = sorted(float(v) for v in extent)
    if high - low <= 0 or not math.isfinite(high - low):
        return
    st.session_state[f"{key}-span"] = ((tip, folded), (round(low, 6), round(high, 6)))


def timeline_panel(storage: Storage, tree: CheckpointTree, selected: str, key: str,
                   key_prefix: str = "") -> None:
    """The chart and the per-node table of the branch through ``selected``; a picked bar
    selects its checkpoint (and reruns the page to draw it)."""
    tip = walked_tip(tree, selected, key_prefix)
    found = kept_timeline(resources.tree_cache(), storage, tree, tip)
    usage = found.usage
    st.markdown(f"**Where the time and tokens went** · branch to #{tree.ordinal(tip)}: ran "
                f"{found.run_seconds:.3f} s, waited {found.wait_seconds:.3f} s, idle "
                f"{found.idle_seconds:.3f} s; {usage.input:,} tokens in, {usage.output:,} out")
    rows, unknown = _bars(found)
    labels: list[dict] = []
    if rows:
        toggle = f"{key}-fold-{tip}"
        if _fold_toggle(toggle, found, rows):
            rows, labels = fold_long_waits(rows, found.run_seconds)
        span = _zoomed(key, tip, bool(labels))
        drawing = f"{key}-chart"
        data = chart_data(rows, labels, bool(labels), span, selected)
        data["nodes"] = node_table(found)
        TIMELINE(data=data, key=drawing,
                 on_pick_change=partial(select_drawn_pick, tree, drawing, key_prefix, tip),
                 on_zoom_change=partial(_zoom_to, drawing, key, tip, bool(labels)),
                 on_unfold_change=partial(_unfold, toggle))
    st.caption(md_escape(" · ".join(_notes(found, unknown, labels))))


def _fold_toggle(toggle: str, found: Timeline, rows: list[dict]) -> bool:
    """The "Fold long waits" toggle (widget key ``toggle``, one per branch drawn): on at first
    where :func:`long_waits_start_folded` says so; a person's click then holds while that
    branch is drawn."""
    if toggle not in st.session_state:
        # Set before the widget is made, not passed as its value: a break clicked on the chart
        # sets it too (:func:`_unfold`), and Streamlit warns of a widget given both.
        st.session_state[toggle] = long_waits_start_folded(found, rows)
    return st.toggle("Fold long waits", key=toggle,
                     help="Draw each wait or idle stretch longer than the running time as a "
                          "break marked with its real length. On at first when the waits and "
                          "idle time outweigh the running time.")


def _unfold(toggle: str) -> None:
    """A break clicked on the chart (the drawing's callback): the long waits are drawn at their
    real length from the page's next run, and the toggle shows it."""
    st.session_state[toggle] = False


def node_table(found: Timeline) -> dict:
    """The table per node under the chart: its columns, which of them are numbers, and a row
    per node, slowest first (with a cost column when the server was given prices)."""
    prices = _prices()
    columns = ["node", "calls", "time (s)", "share of wall time", "task time (s)", "tokens in",
               "tokens out", "model"] + (["cost"] if prices else [])
    rows = [[clip(t.node, 60), t.calls, f"{t.seconds:.3f}", f"{t.share:.0%}",
             f"{t.task_seconds:.3f}", f"{t.usage.input:,}", f"{t.usage.output:,}",
             clip(", ".join(t.usage.models) or "-", 120)]
            + ([("-" if t.cost is None else f"{t.cost:.4f}")] if prices else [])
            for t in found.totals(prices)]
    numeric = [False, True, True, True, True, True, True, False, True]
    return {"columns": columns, "numeric": numeric[:len(columns)], "rows": rows}


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
        notes.append(f"{len(labels)} long wait{'s' if len(labels) != 1 else ''} folded (click "
                     "a break on the chart, or Fold long waits, to draw "
                     f"{'them' if len(labels) != 1 else 'it'} at real length)")
    usage = found.usage
    if usage.without:
        notes.append(f"{usage.without} AI messages carry no usage: their tokens are unknown, "
                     "not counted")
    notes.append("waiting: for an answer, at a pause before a step, or for the next input; "
                 "drag across the chart to see that range alone; share: of the running wall "
                 "time; task time: the tasks' times summed")
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
    """Compare's time and tokens: each branch's own, from the common ancestor on, and the
    difference."""
    cache = resources.tree_cache()
    ancestor = common_ancestor(tree, left, right)
    a = kept_timeline(cache, storage, tree, left).own_after(ancestor)
    b = kept_timeline(cache, storage, tree, right).own_after(ancestor)
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
    since = f"its steps after the common ancestor #{tree.ordinal(ancestor)}" if ancestor \
        else "every step"
    st.markdown(f"**Time and tokens of the two branches** (each counts {since}; the time "
                "between the ancestor and a branch made later belongs to no run)")
    st.dataframe(arrow_rows(rows), hide_index=True, width="stretch")
