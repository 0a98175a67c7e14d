"""Sizes page: what a thread stores versus what a resume loads, the ways to carry state, prune."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from playground.agent.client import ApiUnavailable, TicketClient
from playground.lessons import tour
from playground.lessons.state_sizes import (
    ALL_APPROACHES,
    DEFINITIONS,
    Measure,
    compare,
)
from playground.places.door import open_storage
from playground.timetravel.errors import UnknownThread
from playground.timetravel.prune import PruneRefused, PruneReport, prune_keep_latest
from playground.timetravel.sizes import SizeReport, size_report
from playground.ui import resources
from playground.ui.markup import md_escape
from playground.ui.session import no_checkpoints_yet, note, page_context

COMPARE_KEY = "sizes-compare"
PRUNED_KEY = "sizes-pruned"
MAX_TURNS = 100  # the DeltaChannel row shows its saving from a snapshot every 100 updates on
PARTS = ("checkpoint blob", "metadata", "pending writes")

context = page_context()
st.title(":material/database: Sizes")
st.caption(
    "A resume loads one checkpoint: the newest. The database keeps every checkpoint of every "
    "branch. This page shows that gap for your thread, how pruning closes it and, for the "
    "ticket agent, what four ways of carrying state cost."
)


def _bytes(n: int) -> str:
    return f"{n:,} B"


def _per_checkpoint(report: SizeReport) -> pd.DataFrame:
    return pd.DataFrame(
        [{"checkpoint": p.ordinal, "checkpoint blob": p.blob_bytes, "metadata": p.metadata_bytes,
          "pending writes": p.writes_bytes} for p in report.points]
    )


def _growth(report: SizeReport, over: str) -> pd.DataFrame:
    """Stored-so-far against what a resume from that point would load, per checkpoint or turn."""
    if over == "checkpoints":
        rows = [(p.ordinal, p.cumulative_bytes, p.blob_bytes) for p in report.points]
    else:
        # a turn ends at its last checkpoint: the one whose running total the report gives
        blob_at = {p.cumulative_bytes: p.blob_bytes for p in report.points}
        rows = [(turn, total, blob_at[total]) for turn, total in report.turns]
    return pd.DataFrame(rows, columns=[over, "stored so far", "a resume loads"]).set_index(over)


def _prune(keep: int, dry_run: bool) -> PruneReport:
    # The shared saver's connection is left alone: prune runs on a connection of its own.
    storage = open_storage(resources.checkpoints_target(), writable=True)
    try:
        return prune_keep_latest(storage, context.thread_id, keep, dry_run=dry_run)
    finally:
        storage.close()


def thread_section() -> None:
    """The current thread's bytes, and the prune action; or a pointer to the Agent page."""
    st.subheader(f"Thread {md_escape(context.thread, 200)}")
    source = resources.own_storage()
    try:
        report = size_report(context.thread_id, source.records(context.thread_id))
    except UnknownThread:
        no_checkpoints_yet(context.thread, ", then come back to see its bytes")
        return
    finally:
        source.close()

    pruned = st.session_state.pop(PRUNED_KEY, None)
    if pruned:
        st.success(pruned, icon=":material/content_cut:")
    loads, stored, count, ratio = st.columns(4)
    loads.metric("Resume loads", _bytes(report.resume_load_bytes),
                 help="The newest checkpoint's blob: all a resume reads.")
    stored.metric("Stored", _bytes(report.stored_bytes),
                  help="Every checkpoint blob, its metadata and its pending writes.")
    count.metric("Checkpoints", f"{report.checkpoints:,}")
    ratio.metric("Stored / resume loads",
                 f"{report.stored_bytes / max(report.resume_load_bytes, 1):,.1f}×")

    per_col, growth_col = st.columns(2)
    with per_col:
        st.markdown("**Bytes per checkpoint** (creation order)")
        st.bar_chart(_per_checkpoint(report), x="checkpoint", y=list(PARTS), stack=True,
                     x_label="checkpoint #", y_label="bytes", height=320)
    with growth_col:
        over = st.segmented_control("Over", ["checkpoints", "turns"], default="checkpoints",
                                    key="sizes-over", label_visibility="collapsed") or "checkpoints"
        st.markdown(f"**Stored so far vs what a resume loads**, over {over}")
        st.line_chart(_growth(report, over), y_label="bytes", height=290,
                      color=["#e45756", "#4c78a8"])
    st.caption("The red line keeps climbing with every checkpoint; the blue one stays flat. "
               "The area between them is history: worth keeping for time travel, not needed "
               "to resume.")
    prune_section(report)


def prune_section(report: SizeReport) -> None:
    """Keep the N newest checkpoints and delete the rest, with a dry-run preview first (not
    on an Agent Server, whose checkpoints only its own API changes)."""
    if resources.app().runs_on_server:
        st.caption(":material/info: Prune is not offered here: an Agent Server keeps its "
                   "threads' checkpoints itself, and only runs through its API change them.")
        return
    with st.container(border=True):
        st.markdown("**Prune**: keep the newest checkpoints, delete the older ones. The head is "
                    "always kept, so the thread still resumes; the history before it is gone.")
        keep_col, preview_col, button_col = st.columns([1.2, 3, 1], vertical_alignment="bottom")
        keep = keep_col.number_input(
            "Keep N newest", min_value=1, max_value=max(report.checkpoints, 1),
            value=min(3, report.checkpoints), step=1, key="prune-keep",
        )
        try:
            preview = _prune(int(keep), dry_run=True)
        except PruneRefused as exc:
            preview_col.warning(str(exc))
            return
        deletes = len(preview.deleted_ids)
        if deletes:
            preview_col.markdown(
                f"Would delete **{deletes}** of {preview.checkpoints_before} checkpoints and "
                f"{preview.writes_deleted} pending writes: stored "
                f"{_bytes(preview.bytes_before)} → **{_bytes(preview.bytes_after)}** "
                f"(frees {_bytes(preview.bytes_freed)})."
            )
        else:
            preview_col.markdown(f"Nothing to delete: the thread has {preview.checkpoints_before}"
                                 " checkpoints.")
        if button_col.button("Prune", icon=":material/content_cut:", disabled=not deletes,
                             type="primary", width="stretch", key="prune-button"):
            try:
                done = _prune(int(keep), dry_run=False)
            except PruneRefused as exc:
                st.error(f"Not pruned, nothing changed: {md_escape(exc, 600)}")
                return
            note(tour.WEIGHED, f"pruned {len(done.deleted_ids)} checkpoints")
            st.session_state[PRUNED_KEY] = (
                f"Pruned {len(done.deleted_ids)} checkpoints: stored bytes "
                f"{_bytes(done.bytes_before)} → {_bytes(done.bytes_after)}. The head is kept: "
                "Resume on the Agent page carries on from it."
            )
            st.session_state.pop("prune-keep", None)
            st.rerun()


def _run_compare(turns: int) -> dict:
    """Measure the four approaches on a tenant of the workspace's own, reset to the seed."""
    client = TicketClient(resources.api_url(), tenant=f"{context.workspace.tenant}-compare",
                          actor="compare")
    bar = st.progress(0.0, text="measuring…")
    try:
        client.reset()
        ticket = client.get_ticket("t7")

        def progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"measuring: {done}/{total} turns")

        # On a Postgres-backed server the table also shows PostgresSaver's figures.
        measures = compare(lambda: client.get_ticket("t7"), list(range(1, turns + 1)), 0,
                           progress, postgres_url=resources.database_url())
    finally:
        client.close()
        bar.empty()
    return {"turns": turns, "measures": measures, "ticket_bytes": ticket.size}


def _table(measures: list[Measure], turns: int) -> pd.DataFrame:
    by_key = {(m.approach, m.turns): m for m in measures}
    shown = sorted({1, turns})
    rows = []
    present = {m.approach for m in measures}
    for approach in (a for a in ALL_APPROACHES if a in present):
        row = {"approach": approach}
        for turn in shown:
            after = f"after {turn} turn{'s' if turn > 1 else ''}"
            row[f"resume loads, {after}"] = by_key[(approach, turn)].resume_loads
            row[f"stored, {after}"] = by_key[(approach, turn)].stored
        rows.append(row)
    return pd.DataFrame(rows)


def _growth_chart(measures: list[Measure]) -> alt.Chart:
    frame = pd.DataFrame(
        [{"turns": m.turns, "approach": m.approach, "stored bytes": m.stored} for m in measures]
    )
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X("turns:Q", axis=alt.Axis(tickMinStep=1)),
            y=alt.Y("stored bytes:Q", scale=alt.Scale(type="log"), title="stored bytes (log)"),
            color=alt.Color(
                "approach:N", sort=list(ALL_APPROACHES),
                legend=alt.Legend(orient="bottom", columns=2, title=None, labelLimit=260),
            ),
            tooltip=["approach", "turns", alt.Tooltip("stored bytes:Q", format=",")],
        )
        .properties(height=340)
    )


def compare_section() -> None:
    """The how-to's byte table, measured live: the ways to carry state between turns."""
    st.subheader("Ways to carry state between turns")
    st.caption(
        "Each turn reads ticket t7 once. The LangGraph rows run a START → read → END graph on a "
        "real SqliteSaver, one invoke per turn; the ticket lives in a tenant of this workspace "
        "of its own, reset to the seed first. The two chat rows keep the turn as messages "
        "(question, tool result, reply): with add_messages every checkpoint stores the whole "
        "list again; on a DeltaChannel (LangGraph 1.2) it is stored whole every 100 updates, "
        "and a resume loads that snapshot and the writes since."
    )
    turns_col, button_col, _ = st.columns([1, 1, 3], vertical_alignment="bottom")
    turns = turns_col.number_input("Turns", min_value=1, max_value=MAX_TURNS, value=10, step=1,
                                   key="compare-turns")
    if button_col.button("Compare", icon=":material/bar_chart:", key="compare-button"):
        try:
            st.session_state[COMPARE_KEY] = _run_compare(int(turns))
            note(tour.COMPARED, f"{int(turns)} turns measured every way")
        except ApiUnavailable as exc:
            st.error(f"Not measured: {md_escape(exc, 600)}")
    result = st.session_state.get(COMPARE_KEY)
    if not result:
        st.caption(f"Press **Compare** to measure 1 to {int(turns)} turns.")
        return
    table = _table(result["measures"], result["turns"])
    st.dataframe(
        table, hide_index=True, width="stretch",
        column_config={column: st.column_config.NumberColumn(format="localized")
                       for column in table.columns if column != "approach"},
    )
    chart_col, notes_col = st.columns([3, 2])
    with chart_col:
        st.markdown(f"**Stored bytes over 1 to {result['turns']} turns** (log scale)")
        st.altair_chart(_growth_chart(result["measures"]), width="stretch")
    with notes_col:
        st.caption(f"Bytes for one conversation. Ticket t7 as one response: "
                   f"{result['ticket_bytes']:,} bytes.")
        for definition in DEFINITIONS:
            st.caption(definition)
        st.caption("Keeping ids and an ETag in state grows by one small checkpoint per step; "
                   "keeping whole responses copies every one of them into every checkpoint.")

thread_section()
if resources.app().builtin:  # a workshop lesson about the ticket agent's own state
    st.divider()
    compare_section()
st.caption(
    ":material/info: Sizes here are SqliteSaver's, which inlines every channel value in each "
    "checkpoint blob; PostgresSaver stores one blob per channel version instead, so its numbers "
    "differ."
)
