"""Conflicts page: two agent threads and a colleague on one ticket, the 412 that stops a stale
write, every write attempt on a timeline, and two resumes of one paused thread racing."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from playground.agent.client import ApiResult
from playground.lessons import tour
from playground.lessons.conflicts import (
    COLLEAGUE,
    THREADS,
    WriteRow,
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
from playground.lessons.explain import explain_outcome
from playground.lessons.race import RACE_THREAD, RaceResult, race_resumes
from playground.ui import resources
from playground.ui.components.tables import arrow_rows
from playground.ui.markup import md_escape
from playground.ui.session import (
    PageContext,
    flash,
    note,
    page_context,
    page_fragment,
    show_flash,
)

RACE_KEY = "conflict_race"
# The one way out of a 412, said on the refused agent's card beside the button that does it.
_RE_PLAN = ("Next: press **Re-read and re-plan**: a new turn reads the ticket as it is now and "
            "plans from there, instead of retrying the stale write.")
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
        # No version numbers here: a room's tickets move on with every write on every page,
        # and the cards below show the real ones.
        "1. **Run turn** on agent conflict-a: it reads the ticket at its current version (its "
        "ETag) and pauses.\n"
        "2. **Simulate concurrent edit**: the colleague writes the ticket, which moves to the "
        "next version.\n"
        "3. **Resume** conflict-a: it still sends the version it read, so the API answers 412 "
        "and says why.\n"
        "4. **Re-read and re-plan**, then **Resume**: the agent reads the new version and its "
        "write goes in.\n"
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
if reset_col.button("Start over", icon=":material/restart_alt:", width="stretch",
                    help="Reset this room's tickets to v1 and empty the lab's threads. Other "
                    "pages' threads are kept."):
    done = reset_lab(context.client, resources.saver(),
                     [workspace.thread_id(name) for name in (*THREADS, RACE_THREAD)])
    st.session_state.pop(RACE_KEY, None)
    flash(done.kind, done.text)


@dataclass
class _Places:
    """Where the lab draws what its click changed, laid out before the click is acted on."""

    cards: dict[str, DeltaGenerator]
    colleague: DeltaGenerator
    timeline: DeltaGenerator


def _controls(ticket_id: str) -> tuple[_Places, tuple[str, str] | None]:
    """Every control of the lab, and the one click of this run (kind, thread name)."""
    action: tuple[str, str] | None = None
    columns = st.columns(3)
    cards = {}
    for name, column in zip(THREADS, columns, strict=False):
        with column.container(border=True):
            st.subheader(f":material/smart_toy: Agent {name}")
            cards[name] = st.container()
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
                         width="stretch", help="The way out of a 412: a new turn reads the "
                         "ticket again and plans from what it is now, instead of retrying the "
                         "stale write."):
                action = ("replan", name)
    with columns[2].container(border=True):
        st.subheader(":material/person: Colleague")
        colleague = st.container()
        if st.button("Simulate concurrent edit", key="colleague-edit", type="primary",
                     icon=":material/edit:", width="stretch"):
            action = ("colleague", "")
        st.caption("Reads the ticket fresh and changes its priority to a value no agent "
                   "proposes, between the agents' turns.")

    return _Places(cards, colleague, st.container()), action


def _act(context: PageContext, ticket_id: str, graphs: dict, thread_ids: dict[str, str],
         action: tuple[str, str]) -> None:
    """Do what was clicked, and keep its outcome for the flash box."""
    kind, name = action
    if kind == "run":
        done = run_turn(graphs[name], thread_ids[name],
                        st.session_state.get(f"request-{name}-{ticket_id}") or "")
    elif kind == "resume":
        done = resume_turn(graphs[name], thread_ids[name], context.client)
        if str(done.values.get("outcome") or "").startswith("412"):
            note(tour.MET_412, done.text)
        elif done.kind == "success":
            note(tour.RESUMED, done.text)
        if done.kind != "warning":
            return  # a write or a refusal is said once, on the agent's card

    elif kind == "replan":
        done = replan(graphs[name], thread_ids[name], first_request(name, ticket_id))
    else:  # colleague
        proposals = [graphs[n].get_state({"configurable": {"thread_id": thread_ids[n]}}).values
                     for n in THREADS]
        avoid = [str((v.get("changes") or {}).get("priority")) for v in proposals]
        done = colleague_edit(context.client_as(COLLEAGUE), ticket_id, avoid)
    flash(done.kind, done.text)


def _cards(context: PageContext, ticket: ApiResult, ticket_id: str, history: list[dict],
           graphs: dict, thread_ids: dict[str, str], places: _Places) -> None:
    """Each agent thread's status, the ETag it holds against the ticket's, and the colleague's
    view of the ticket. A refused write is explained here, and only here, with the way out."""
    etags: dict[str, str | None] = {ticket_id: ticket.etag}

    def current_etag(tid: str) -> str | None:
        if tid not in etags:
            etags[tid] = context.client.get_ticket(tid).etag
        return etags[tid]

    for name in THREADS:
        card = thread_card(graphs[name], thread_ids[name], current_etag)
        with places.cards[name]:
            st.markdown(_STATUS.get(card.status, card.status)
                        + (f" on {card.ticket_id}" if card.ticket_id else ""))
            held_col, proposed_col = st.columns(2)
            held_col.metric("ETag it holds", card.held or "-",
                            delta=f"ticket is at {current_etag(card.ticket_id)}" if card.stale
                            else None, delta_color="inverse")
            proposed_col.metric("It proposes",
                                ", ".join(f"{v}" for v in card.proposed.values()) or "-")
            if card.stale:
                st.warning("Stale: someone wrote since it read. Resume will be refused with "
                           "412.", icon=":material/warning:")
            elif card.status == "refused" and card.outcome:
                st.error(md_escape(explain_outcome(card.outcome, card.ticket_id, history, ""),
                                   900) + " " + _RE_PLAN, icon=":material/block:")
            elif card.status == "written" and card.outcome:
                st.caption(f"Last write: {md_escape(card.outcome, 300)}.")

    with places.colleague:
        if ticket.status == 200:
            now_col, priority_col = st.columns(2)
            now_col.metric("Ticket ETag now", ticket.etag or "-")
            priority_col.metric("Priority now", str(ticket.body.get("priority")))
        else:
            st.warning(f"{ticket.status}: {md_escape(ticket.error, 600)}")


def _timeline(rows: tuple[WriteRow, ...], ticket_id: str) -> None:
    """Every write attempt on the ticket: arrows, a table, and the picked row explained."""
    st.subheader(f":material/timeline: Every write attempt on {ticket_id}")
    if not rows:
        st.info("No write attempts yet: run a turn and resume it, or simulate the colleague's "
                "edit.", icon=":material/info:")
        return
    st.caption(
        "Each arrow starts at the version the writer sent as If-Match. Green arrows are writes "
        "the API accepted; red ones end in a refusal; grey dotted ones got a stored answer back "
        "(same Idempotency-Key) and wrote nothing."
    )
    st.graphviz_chart(timeline_dot(rows, ticket_id))
    picked = st.dataframe(
        arrow_rows([{"time": r.clock, "who": r.who, "If-Match sent": r.sent, "answer": r.answer,
                     "result": r.result, "changes": r.changes, "why": r.why} for r in rows]),
        hide_index=True, width="stretch", key=f"timeline-{ticket_id}",
        on_select="rerun", selection_mode="single-row",
        column_config={
            "time": st.column_config.TextColumn(width=100),
            "who": st.column_config.TextColumn(width=135),
            "If-Match sent": st.column_config.TextColumn(width=105),
            "answer": st.column_config.TextColumn(width=100),
            "result": st.column_config.TextColumn(width=80),
            "changes": st.column_config.TextColumn(width=170),
            "why": st.column_config.TextColumn(width="large"),
        },
    )
    chosen = [i for i in picked.selection.rows if i < len(rows)]
    if not chosen:
        # Nothing repeated unasked: a refusal is already said on its agent's card.
        st.caption("Click a row to read its why whole here.")
        return
    row = rows[chosen[0]]
    show = {"refused": st.error, "replayed": st.warning, "written": st.success}.get(
        row.result, st.info)
    show(f"**{row.clock} · {md_escape(row.who, 80)} · {row.result}.** {md_escape(row.why, 900)}",
         icon=":material/block:" if row.result == "refused" else ":material/info:")


def _race(race: RaceResult) -> None:
    """What two resumes of one paused thread at once did: branches, writes, each PATCH."""
    forks_col, writes_col, key_col = st.columns(3)
    forks_col.metric("Branches from the paused checkpoint", len(race.branches))
    writes_col.metric("Writes the API made", len(race.new_writes))
    key_col.metric("Idempotency-Key", "same on both" if race.same_key
                   else ("sent" if race.send_key else "not sent"))
    tree_col, text_col = st.columns([1, 2])
    with tree_col:
        st.graphviz_chart(race.tree_dot)
        st.caption("The thread's checkpoints: the paused one is filled yellow; each resume grew "
                   "its own branch from it.")
    with text_col:
        (st.success if race.forked else st.info)(race.explanation())
        st.dataframe(
            arrow_rows([{"PATCH": i, "If-Match": r.if_match,
                         "Idempotency-Key": r.idempotency_key or "-", "status": r.status,
                         "ETag back": r.etag or "-"} for i, r in enumerate(race.requests, 1)]),
            hide_index=True, width="stretch",
        )
        for line in race.lines:
            st.caption(f"resume() said: {md_escape(line, 600)}")


@page_fragment
def lab(context: PageContext, ticket_id: str) -> None:
    """The agents, the colleague and the timeline: a click here reruns only this.

    Controls are drawn first and the click noted; then it is acted on; then everything it
    changed is drawn in the places the controls left.
    """
    workspace = context.workspace
    flash_box = st.container()
    # The race's thread is on the timeline too: its two resumes are write attempts.
    thread_ids = {name: workspace.thread_id(name) for name in (*THREADS, RACE_THREAD)}
    graphs = {name: context.agent("etag", actor=agent_actor(name)) for name in THREADS}
    places, action = _controls(ticket_id)
    if action is not None:
        _act(context, ticket_id, graphs, thread_ids, action)
    with flash_box:
        show_flash()

    ticket = context.client.get_ticket(ticket_id)
    history = context.client.history(ticket_id) if ticket.status == 200 else []
    _cards(context, ticket, ticket_id, history, graphs, thread_ids, places)
    with places.timeline:
        _timeline(write_timeline(graphs[THREADS[0]], thread_ids, ticket_id, history), ticket_id)


@page_fragment
def race_lab(context: PageContext, ticket_id: str) -> None:
    """One paused thread resumed twice at the same moment, and what that did."""
    workspace = context.workspace
    st.divider()
    st.subheader(":material/call_split: Two resumes of one paused thread, at the same time")
    st.caption(
        f"Thread `{RACE_THREAD}` is emptied, runs turn 1 and pauses before write. Then two "
        "Python threads call resume() on it at the same moment (a double click, or a retry "
        "racing the first try). A barrier holds both PATCHes until both resumes are inside the "
        "write, so they truly overlap."
    )
    key_col, race_col = st.columns([2, 2], vertical_alignment="center")
    send_key = key_col.toggle("Send the Idempotency-Key (the agent always does)", value=True,
                              key="race_send_key")
    if race_col.button("Resume one paused thread twice at once", key="race",
                       icon=":material/bolt:", width="stretch"):
        race = race_resumes(resources.api_url(), workspace.tenant, resources.saver(),
                            resources.checkpoints_target(), workspace.thread_id(RACE_THREAD),
                            ticket_id, send_key=send_key)
        st.session_state[RACE_KEY] = (workspace.room, race)
        writes = len(race.new_writes)
        flash("success" if race.forked else "info",
              f"Two resumes at once: {len(race.branches)} branches from the paused checkpoint, "
              f"{writes} write{'s' if writes != 1 else ''} in the API's history. The details "
              "are below the timeline.")
        st.rerun()  # the whole page: the timeline above shows the race's writes too
    kept = st.session_state.get(RACE_KEY)
    if kept and kept[0] == workspace.room:
        _race(kept[1])


# Two fragments: a click in the lab does not redraw the race, which it cannot change.
lab(context, ticket_id)
race_lab(context, ticket_id)
