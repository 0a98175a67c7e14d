"""Start page: the playground's two uses, the workshop's guided tour, and your own graph."""

from __future__ import annotations

import shlex

import streamlit as st

from playground.access.mode import debugger, opened_place
from playground.lessons.board import REFRESH_S
from playground.lessons.room_records import RoomActivity
from playground.lessons.tour import OWN_GRAPH_TOUR, TICKET_TOUR, TourStep, progress
from playground.ui import resources
from playground.ui.markup import md_code, md_escape
from playground.ui.session import address

app = resources.app()
st.title(":material/history: Time-travel playground")
INTRO = (
    "A LangGraph agent that edits tickets through a REST API, and every checkpoint it keeps, "
    "in plain view. The agent **reads** a ticket, **plans** a change, **pauses**, and on the "
    "next turn **writes** it back with the version it read (`If-Match`). Its state holds only "
    "ids and versions, so a turn can resume in another process, and a stale write gets a "
    "**412** instead of overwriting someone else's edit."
)

_MARK = {"done": ":material/check_circle:", "current": ":material/arrow_circle_right:",
         "ahead": ":material/radio_button_unchecked:"}
_BADGE = {"done": " :green-badge[done]", "current": " :blue-badge[next]", "ahead": ""}


@st.fragment(run_every=REFRESH_S)
def tour(steps: tuple[TourStep, ...]) -> None:
    """Numbered steps, each done, next or still ahead as this room's records say, with a link
    to its page in this room (a link opened in a new tab stays in the room). Read again as
    often as the board redraws, so a step the facilitator marks shows without a reload."""
    room = st.session_state.get("room")
    try:
        activity = resources.room_records().room(room) if room else RoomActivity("")
    except OSError as exc:  # RoomRecordsError: the database is down, locked or full
        st.caption(f":material/error: This room's progress could not be read: "
                   f"{md_escape(exc, 300)}")
        activity = RoomActivity(room or "")
    try:
        focus = resources.room_records().focus()
    except OSError:  # said above, when the room's own records could not be read either
        focus = None
    shown = progress(steps, activity)
    done = sum(1 for item in shown if item.state == "done")
    if focus and focus <= len(steps):
        behind = sum(1 for item in shown[:focus] if item.state != "done")
        st.info(f"The room is on step {focus}, **{steps[focus - 1].title}**: "
                + ("you are there." if not behind else
                   f"you have {behind} step{'s' if behind > 1 else ''} to do up to it."),
                icon=":material/groups:")
    st.progress(done / len(steps))
    st.caption(f"{done} of {len(steps)} steps done in this room, each checked from what the "
               "room did: visiting a page does not count, doing what its step asks does.")
    link = address() or None  # the room (a look from the board stays a look), graph, thread
    for item in shown:
        with st.container(border=True):
            left, right = st.columns([5, 1], vertical_alignment="center")
            here = " :orange-badge[the room is here]" if item.number == focus else ""
            left.markdown(f"{_MARK[item.state]} **{item.number}. {item.step.title}.**"
                          f"{_BADGE[item.state]}{here} {item.step.text}")
            left.caption(("Done: " if item.state == "done" else "Done when ")
                         + f"{item.step.done_when}.")
            right.page_link(f"views/{item.step.page}", label="Open",
                            icon=":material/arrow_forward:", query_params=link)


def debugger_start() -> None:
    """What a debugger has open, and where to begin: no room, no tour."""
    graphs = {} if app.builtin else resources.apps()
    where = resources.place().label
    reading = opened_place()
    st.markdown("A debugger on your machine: no account, no room, and nothing leaves it. "
                "Threads keep the ids you type and your app gave them.")
    with st.container(border=True):
        st.markdown("**Open**")
        if reading:
            st.markdown(f":material/search: {md_escape(reading, 300)}, read-only")
        for graph in graphs.values():
            st.markdown(f":material/account_tree: {md_escape(graph.name, 120)} · "
                        f"{md_escape(graph.spec, 300)}")
        if not graphs:
            st.caption("No graph: start with `--graph path/to/app.py:graph` (or `--config "
                       "langgraph.json`) to run, replay, fork and re-run threads.")
        st.markdown(f":material/database: runs and clones in {md_escape(where, 300)}")
    st.subheader("Where to begin")
    steps = [
        ("inspect.py", "Inspect", "the threads of the database you opened, or of any other, "
         "read-only: the failed ones and why, the tree of each; clone one to work on it"),
        ("history.py", "History", "every checkpoint of a thread: replay, fork with an edit, "
         "re-run on your current code, keep it as a test"),
    ]
    if graphs:
        steps.insert(0 if not reading else 1, ("run.py", "Run", "run the graph, pause it "
                                                "before a node, answer its questions"))
    for file, label, says in steps:
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.markdown(f"**{label}**: {says}.")
        right.page_link(f"views/{file}", label="Open", icon=":material/arrow_forward:",
                        query_params=address() or None)
    command = f"playground threads {shlex.quote(where)} --status failed"
    st.caption(f"From a terminal: {md_code(command, 300)} lists what went wrong.")


if debugger():
    debugger_start()
    st.stop()

if not app.builtin:
    # The page speaks of the graph this server runs; the ticket agent is another server's.
    st.markdown(
        f"This server runs **your graph**, `{app.name}` (`{app.spec}`), on your machine: no "
        "account, and nothing leaves it. Every run checkpoints to the playground's saver, so "
        "each thread can be paused, answered, replayed and forked."
    )
    st.subheader("Debugging your graph")
    tour(OWN_GRAPH_TOUR)
    st.caption("The ticket agent's workshop (412 conflicts, schema renames) runs when the "
               "server is started without --graph: `make run`.")
    st.stop()

st.markdown(INTRO)
st.subheader("Guided tour")
tour(TICKET_TOUR)

st.subheader("Debugging your own app")
st.markdown(
    "Start the playground on your own graph, `playground run --graph path/to/app.py:graph` "
    "(or `--config langgraph.json`), and every page works on it: **Run** runs it with "
    "breakpoints and answers its `interrupt()`s, **History** replays and forks its threads. "
    "**Inspect** opens the checkpoint database of any LangGraph app (a SQLite file or a "
    "Postgres URL) read-only, safely: nothing in it is ever run."
)
st.caption(
    "This browser works in its own room: its own tickets and threads. The room code is in the "
    "sidebar and in the page's address; share it to work together. A page opened without one, "
    "in a new tab or from a bookmark, comes back to this room; Leave room starts a new one."
)
