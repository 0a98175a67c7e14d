"""Each browser session's workspace: its own API tenant and its own thread names.

Attendees of a workshop share one server. A workspace is named by a room code that lives in the
URL (``?room=...``): a new visitor gets a fresh random code, so nobody sees anyone else's
tickets or threads, and sharing a link (or typing a room code) joins a workspace on purpose.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import streamlit as st

ROOM_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{2,31}$")


@dataclass(frozen=True)
class Workspace:
    """Where one session's tickets and threads live.

    Attributes:
        room: the room code.
        graph: the graph whose threads these are, when a server runs several graphs of one
            langgraph.json on one database (each keeps its own threads); None otherwise.
    """

    room: str
    graph: str | None = None

    @property
    def _prefix(self) -> str:
        return f"{self.room}/{self.graph}/" if self.graph else f"{self.room}/"

    @property
    def tenant(self) -> str:
        """The API tenant (``X-Tenant``) of this workspace."""
        return f"room-{self.room}"

    def thread_id(self, thread: str) -> str:
        """The checkpoint thread id of a thread name, scoped to this workspace.

        A name that starts with ``/`` names a thread the app wrote itself, outside any room
        (``/abc`` is thread ``abc``), so a user can open their own app's threads. Another
        room's thread can never be named that way: such an id stays inside this room.
        """
        if thread.startswith("/") and thread[1:] and not in_a_room(thread[1:]):
            return thread[1:]
        return f"{self._prefix}{thread}"

    def thread_name(self, thread_id: str) -> str | None:
        """The thread name inside this workspace (``/id`` for a thread outside every room),
        or None for another workspace's thread (or another graph's)."""
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


def current_workspace(graph: str | None = None) -> Workspace:
    """The session's workspace: the room in the URL, or a new private one written into it;
    ``graph`` scopes its threads to one of several graphs the server runs."""
    room = normalize_room(st.query_params.get("room", ""))
    if room is None:
        room = st.session_state.get("room") or secrets.token_hex(5)
        st.query_params["room"] = room
    st.session_state.room = room
    return Workspace(room, graph)
