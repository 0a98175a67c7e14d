"""What every page needs for one run: the workspace, its API client, the app's graph, the thread.

Pages call :func:`page_context` once at the top and get one object; nothing here draws.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from playground.agent.client import TicketClient
from playground.lessons.room_records import NAME
from playground.places.door import is_transient
from playground.places.server_address import ServerError
from playground.runtime.driven import DrivenGraph, RunSettings, driven
from playground.timetravel.limits import ReadStopped
from playground.timetravel.thread_list import ThreadQuery, thread_page
from playground.ui import resources
from playground.ui.markup import md_escape
from playground.ui.workspace import Workspace, current_workspace

THREAD_KEY = "thread_name"
DEFAULT_THREAD = "thread-1"
NAME_KEY = "display-name"  # the name a room's attendee gives the board
VIEW_KEY = "view-read-only"  # this session looks at a room from the board


@dataclass
class PageContext:
    """The workspace, its ticket client, and helpers to build the agent on the shared saver."""

    workspace: Workspace

    @property
    def client(self) -> TicketClient:
        """The agent's client for this workspace (one per server process)."""
        return self.client_as("agent")

    def graph(self, settings: RunSettings | None = None) -> DrivenGraph:
        """The app's graph on the server's saver (for the ticket agent: this room's client),
        driven through its async API, running with ``settings`` (context, configurable)."""
        app = resources.app()
        if app.builtin:  # compiled once per room and kept by the server, as the lessons use it
            return driven(self.agent(), settings)
        return driven(app.graph(resources.saver(), self, resources.store()), settings)

    def agent(self, schema: str = "etag", actor: str | None = None) -> DrivenGraph:
        """The ticket agent compiled on the server's saver for this workspace (its lessons use
        schema variants and other actors than the app's own graph).

        Compiled once per workspace, actor and schema and kept by the server (compiling and a
        new HTTP client on every click were a quarter of a Run turn's CPU).
        """
        return resources.agent(self.workspace.tenant, actor or "agent", schema)

    def client_as(self, actor: str) -> TicketClient:
        """A client of the same workspace acting as ``actor`` (the agent, a colleague); kept
        by the server, so a page never closes it."""
        return resources.client(self.workspace.tenant, actor)

    @property
    def thread(self) -> str:
        """The thread name the session is working on."""
        return st.session_state.get(THREAD_KEY) or DEFAULT_THREAD

    @property
    def thread_id(self) -> str:
        """The current thread's checkpoint id, scoped to the workspace."""
        return self.workspace.thread_id(self.thread)


def page_context() -> PageContext:
    """Set up the run: workspace from the URL, thread from the URL or session, API client."""
    several = len(resources.apps()) > 1
    workspace = current_workspace(resources.selected_name() if several else None)
    if THREAD_KEY not in st.session_state:
        st.session_state[THREAD_KEY] = st.query_params.get("thread") or DEFAULT_THREAD
    if read_only() and st.query_params.get("view") != "read-only":
        # A page reached from another (its address has no view) or a reload of it: the
        # address says the look again, so a reload or a copied link stays read-only too.
        st.query_params["view"] = "read-only"
    if NAME_KEY not in st.session_state and workspace.room and not read_only():
        st.session_state[NAME_KEY] = _kept_name(workspace.room)
    return PageContext(workspace)


def address() -> dict[str, str]:
    """The query a link to another page carries, so the page it opens acts on what this one
    shows: the room (and a look from the board's ``view``), the graph when the server runs
    several, and the thread. app.py writes the same into this page's own address on every
    run, so a reload, a bookmark or a new tab opens it again."""
    query: dict[str, str] = {}
    room = st.session_state.get("room")
    if room:
        query["room"] = room
    if read_only():
        query["view"] = "read-only"
    if len(resources.apps()) > 1:
        query["graph"] = resources.selected_name()
    thread = st.session_state.get(THREAD_KEY) or st.query_params.get("thread")
    if thread:
        query["thread"] = thread
    return query


def _kept_name(room: str) -> str:
    """The name this room last gave the board ("" when none, or when it cannot be read)."""
    try:
        return resources.room_records().room(room).name
    except OSError:  # RoomRecordsError: the page goes on without it
        return ""


def name_room() -> None:
    """Keep the name typed in the sidebar as the room's, for the facilitator's board."""
    note(NAME, " ".join(str(st.session_state.get(NAME_KEY, "")).split()))


def _here() -> tuple[str, str]:
    """The page this run draws and the session's thread: where a result belongs."""
    ctx = get_script_run_ctx()
    return (ctx.page_script_hash if ctx else ""), (
        st.session_state.get(THREAD_KEY) or DEFAULT_THREAD)


def flash(kind: str, text: str) -> None:
    """Keep an action's outcome for :func:`show_flash` to say, once, on this page for this
    thread (in this run, or the one an ``st.rerun()`` starts).

    ``text`` is plain text (it often quotes a database's or an exception's words): it is shown
    escaped, never as markdown.
    """
    st.session_state.flash = (kind, text, *_here())


def read_only() -> bool:
    """Whether this session looks at a room from the facilitator's board: opened with
    ``?view=read-only``, it stays a look on every page it goes to (no page draws an action
    that writes, and the browser's own room is left as it was)."""
    if st.query_params.get("view") == "read-only":
        st.session_state[VIEW_KEY] = True
    return bool(st.session_state.get(VIEW_KEY))


def note(kind: str, detail: str = "") -> None:
    """Record that this session's room did ``kind`` (:mod:`playground.lessons.tour`'s kinds):
    a tour step's check and the board's last action. Called where a page sees the outcome in
    the room's state, never for a click alone. A record that cannot be written costs the page
    nothing: the action itself is done."""
    room = st.session_state.get("room")
    if not room:
        return
    try:
        resources.room_records().record(room, kind, detail)
    except OSError as exc:  # RoomRecordsError: the database is down, locked or full
        logging.getLogger(__name__).warning("room %s: %s not recorded (%s)", room, kind, exc)


def show_flash() -> None:
    """Say the outcome kept by :func:`flash`, in words, where the page wants it: only on the
    page and thread it happened to, and only once (the next run, or another page, does not
    repeat it). A result that is no success is never drawn green: the caller says its kind."""
    kept = st.session_state.pop("flash", None)
    if not kept:
        return
    kind, text, page, thread = kept
    if (page, thread) != _here():
        return  # made on another page or for another thread: not this page's news
    getattr(st, kind if kind in ("success", "error", "warning") else "info")(md_escape(text))


def no_checkpoints_yet(thread: str, then: str = "") -> None:
    """Say that ``thread`` has no checkpoints yet, with a link to the page where runs start.

    ``then`` ends the sentence (", then come back to see its bytes").
    """
    page, name, icon = where_runs_start()
    st.info(f"Thread {md_escape(thread, 200)} has no checkpoints yet: run a turn on the {name} "
            f"page{then}.", icon=":material/info:")
    st.page_link(page, label=f"Open {name}", icon=icon, query_params=address())
    if current_workspace().room is None:
        _newest_threads()


NEWEST_SHOWN = 5


def _newest_threads() -> None:
    """In the debugger, the file's newest threads, one click each: a new tab, a bookmark or
    a restart opens on the default thread, which a developer's file seldom holds."""
    source = resources.own_storage()
    try:
        rows = thread_page(source, ThreadQuery(limit=NEWEST_SHOWN)).rows
    except (*resources.database_errors(), ReadStopped):
        return  # the list is a convenience: the page above has said what matters
    finally:
        source.close()
    if not rows:
        return
    st.caption(f"The newest threads in {md_escape(resources.place().label, 200)}:")
    for row in rows:
        thread_id = row.summary.thread_id  # the app's text: a label shows it escaped
        st.button(md_escape(f"{thread_id} · {row.state.short}", 120), key=f"newest-{thread_id}",
                  on_click=_open_thread, args=(thread_id,), icon=":material/forum:")


def _open_thread(thread_id: str) -> None:
    st.session_state[THREAD_KEY] = thread_id
    st.query_params["thread"] = thread_id


def where_runs_start() -> tuple[str, str, str]:
    """(page file, page name, icon) of the page where this app's runs start: the ticket agent's
    Agent lesson, or Run for any other graph."""
    if resources.app().builtin:
        return "views/agent.py", "Agent", ":material/smart_toy:"
    return "views/run.py", "Run", ":material/play_circle:"


REREADS_KEY = "_database_rereads"
MAX_REREADS = 3  # a moment of another process's write passes in fewer
REREAD_PAUSE_S = 0.2


def show_database_error(exc: BaseException, what: str | None = None,
                        place: str | None = None) -> None:
    """A checkpoint database that went away under the page (a Postgres server down or full, a
    file locked too long), in one line: the next click tries again.

    A moment of another process's write (the user's app writing the file the page reads) is
    not shown in place of the page: the page is read again, and what it drew last stays on
    screen until the new run draws it, with a one-line note. Only when that keeps failing is
    the error shown.

    Args:
        exc: the error.
        what: the line's beginning, as markdown (its database text escaped by the caller);
            by default "The checkpoint database could not be read just now", or nothing for an
            Agent Server's error, which names the server and says whether it will pass.
        place: the place's label when ``what`` names it: the error's own leading label is
            then not said twice.
    """
    rereads = st.session_state.get(REREADS_KEY, 0)
    if is_transient(exc) and rereads < MAX_REREADS:
        st.session_state[REREADS_KEY] = rereads + 1
        st.toast("Another process was writing the checkpoint file: the page shows what it drew "
                 "last and reads it again.", icon=":material/sync:")
        time.sleep(REREAD_PAUSE_S)
        st.rerun()
    st.session_state[REREADS_KEY] = 0
    said = str(exc)
    if place and said.startswith(f"{place}: "):
        said = said[len(place) + 2:]
    if what is None and isinstance(exc, ServerError):
        what = ""  # "<url>: the server refused the request (422: ...)" says it all
    elif what is None:
        what = "The checkpoint database could not be read just now"
    st.error(f"{what}: {md_escape(said, 600)}" if what else md_escape(said, 600),
             icon=":material/error:")


def database_read() -> None:
    """The page was read without a database error: the next transient one may reread it."""
    st.session_state[REREADS_KEY] = 0


def page_fragment(draw: Callable[..., None]) -> Callable[..., None]:
    """``st.fragment`` for the part of a page a click changes.

    A click on a button inside it reruns only that part: not the sidebar, the navigation, or
    the rest of the page, which is most of what a click cost on a busy server. A fragment's
    rerun does not pass through app.py, so database errors are caught here as app.py catches
    them for a whole page. The fragment is called again with the arguments of the page's last
    full run: pass it only what a full run decides (the workspace, a picked ticket), never a
    click.
    """

    @st.fragment
    @functools.wraps(draw)
    def run(*args, **kwargs) -> None:
        try:
            draw(*args, **kwargs)
        except resources.database_errors() as exc:
            show_database_error(exc)
        else:
            database_read()

    return run
