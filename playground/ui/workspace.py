"""Each browser session's workspace: its own API tenant and its own thread names.

The playground runs in one of two modes, which ``playground run`` decides and says once
(:data:`MODE_ENV`):

- **workshop**: attendees share one server (every server beyond loopback, ``--workshop``, and
  the ticket agent's lessons). A workspace is named by a room code that lives in the URL
  (``?room=...``): a new visitor gets a fresh random code, so nobody sees anyone else's tickets
  or threads, and sharing a link (or typing a room code) joins a workspace on purpose.
- **debugger**: one person on their own machine, on their own graph or database. There is no
  room: a thread's id is the one the person types or the app gave it, in the file, the CLI,
  the pages and exported tests.

The browser keeps the room it is in (a cookie, :data:`ROOM_COOKIE`, written by the page itself:
:func:`remember_room`), so a page opened without a room, in a new tab or from a bookmark, goes
back to it; the server keeps nothing of it. Leave room starts a fresh one on purpose.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import streamlit as st

from playground.access.mode import debugger

ROOM_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{2,31}$")
@dataclass(frozen=True)
class Workspace:
    """Where one session's tickets and threads live.

    Attributes:
        room: the room code; None in the debugger, where threads keep their own ids.
        graph: the graph whose threads these are, when a workshop runs several graphs of one
            langgraph.json on one database (each keeps its own threads); None otherwise.
    """

    room: str | None
    graph: str | None = None

    @property
    def _prefix(self) -> str:
        if self.room is None:
            return ""
        return f"{self.room}/{self.graph}/" if self.graph else f"{self.room}/"

    @property
    def tenant(self) -> str:
        """The API tenant (``X-Tenant``) of this workspace."""
        return f"room-{self.room}" if self.room else "debugger"

    def thread_id(self, thread: str) -> str:
        """The checkpoint thread id of a thread name, scoped to this workspace.

        In the debugger the name is the id (``/abc``, a room's way of naming an id, is ``abc``
        there too, so an older link still opens it). In a room, a name that starts with ``/``
        names a thread the app wrote itself, outside any room (``/abc`` is thread ``abc``), so
        a user can open their own app's threads. Another room's thread can never be named that
        way: such an id stays inside this room.
        """
        if self.room is None:
            return thread[1:] if thread.startswith("/") and thread[1:] else thread
        if thread.startswith("/") and thread[1:] and not in_a_room(thread[1:]):
            return thread[1:]
        return f"{self._prefix}{thread}"

    def thread_name(self, thread_id: str) -> str | None:
        """The thread name inside this workspace (the id itself in the debugger; in a room
        ``/id`` for a thread outside every room), or None for another workspace's thread (or
        another graph's)."""
        if self.room is None:
            return thread_id
        if thread_id.startswith(self._prefix):
            return thread_id[len(self._prefix):]
        return None if in_a_room(thread_id) else f"/{thread_id}"


def in_a_room(thread_id: str) -> bool:
    """True for an id the playground made in some room (``room/name``)."""
    room, sep, _ = thread_id.partition("/")
    return bool(sep) and bool(ROOM_PATTERN.match(room))


def normalize_room(code: str) -> str | None:
    """A room code as stored (lower case), or None when it is not a valid code."""
    code = code.strip().lower()
    return code if ROOM_PATTERN.match(code) else None


def _remembered_room() -> str | None:
    """The room this browser was last in (its cookie), when it is a room code."""
    try:
        kept = st.context.cookies.get(ROOM_COOKIE)
    except (AttributeError, RuntimeError):  # no browser behind this run (bare mode)
        return None
    return normalize_room(kept) if isinstance(kept, str) else None


def current_workspace(graph: str | None = None) -> Workspace:
    """The session's workspace. In the debugger, the one without a room. In a workshop, the
    room in the URL; else this session's, or the one this browser was last in, or a new
    private one, written into the URL. ``graph`` scopes a room's threads to one of several
    graphs the server runs."""
    if debugger():
        st.session_state.room = None
        return Workspace(None)
    room = normalize_room(st.query_params.get("room", ""))
    if room is None:
        room = st.session_state.get("room") or _remembered_room() or new_room()
        st.query_params["room"] = room
    st.session_state.room = room
    return Workspace(room, graph)


def new_room() -> str:
    """A fresh private room code."""
    return secrets.token_hex(5)


ROOM_COOKIE = "playground_room"
# Writes the room into the browser's cookie when it is not there already. The code is checked
# against the room pattern here too, and only ever set as the cookie's value.
_REMEMBER = st.components.v2.component(
    "remember_room",
    js="""export default function ({ data }) {
  const room = data && data.room;
  if (typeof room !== "string" || !/^[a-z0-9][a-z0-9-]{2,31}$/.test(room)) return;
  const kept = `${data.cookie}=${room}`;
  if (!document.cookie.split("; ").includes(kept)) {
    document.cookie = `${kept}; path=/; max-age=31536000; SameSite=Lax`;
  }
}""",
)


def remember_room(room: str) -> None:
    """Have the browser keep ``room`` (drawn once per page run; it shows nothing)."""
    _REMEMBER(data={"room": room, "cookie": ROOM_COOKIE}, key="remember-room")
