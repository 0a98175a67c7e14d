"""Agent page: run turn 1, restart the process, resume turn 2, and compare both views."""

from __future__ import annotations

import streamlit as st

from playground.agent.client import ApiUnavailable
from playground.agent.turns import resume, start_turn, thread_config
from playground.apps.drawing import graph_dot
from playground.lessons import tour
from playground.lessons.explain import explain_outcome
from playground.ui import resources
from playground.ui.components.text_block import fields_block
from playground.ui.markup import md_escape
from playground.ui.session import (
    PageContext,
    flash,
    note,
    page_context,
    page_fragment,
    show_flash,
)

context = page_context()

st.title(":material/smart_toy: Agent")
st.caption(
    "Turn 1 reads the ticket and proposes a change, then pauses before writing. Turn 2 "
    "resumes from the checkpoint file, even after a restart, and writes with If-Match."
)

st.text_input("Request", value="raise t7 to high", key="request",
              help='Try "set t3 priority to low", "assign t2 to dara", "close t5".')


@page_fragment
def turns(context: PageContext) -> None:
    """The buttons and everything they change: the graph, the state, the ticket. A click
    reruns only this part of the page."""
    graph = context.agent()
    request = st.session_state.get("request") or ""
    run_col, resume_col, restart_col, _ = st.columns([1, 1, 1.3, 2])
    if run_col.button("Run turn", type="primary", icon=":material/play_arrow:"):
        result = start_turn(graph, context.thread_id, request)
        flash("success" if result.ok else "error", result.line)
        if result.ok and "write" in result.next:
            note(tour.PAUSED, result.line)
    if resume_col.button("Resume", icon=":material/resume:"):
        result = resume(graph, context.thread_id)
        if result.ok:
            flash("success", result.line)
            if "write" not in result.next:  # the write ran
                note(tour.RESUMED, result.line)
        else:
            if str(result.values.get("outcome") or "").startswith("412"):
                note(tour.MET_412, result.line)
            ticket = result.values.get("ticket_id")
            history = context.client.history(ticket) if ticket else []
            explained = explain_outcome(result.values.get("outcome"), ticket, history)
            flash("error", f"{result.line}. {explained}" if "412" in result.line else result.line)
    if restart_col.button("Restart process", icon=":material/restart_alt:"):
        resources.restart_process()
        note(tour.RESTARTED)
        flash("info", "Process restarted: nothing in memory carries over; the next step opens "
              "a new saver on a new database connection. Resume reads the paused thread back "
              "from the checkpoint file alone.")

    show_flash()

    graph = context.agent()  # after Restart process: the agent on the new saver
    snapshot = graph.get_state(thread_config(context.thread_id))
    left, right = st.columns([3, 2])
    with left:
        st.subheader(f"Graph of thread {md_escape(context.thread, 200)}")
        st.graphviz_chart(graph_dot(graph, waiting_at=snapshot.next))
        if snapshot.next:
            st.info(f"Paused before **{', '.join(snapshot.next)}**: press **Resume** to run it.",
                    icon=":material/pause_circle:")
        elif snapshot.values:
            st.caption("The thread is finished. **Run turn** starts a new one on the same thread.")
    with right:
        st.subheader("State, as the agent holds it")
        fields_block(dict(snapshot.values), empty="(empty: press Run turn)")
        ticket_id = snapshot.values.get("ticket_id") or "t7"
        st.subheader(f"Ticket {ticket_id}, as the API holds it")
        try:
            ticket = context.client.get_ticket(ticket_id)
        except ApiUnavailable as exc:
            st.error(str(exc))
        else:
            if ticket.status == 200:
                held = snapshot.values.get("etag") or snapshot.values.get("version")
                st.metric("ETag now", ticket.etag or "-",
                          delta=None if not held or held == ticket.etag else f"agent holds {held}",
                          delta_color="inverse")
                fields_block({k: v for k, v in ticket.body.items() if k != "comments"})
                st.caption(f"{len(ticket.body.get('comments') or [])} comments, {ticket.size:,} "
                           "bytes as one response: none of it is in the agent's state.")
            else:
                st.warning(f"{ticket.status}: {md_escape(ticket.error, 600)}")


turns(context)
