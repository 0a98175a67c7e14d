"""Conflicts page: two agent threads and a colleague on one ticket, the 412 that stops a stale
write, every write attempt on a timeline, and two resumes of one paused thread racing."""

from __future__ import annotations

import streamlit as st

from playground.lessons.conflicts import (
    COLLEAGUE,
    THREADS,
    agent_actor,
    colleague_edit,
    first_request,
    replan,
    reset_lab,
    resume_turn,
    run_turn,
    thread_card,
    timeline_dot,
    write_timeline,
)
from playground.lessons.race import RACE_THREAD, RaceResult, race_resumes
from playground.ui import resources
from playground.ui.session import flash, page_context, show_flash

RACE_KEY = "conflict_race"
_STATUS = {
    "new": ":gray-badge[no turn yet]",
    "paused": ":orange-badge[paused before write]",
    "written": ":green-badge[written]",
    "refused": ":red-badge[refused]",
    "finished": ":gray-badge[finished]",
}

context = page_context()
workspace = context.workspace
resources.saver()  # the checkpoint file and its tables exist before anything reads them

st.title(":material/sync_problem: Conflicts")
st.caption(
    "Two agent threads and a colleague edit the same ticket. Each agent reads the ticket, pauses, "
    "and writes later with the ETag it read (If-Match). If anyone wrote in between, the API "
    "refuses the stale write with 412 and keeps the other edit."
)
with st.expander("Try this", icon=":material/school:"):
    st.markdown(
        "1. **Run turn** on agent conflict-a: it reads the ticket at v1 and pauses.\n"
        "2. **Simulate concurrent edit**: the colleague reads v1 and writes v2.\n"
        "3. **Resume** conflict-a: it still sends v1, so the API answers 412 and says why.\n"
        "4. **Re-read and re-plan**, then **Resume**: the agent reads v2 and its write goes in.\n"
        "5. Same without the colleague: run both agents, resume one, then the other.\n"
        "6. Below the timeline: one paused thread resumed twice at the same moment."
    )

tickets = {t["id"]: t for t in context.client.list_tickets()}
ids = list(tickets) or ["t7"]
pick_col, reset_col = st.columns([3, 1], vertical_alignment="bottom")
ticket_id = pick_col.selectbox(
    "Ticket", ids, index=ids.index("t7") if "t7" in ids else 0, key="conflict_ticket",
    format_func=lambda tid: f"{tid}: {tickets.get(tid, {}).get('title', '')}",
)
reset_clicked = reset_col.button("Start over", icon=":material/restart_alt:", width="stretch",
                                 help="Reset this room's tickets to v1 and empty the lab's "
                                 "threads. Other pages' threads are kept.")
flash_box = st.container()

thread_ids = {name: workspace.thread_id(name) for name in (*THREADS, RACE_THREAD)}
graphs = {name: context.agent("etag", actor=agent_actor(name)) for name in THREADS}

# Draw every control first and note the one click; act on it; then draw what it changed.
action: tuple[str, str] | None = ("reset", "") if reset_clicked else None
columns = st.columns(3)
boxes = {}
for name, column in zip(THREADS, columns, strict=False):
    with column.container(border=True):
        st.subheader(f":material/smart_toy: Agent {name}")
        boxes[name] = st.container()
        st.text_input("Request", value=first_request(name, ticket_id),
                      key=f"request-{name}-{ticket_id}")
        run_col, resume_col = st.columns(2)
        if run_col.button("Run turn", key=f"run-{name}", type="primary",
                          icon=":material/play_arrow:", width="stretch"):
            action = ("run", name)
        if resume_col.button("Resume", key=f"resume-{name}", icon=":material/resume:",
                             width="stretch"):
            action = ("resume", name)
        if st.button("Re-read and re-plan", key=f"replan-{name}", icon=":material/refresh:",
                     width="stretch", help="The way out of a 412: a new turn reads the ticket "
                     "again and plans from what it is now, instead of retrying the stale write."):
            action = ("replan", name)
with columns[2].container(border=True):
    st.subheader(":material/person: Colleague")
    colleague_box = st.container()
    if st.button("Simulate concurrent edit", key="colleague-edit", type="primary",
                 icon=":material/edit:", width="stretch"):
        action = ("colleague", "")
    st.caption("Reads the ticket fresh and changes its priority to a value no agent proposes, "
               "between the agents' turns.")

timeline_box = st.container()

st.divider()
st.subheader(":material/call_split: Two resumes of one paused thread, at the same time")
st.caption(
    f"Thread `{RACE_THREAD}` is emptied, runs turn 1 and pauses before write. Then two Python "
    "threads call resume() on it at the same moment (a double click, or a retry racing the "
    "first try). A barrier holds both PATCHes until both resumes are inside the write, so they "
    "truly overlap."
)
key_col, race_col = st.columns([2, 2], vertical_alignment="center")
send_key = key_col.toggle("Send the Idempotency-Key (the agent always does)", value=True,
                          key="race_send_key")
if race_col.button("Resume one paused thread twice at once", key="race",
                   icon=":material/bolt:", width="stretch"):
    action = ("race", "")
race_box = st.container()

# -- act ----------------------------------------------------------------------------------------
if action is not None:
    kind, name = action
    if kind == "reset":
        done = reset_lab(context.client, resources.saver(), thread_ids.values())
        st.session_state.pop(RACE_KEY, None)
        flash(done.kind, done.text)
    elif kind == "run":
        done = run_turn(graphs[name], thread_ids[name],
                        st.session_state.get(f"request-{name}-{ticket_id}") or "")
        flash(done.kind, done.text)
    elif kind == "resume":
        done = resume_turn(graphs[name], thread_ids[name], context.client)
        flash(done.kind, done.text)
    elif kind == "replan":
        done = replan(graphs[name], thread_ids[name], first_request(name, ticket_id))
        flash(done.kind, done.text)
    elif kind == "colleague":
        proposals = [
            graphs[n].get_state({"configurable": {"thread_id": thread_ids[n]}}).values
            for n in THREADS
        ]
        avoid = [str((v.get("changes") or {}).get("priority")) for v in proposals]
        done = colleague_edit(context.client_as(COLLEAGUE), ticket_id, avoid)
        flash(done.kind, done.text)
    elif kind == "race":
        race = race_resumes(resources.api_url(), workspace.tenant, resources.saver(),
                            resources.checkpoints_target(), thread_ids[RACE_THREAD], ticket_id,
                            send_key=send_key)
        st.session_state[RACE_KEY] = (workspace.room, race)
        writes = len(race.new_writes)
        flash("success" if race.forked else "info",
              f"Two resumes at once: {len(race.branches)} branches from the paused checkpoint, "
              f"{writes} write{'s' if writes != 1 else ''} in the API's history. The details "
              "are below the timeline.")

with flash_box:
    show_flash()

# -- draw -----------------------------------------------------------------------------------------
ticket = context.client.get_ticket(ticket_id)
etags: dict[str, str | None] = {ticket_id: ticket.etag}


def current_etag(tid: str) -> str | None:
    if tid not in etags:
        etags[tid] = context.client.get_ticket(tid).etag
    return etags[tid]


for name in THREADS:
    card = thread_card(graphs[name], thread_ids[name], current_etag)
    with boxes[name]:
        st.markdown(_STATUS.get(card.status, card.status)
                    + (f" on {card.ticket_id}" if card.ticket_id else ""))
        held_col, proposed_col = st.columns(2)
        held_col.metric("ETag it holds", card.held or "-",
                        delta=f"ticket is at {current_etag(card.ticket_id)}" if card.stale
                        else None, delta_color="inverse")
        proposed_col.metric("It proposes", ", ".join(f"{v}" for v in card.proposed.values())
                            or "-")
        if card.stale:
            st.warning("Stale: someone wrote since it read. Resume will be refused with 412.",
                       icon=":material/warning:")
        elif card.status == "refused" and card.outcome:
            st.caption(f"Last write: {card.outcome}. Re-read and re-plan to recover.")
        elif card.status == "written" and card.outcome:
            st.caption(f"Last write: {card.outcome}.")

with colleague_box:
    if ticket.status == 200:
        now_col, priority_col = st.columns(2)
        now_col.metric("Ticket ETag now", ticket.etag or "-")
        priority_col.metric("Priority now", str(ticket.body.get("priority")))
    else:
        st.warning(f"{ticket.status}: {ticket.error}")

history = context.client.history(ticket_id) if ticket.status == 200 else []
rows = write_timeline(graphs[THREADS[0]], thread_ids, ticket_id, history)
with timeline_box:
    st.subheader(f":material/timeline: Every write attempt on {ticket_id}")
    if not rows:
        st.info("No write attempts yet: run a turn and resume it, or simulate the colleague's "
                "edit.", icon=":material/info:")
    else:
        st.caption(
            "Each arrow starts at the version the writer sent as If-Match. Green arrows are "
            "writes the API accepted; red ones end in a refusal; grey dotted ones got a stored "
            "answer back (same Idempotency-Key) and wrote nothing."
        )
        st.graphviz_chart(timeline_dot(rows, ticket_id))
        picked = st.dataframe(
            [{"time": r.clock, "who": r.who, "If-Match sent": r.sent, "answer": r.answer,
              "result": r.result, "changes": r.changes, "why": r.why} for r in rows],
            hide_index=True, width="stretch", key=f"timeline-{ticket_id}",
            on_select="rerun", selection_mode="single-row",
            column_config={
                "time": st.column_config.TextColumn(width=100),
                "who": st.column_config.TextColumn(width=135),
                "If-Match sent": st.column_config.TextColumn(width=105),
                "answer": st.column_config.TextColumn(width=100),
                "result": st.column_config.TextColumn(width=80),
                "changes": st.column_config.TextColumn(width=135),
                "why": st.column_config.TextColumn(width="large"),
            },
        )
        chosen = [i for i in picked.selection.rows if i < len(rows)]
        refused = [r for r in rows if r.result == "refused"]
        row = rows[chosen[0]] if chosen else (refused[-1] if refused else rows[-1])
        show = {"refused": st.error, "replayed": st.warning, "written": st.success}.get(
            row.result, st.info)
        show(f"**{row.clock} · {row.who} · {row.result}.** {row.why}",
             icon=":material/block:" if row.result == "refused" else ":material/info:")
        st.caption("Click a row to read its explanation here"
                   + ("; shown: the last refusal." if not chosen and refused else "."))

kept = st.session_state.get(RACE_KEY)
race: RaceResult | None = kept[1] if kept and kept[0] == workspace.room else None
with race_box:
    if race is not None:
        forks_col, writes_col, key_col2 = st.columns(3)
        forks_col.metric("Branches from the paused checkpoint", len(race.branches))
        writes_col.metric("Writes the API made", len(race.new_writes))
        key_col2.metric("Idempotency-Key", "same on both" if race.same_key
                        else ("sent" if race.send_key else "not sent"))
        tree_col, text_col = st.columns([1, 2])
        with tree_col:
            st.graphviz_chart(race.tree_dot)
            st.caption("The thread's checkpoints: the paused one is filled yellow; each resume "
                       "grew its own branch from it.")
        with text_col:
            (st.success if race.forked else st.info)(race.explanation())
            st.dataframe(
                [{"PATCH": i, "If-Match": r.if_match,
                  "Idempotency-Key": r.idempotency_key or "-", "status": r.status,
                  "ETag back": r.etag or "-"} for i, r in enumerate(race.requests, 1)],
                hide_index=True, width="stretch",
            )
            for line in race.lines:
                st.caption(f"resume() said: {line}")

context.close()
