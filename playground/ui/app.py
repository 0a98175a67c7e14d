"""The playground's Streamlit entry point: navigation, and the sidebar every page shares."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from playground.access.mode import DEBUGGER, WORKSHOP, debugger, opened_place
from playground.apps.loader import AppLoadError
from playground.ui import resources
from playground.ui.access import in_the_room
from playground.ui.markup import md_escape
from playground.ui.pages import PAGES, PageEntry
from playground.ui.session import (
    NAME_KEY,
    THREAD_KEY,
    address,
    database_read,
    name_room,
    page_context,
    read_only,
    show_database_error,
)
from playground.ui.workspace import new_room, normalize_room, remember_room

# A file of the package, served by this server: a Material or emoji icon would make every
# browser fetch it from a public font host, and a workshop offline shows a broken icon.
FAVICON = Path(__file__).parent / "assets" / "favicon.png"

# The playground's own few style rules (a file of the package, never text from data).
STYLE = Path(__file__).parent / "assets" / "app.css"

st.set_page_config(page_title="Time-travel playground", page_icon=str(FAVICON), layout="wide")
st.html(f"<style>{STYLE.read_text(encoding='utf-8')}</style>")

# Served beyond this machine, the gate lets in only a browser holding the room's cookie (or
# the server's own person); a page checks again from its own session.
if not in_the_room():
    st.title(":material/lock: Time-travel playground")
    st.info("Sign in: open the room URL that `playground run` printed (it ends in "
            "?token=...), or ask the person who runs this server for it.",
            icon=":material/key:")
    st.stop()


# The graph's pages work for any app; the workshop lessons are about the ticket agent. A server
# started with --graph opens on Run, the built-in one on Start.
try:
    builtin = resources.app().builtin
except AppLoadError as exc:  # the graph's file changed since `playground run` checked it
    st.error(f"The graph does not load: {md_escape(exc, 2000)}", icon=":material/error:")
    st.caption("Fix the file and reload this page.")
    st.stop()
mode = DEBUGGER if debugger() else WORKSHOP
# A look at a room from the facilitator's board lists only the pages that draw no action that
# writes; the others stay reachable by address and say so instead of drawing (below).
viewing = mode == WORKSHOP and read_only()
def _page(entry: PageEntry) -> st.Page:
    hidden = entry.hidden or (viewing and not entry.looks)
    # The root address is home.py's, which sends the browser on to the page the server opens
    # on (pages.opening_page) at its own address: so every page has one, and a bookmark works.
    return st.Page(entry.path, title=entry.title, icon=entry.icon, url_path=entry.url_path,
                   default=entry.file == "home.py",
                   visibility="hidden" if hidden else "visible")


listed = {entry.file: _page(entry) for entry in PAGES if entry.shown(resources.app(), mode)}
pages: dict[str, list[st.Page]] = {}
for entry in PAGES:
    if entry.file in listed:
        pages.setdefault(entry.section, []).append(listed[entry.file])
start, history_page = listed["start.py"], listed["history.py"]
run_page = listed.get("run.py")
board = listed.get("board.py")
navigation = st.navigation(pages)


SIDEBAR_THREAD_KEY = "sidebar-thread"


def _pick_graph() -> None:
    st.session_state[resources.GRAPH_KEY] = st.session_state["graph-picker"]
    st.query_params["graph"] = st.session_state["graph-picker"]
    st.session_state.pop(THREAD_KEY, None)  # each graph has its own threads


def _sidebar_thread() -> str:
    """The sidebar's Thread box: the session's thread, typed over to open another.

    The box has a key of its own, copied from the session's thread on every run: the thread
    outlives the box, which pages with a picker of their own do not draw (a widget's key is
    dropped by Streamlit on a run that does not draw it)."""
    st.session_state[SIDEBAR_THREAD_KEY] = st.session_state.get(THREAD_KEY) or context.thread
    return st.text_input(
        "Thread", key=SIDEBAR_THREAD_KEY, on_change=_typed_thread,
        help="A conversation with the graph; each has its own history. Start with / to open "
        "a thread the app wrote itself (/abc is thread abc).")


def _typed_thread() -> None:
    st.session_state[THREAD_KEY] = st.session_state[SIDEBAR_THREAD_KEY]


def _enter(room: str) -> None:
    """Go to ``room``: its tickets and threads, not this one's."""
    st.query_params["room"] = room
    st.session_state.room = room
    st.session_state.pop("flash", None)
    st.rerun()


def _debugger_says() -> None:
    """The sidebar's one line on the mode: a debugger, on what, with ids as they are."""
    st.caption("Debugger")
    if not builtin:
        names = ", ".join(resources.apps())
        st.markdown(f":material/bug_report: **{md_escape(names, 120)}**")
    if opened_place():
        st.caption(f"Reading {md_escape(opened_place(), 200)}, read-only.")
    st.caption(f"Runs and clones in {md_escape(resources.place().label, 200)}. Threads keep "
               "the ids you type and your app gave them.")


def _room_controls(room: str) -> None:
    """The sidebar's room: its code, a name for the board, joining another, leaving."""
    st.caption("Workshop")
    st.markdown(f"Room code **`{room}`**")
    st.caption("Share the page's link, or the code, to work in the same room.")
    st.text_input("Your name", key=NAME_KEY, max_chars=40, on_change=name_room,
                  placeholder="optional", help="Shown on the facilitator's board beside this "
                  "room's progress, so they know whom to help.")
    # One above the other: side by side, the sidebar cuts both labels short.
    with st.popover("Join a room", icon=":material/group_add:", width="stretch"):
        code = st.text_input("Room code", key="join_room", placeholder="e.g. monday-class")
        if st.button("Join", key="join_room_button"):
            joined = normalize_room(code)
            if joined is None:
                st.error("A room code is 3 to 32 letters, digits or dashes.")
            else:
                _enter(joined)
    if st.button("Leave room", icon=":material/logout:", key="leave_room", width="stretch",
                 help="Start a fresh private room; this one stays where it is, and its link or "
                 "code brings you back."):
        _enter(new_room())
    # This browser goes back to this room when a page is opened without one.
    remember_room(room)


def _looking_at(room: str) -> None:
    """The sidebar of a look at a room from the board: which room, and nothing that acts."""
    st.caption("Workshop")
    st.markdown(f"Room **`{room}`**, read-only")
    st.caption(":material/visibility: Opened from the facilitator's board: nothing here "
               "writes to this room, and this browser's own room stays as it was.")
    st.page_link(board, label="Back to the board", icon=":material/dashboard:")


# The board is the facilitator's: no room of theirs is made or kept there, and nothing of an
# attendee's sidebar is drawn.
on_board = navigation is board
names = list(resources.apps())
UNKNOWN_GRAPH_KEY = "unknown-graph"
unknown = None if on_board else resources.unknown_graph()
if unknown is not None:  # said once, on the page drawn (the root address moves on to one)
    st.session_state[UNKNOWN_GRAPH_KEY] = unknown
    if len(names) == 1:
        st.query_params.pop("graph", None)
if navigation is not listed["home.py"] and UNKNOWN_GRAPH_KEY in st.session_state:
    asked = st.session_state.pop(UNKNOWN_GRAPH_KEY)  # typed or bookmarked: shown escaped
    st.warning(f"This server runs no graph named {md_escape(asked, 80)}: the page shows "
               f"{md_escape(resources.selected_name(), 80)}.", icon=":material/warning:")
with st.sidebar:
    if len(names) > 1 and not on_board:
        # Several graphs of one langgraph.json: each keeps its own threads. The box shows the
        # session's graph (resources.selected_name), whichever way it came: the address, a
        # pick, a link. The address says it on every run: a sidebar link's holds no query, and
        # a reload, a bookmark or a new tab must open the same graph.
        current = resources.selected_name()
        st.session_state["graph-picker"] = current
        st.selectbox("Graph", names, key="graph-picker", on_change=_pick_graph,
                     help="The graphs the langgraph.json names; each has its own threads.")
        if st.query_params.get("graph") != current:
            st.query_params["graph"] = current
if on_board:
    navigation.run()
    st.stop()
context = page_context()
app_now = resources.app()
reloads, notice = resources.reload_notice()
if st.session_state.setdefault("seen-reloads", reloads) != reloads:
    # The graph's files changed and it was imported again (hot reload): a session that was
    # open before hears it once; every page's sidebar keeps the last one.
    st.session_state["seen-reloads"] = reloads
    st.toast(notice, icon=":material/refresh:")
if notice:
    st.sidebar.caption(f":material/refresh: {md_escape(notice)}")
for warning in app_now.warnings:
    st.sidebar.caption(f":material/warning: {md_escape(warning)}")
with st.sidebar:
    if mode == DEBUGGER:
        _debugger_says()
    elif viewing:
        _looking_at(context.workspace.room)
    else:
        _room_controls(context.workspace.room)
    # Run and Inspect have Thread pickers of their own (Run's threads and New thread; the
    # opened database's threads): one control for one choice, so the sidebar's stays off there.
    own_picker = navigation in (run_page, listed.get("inspect.py"))
    thread = None if own_picker else _sidebar_thread()
    if navigation is run_page:  # Run's own picker and New thread move the session's thread
        thread = st.session_state.get(THREAD_KEY) or context.thread
    if thread and st.query_params.get("thread") != thread:
        st.query_params["thread"] = thread  # deep links carry the thread

if viewing and navigation not in (start, history_page):
    # Reached by its address in a look from the board: this page acts on the room.
    st.title(":material/visibility: Read-only")
    st.info("From the facilitator's board a room is only looked at: this page acts on it, so "
            "it is not drawn here. The room's History and its tour are.",
            icon=":material/visibility:")
    st.page_link(history_page, label="The room's History", icon=":material/account_tree:",
                 query_params=address())
    st.stop()

try:
    navigation.run()
except resources.database_errors() as exc:
    show_database_error(exc)
else:
    database_read()
