"""The facilitator's board (``/board``): every room active lately, the step each has reached,
its last action, who is stuck, and how many rooms have done each step; it redraws itself.

Open only to the person who started the server: from this machine (no proxy between), or in a
browser that gave the facilitator's key (``playground run --facilitator-key-env NAME``) to the
sign-in page the server serves (``/_playground/board-sign-in``), which keeps it signed in for
the browser's session. Anyone else sees a refusal and nothing about any room. A room's History
opens read-only from here, so the facilitator can look without changing anything.
"""

from __future__ import annotations

import time

import altair as alt
import pandas as pd
import streamlit as st

from playground.lessons.board import REFRESH_S, board
from playground.lessons.tour import OWN_GRAPH_TOUR, TICKET_TOUR
from playground.ui import resources
from playground.ui.access import board_open, facilitator_key
from playground.ui.gate import BOARD_SIGN_IN
from playground.ui.markup import md_escape

HOURS = (1, 3, 8, 24)

st.title(":material/dashboard: Facilitator's board")


def _sign_in() -> None:
    """Where the key is given; nothing about any room is drawn before it is."""
    if facilitator_key() is None:
        st.info("The board shows every room's progress, so it opens only for the person who "
                "started this server, on the machine that runs it (at `127.0.0.1`, not through "
                "a proxy). To open it from another machine or behind the workshop's nginx, "
                "start the server with `--facilitator-key-env NAME`, the key in that variable.",
                icon=":material/lock:")
        st.stop()
    st.info("The board shows every room's progress, so it asks for the facilitator's key, "
            "once for this browser's session.", icon=":material/lock:")
    # The server's own page takes the key (a form Streamlit never sees): it slows wrong keys
    # and gives this browser a cookie no page script can read.
    st.link_button("Sign in as the facilitator", BOARD_SIGN_IN, icon=":material/key:",
                   type="primary")
    st.stop()


def _ago(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds)} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    return f"{seconds / 3600:.1f} h ago"


if not board_open():
    _sign_in()

steps = TICKET_TOUR if resources.app().builtin else OWN_GRAPH_TOUR
NO_STEP = 0


def _move_room() -> None:
    """Mark the step the room is on: every attendee's Start page shows it."""
    picked = st.session_state.get("board-focus", NO_STEP)
    try:
        resources.room_records().set_focus(picked or None)
    except OSError as exc:  # RoomRecordsError
        st.toast(f"Not marked: {md_escape(exc, 300)}", icon=":material/error:")


try:
    focus = resources.room_records().focus()
except OSError:  # RoomRecordsError: said by the board below
    focus = None
st.selectbox("The room is on", [NO_STEP, *range(1, len(steps) + 1)],
             index=focus if focus and focus <= len(steps) else 0, key="board-focus",
             format_func=lambda n: "no step marked" if n == NO_STEP
             else f"{n}. {steps[n - 1].title}", on_change=_move_room,
             help="Every attendee's Start page marks this step, and shows how far they are "
                  "from it.")
hours = st.segmented_control("Rooms active in the last", HOURS, default=3,
                             format_func=lambda h: f"{h} h", key="board-hours") or 3


@st.fragment(run_every=REFRESH_S)
def draw() -> None:
    """The board, read again every few seconds: one read of every room's records."""
    now = time.time()
    try:
        rooms = resources.room_records().rooms(since=now - hours * 3600)
    except OSError as exc:  # RoomRecordsError
        st.error(f"The rooms' records could not be read: {md_escape(exc, 300)}",
                 icon=":material/error:")
        return
    rows, counts = board(rooms, steps, now)
    stuck = [row for row in rows if row.stuck]
    left, middle, right = st.columns(3)
    left.metric("Rooms", len(rows))
    middle.metric("Finished the tour", sum(1 for row in rows if row.done == len(steps)))
    right.metric("Stuck", len(stuck))
    if not rows:
        st.info(f"No room has done anything in the last {hours} h.", icon=":material/info:")
        _stamp()
        return
    for row in stuck:
        st.warning(f"**{md_escape(_who(row), 120)}** is stuck: {md_escape(row.stuck, 300)}",
                   icon=":material/front_hand:")
    st.markdown("**How many rooms have done each step**")
    reached = pd.DataFrame({"step": [f"{n}. {step.title}" for n, step in enumerate(steps, 1)],
                            "rooms": counts})
    st.altair_chart(
        alt.Chart(reached).mark_bar(cornerRadiusEnd=3).encode(
            y=alt.Y("step:N", sort=None, title=None),
            x=alt.X("rooms:Q", title="rooms", scale=alt.Scale(domain=[0, max(1, len(rows))]),
                    axis=alt.Axis(tickMinStep=1, format="d")),
            tooltip=["step", "rooms"])
        + alt.Chart(reached).mark_text(align="left", dx=4).encode(
            y=alt.Y("step:N", sort=None), x="rooms:Q", text="rooms:Q"),
        width="stretch")
    st.caption(md_escape(" · ".join(
        f"{n}. {step.title}: {count}"
        for n, (step, count) in enumerate(zip(steps, counts, strict=True), 1))))
    st.markdown("**Rooms**, newest action first. Open one to see its History, read-only.")
    st.dataframe(
        [{"room": row.room, "who": row.name, "steps done": f"{row.done} of {len(steps)}",
          "next": row.next_step or "finished", "last action": row.last,
          "when": _ago(now - row.last_at), "stuck": row.stuck_reason,
          "open": f"/history?room={row.room}&view=read-only"} for row in rows],
        hide_index=True, width="stretch",
        # The last action gets the room: a failed node's error is its longest line. A stuck
        # room's whole reason is the warning above, so its cell holds the reason alone.
        column_config={"open": st.column_config.LinkColumn("open", display_text="History",
                                                           width="small"),
                       "who": st.column_config.TextColumn(width="small"),
                       "steps done": st.column_config.TextColumn(width="small"),
                       "when": st.column_config.TextColumn(width="small"),
                       "last action": st.column_config.TextColumn(width="medium"),
                       "stuck": st.column_config.TextColumn(width="medium")})
    _stamp()


def _who(row) -> str:
    """A room as the facilitator knows it: its attendee's name and its code."""
    return f"{row.name} ({row.room})" if row.name else row.room


def _stamp() -> None:
    st.caption(f"Redrawn every {REFRESH_S} s · {time.strftime('%H:%M:%S')}")


draw()
