"""Where a branch's time and tokens went: a Gantt chart of its steps (Vega-Lite), a table per
node, and the two branches of Compare side by side.

One lane per node; a wait for a person (an answer, the next input) is drawn hatched-grey apart
from running time, and the slowest steps are outlined. Selecting a bar selects its checkpoint
in the tree. Past :data:`MAX_MARKS` steps the chart draws buckets of steps per lane instead of
one mark each (the table still counts every step). Everything shown comes from the database:
Vega-Lite draws it as data, never as markup.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import streamlit as st

from playground.timetravel.limits import clip
from playground.timetravel.recording import branch_tip
from playground.timetravel.storage import Storage
from playground.timetravel.timeline import (
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
from playground.ui.components.checkpoints import select
from playground.ui.components.tables import arrow_rows
from playground.ui.markup import md_escape

MAX_MARKS = 1_000  # past this many steps, the chart draws buckets
SLOWEST = 3  # running steps outlined as the slowest
_HANDLED = "timeline-picked"  # the last pick acted on, per chart key


def _bars(found: Timeline) -> tuple[list[dict], int]:
    """Chart rows (steps, or buckets past MAX_MARKS) and how many steps have no known time."""
    timed = [step for step in found.steps if step.seconds is not None]
    unknown = len(found.steps) - len(timed)
    slowest = {id(step) for step in sorted((s for s in timed if s.kind == RUN),
                                           key=lambda s: s.seconds, reverse=True)[:SLOWEST]}
    if len(timed) <= MAX_MARKS:
        return [_row(step, id(step) in slowest) for step in timed], unknown
    return _buckets(timed), unknown


def _row(step: Step, slow: bool) -> dict:
    return {"checkpoint": step.checkpoint_id, "lane": clip(step.node, 60),
            "what": "waiting for a person" if step.kind == WAIT else step.kind,
            "from": round(step.start, 6), "to": round(step.end, 6),
            "seconds": round(step.seconds, 6), "at": f"#{step.ordinal}", "steps": 1,
            "tokens in": step.usage.input, "tokens out": step.usage.output,
            "slowest": slow}


def _buckets(timed: list[Step]) -> list[dict]:
    """Steps grouped per lane and span of time: at most MAX_MARKS marks in all."""
    end = max(step.end for step in timed) or 1.0
    lanes = {step.node for step in timed}
    bins = max(1, MAX_MARKS // max(len(lanes), 1))
    grouped: dict[tuple[str, str, int], list[Step]] = {}
    for step in timed:
        where = min(bins - 1, math.floor(step.start / end * bins))
        grouped.setdefault((step.node, step.kind, where), []).append(step)
    rows = []
    for steps in grouped.values():
        slowest = max(steps, key=lambda s: s.seconds)
        row = _row(slowest, False)
        row.update({"from": round(min(s.start for s in steps), 6),
                    "to": round(max(s.end for s in steps), 6),
                    "seconds": round(sum(s.seconds for s in steps), 6), "steps": len(steps),
                    "tokens in": sum(s.usage.input for s in steps),
                    "tokens out": sum(s.usage.output for s in steps),
                    "at": f"{len(steps)} steps from #{min(s.ordinal for s in steps)}"})
        rows.append(row)
    return rows


def _spec(lanes: int) -> dict:
    return {
        "height": {"step": 26} if lanes else 60,
        "params": [{"name": "pick", "select": {"type": "point", "fields": ["checkpoint"]}}],
        "mark": {"type": "bar", "height": 16, "cornerRadius": 2, "cursor": "pointer"},
        "encoding": {
            "y": {"field": "lane", "type": "nominal", "title": None, "sort": None},
            "x": {"field": "from", "type": "quantitative", "title": "seconds since the "
                  "branch's first checkpoint"},
            "x2": {"field": "to"},
            "color": {"field": "what", "type": "nominal", "title": None,
                      "scale": {"domain": ["run", "waiting for a person", "edit"],
                                "range": ["#4c78a8", "#c7c7c7", "#f58518"]}},
            "stroke": {"condition": {"test": "datum.slowest", "value": "#d62728"},
                       "value": None},
            "strokeWidth": {"condition": {"test": "datum.slowest", "value": 2}, "value": 0},
            "opacity": {"condition": {"param": "pick", "value": 1, "empty": True},
                        "value": 0.35},
            "tooltip": [{"field": "at", "title": "checkpoint"}, {"field": "lane", "title": "node"},
                        {"field": "what"}, {"field": "seconds", "format": ".3f"},
                        {"field": "tokens in"}, {"field": "tokens out"}],
        },
    }


def _picked(event: object) -> str | None:
    selection = getattr(event, "selection", None) or {}
    picks = selection.get("pick") if isinstance(selection, dict) else None
    if isinstance(picks, list) and picks and isinstance(picks[0], dict):
        found = picks[0].get("checkpoint")
        return found if isinstance(found, str) else None
    return None


def timeline_panel(storage: Storage, tree: CheckpointTree, selected: str, key: str,
                   key_prefix: str = "") -> None:
    """The chart and the per-node table of the branch through ``selected``; a picked bar
    selects its checkpoint (and reruns the page to draw it)."""
    tip = branch_tip(tree, selected)
    found = kept_timeline(resources.tree_cache(), storage, tree, tip)
    usage = found.usage
    st.markdown(f"**Where the time and tokens went** · branch to #{tree.ordinal(tip)}: ran "
                f"{found.run_seconds:.3f} s, waited {found.wait_seconds:.3f} s for a person; "
                f"{usage.input:,} tokens in, {usage.output:,} out")
    rows, unknown = _bars(found)
    if rows:
        lanes = len({row["lane"] for row in rows})
        # The rows go as an Arrow table: a list of dicts would go through pandas first.
        event = st.vega_lite_chart(arrow_rows(rows), _spec(lanes), width="stretch",
                                   on_select="rerun", key=f"{key}-chart")
        picked = _picked(event)
        if picked and picked != st.session_state.get(f"{_HANDLED}-{key}") \
                and picked in tree.nodes:
            st.session_state[f"{_HANDLED}-{key}"] = picked
            if picked != selected:
                select(picked, key_prefix)
                st.rerun()
    notes = []
    if len(found.steps) > MAX_MARKS:
        notes.append(f"{len(found.steps):,} steps, drawn as buckets of steps per node")
    if unknown:
        notes.append(f"{unknown} steps with an unknown time (a missing, unreadable or "
                     "backwards timestamp) are not drawn")
    if usage.without:
        notes.append(f"{usage.without} AI messages carry no usage: their tokens are unknown, "
                     "not counted")
    notes.append("grey: waiting for a person; red outline: the slowest steps; a pause at a "
                 "breakpoint counts as its step's time")
    st.caption(md_escape(" · ".join(notes)))
    prices = _prices()
    totals = found.totals(prices)
    if totals:
        st.dataframe(arrow_rows([{
            "node": t.node, "calls": t.calls, "time (s)": round(t.seconds, 3),
            "share": f"{t.share:.0%}", "tokens in": t.usage.input,
            "tokens out": t.usage.output, "model": ", ".join(t.usage.models) or "-",
            **({"cost": "-" if t.cost is None else f"{t.cost:.4f}"} if prices else {}),
        } for t in totals]), hide_index=True, width="stretch", key=f"{key}-nodes")


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
            ("waiting for a person (s)", a.wait_seconds, b.wait_seconds),
            ("tokens in", a.usage.input, b.usage.input),
            ("tokens out", a.usage.output, b.usage.output)):
        rows.append({"": what, "left": round(left_value, 3), "right": round(right_value, 3),
                     "right - left": round(right_value - left_value, 3)})
    st.markdown("**Time and tokens of the two branches** (each from its first checkpoint)")
    st.dataframe(arrow_rows(rows), hide_index=True, width="stretch")
