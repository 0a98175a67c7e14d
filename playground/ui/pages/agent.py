"""Agent page: run turn 1, restart the process, resume turn 2, and compare both views."""

from __future__ import annotations

import streamlit as st

from playground.agent.client import ApiUnavailable, TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import resume, start_turn, thread_config
from playground.graph_view import graph_dot
from playground.ui import resources
from playground.ui.workspace import current_workspace

workspace = current_workspace()
client = TicketClient(resources.api_url(), tenant=workspace.tenant, actor="agent")

st.title(":material/smart_toy: Agent")
st.caption(
    "Turn 1 reads the ticket and proposes a change, then pauses before writing. "
    "Turn 2 resumes from the checkpoint file, even after a restart, and writes with If-Match."
)

left, right = st.columns([3, 2])
with left:
    thread = st.text_input("Thread", value="thread-1", key="thread_name")
    request = st.text_input("Request", value="raise t7 to high", key="request")
    run_col, resume_col, restart_col = st.columns(3)
    run_clicked = run_col.button("Run turn", type="primary", use_container_width=True)
    resume_clicked = resume_col.button("Resume", use_container_width=True)
    restart_clicked = restart_col.button("Restart process", use_container_width=True)

thread_id = workspace.thread_id(thread)
graph = build_agent(client, resources.saver())

if restart_clicked:
    resources.restart_process()
    graph = build_agent(client, resources.saver())
    st.session_state.last_line = (
        "info",
        "Process restarted: the saver connection and the compiled graph were dropped. "
        "Resume reads the paused thread back from the checkpoint file.",
    )
if run_clicked:
    result = start_turn(graph, thread_id, request)
    st.session_state.last_line = ("success" if result.ok else "error", result.line)
if resume_clicked:
    result = resume(graph, thread_id)
    st.session_state.last_line = ("success" if result.ok else "error", result.line)

if "last_line" in st.session_state:
    kind, line = st.session_state.last_line
    getattr(st, kind)(line)

snapshot = graph.get_state(thread_config(thread_id))
with left:
    st.subheader("Graph")
    st.graphviz_chart(graph_dot(graph, waiting_at=snapshot.next))
    if snapshot.next:
        st.caption(f"Paused before {', '.join(snapshot.next)}: press Resume to run it.")
with right:
    st.subheader("State as the agent holds it")
    st.json(dict(snapshot.values) or {"(empty)": "run a turn first"})
    ticket_id = snapshot.values.get("ticket_id") or "t7"
    st.subheader(f"Ticket {ticket_id} as the API holds it")
    try:
        ticket = client.get_ticket(ticket_id)
        st.metric("ETag", ticket.etag or "-")
        st.json({k: v for k, v in ticket.body.items() if k != "comments"})
    except ApiUnavailable as exc:
        st.error(str(exc))
client.close()
