"""Each browser session's workspace: its own API tenant and its own thread names.

Attendees of a workshop share one server; a workspace keeps their tickets and threads apart.
A room code (``?room=...``) lets people share one workspace on purpose.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

import streamlit as st

_ROOM = re.compile(r"^[a-z0-9-]{3,32}$")


@dataclass(frozen=True)
class Workspace:
    """Where one session's tickets and threads live."""

    name: str

    @property
    def tenant(self) -> str:
        """The API tenant (``X-Tenant``) of this workspace."""
        return f"ws-{self.name}"

    def thread_id(self, thread: str) -> str:
        """The checkpoint thread id of a thread name, scoped to this workspace."""
        return f"{self.name}/{thread}"


def current_workspace() -> Workspace:
    """The session's workspace: the room in the URL, or a new private one per session."""
    room = st.query_params.get("room", "").strip().lower()
    if room and _ROOM.match(room):
        return Workspace(f"room-{room}")
    if "workspace" not in st.session_state:
        st.session_state.workspace = uuid.uuid4().hex[:10]
    return Workspace(st.session_state.workspace)
