"""Which of its two modes a server runs in, as ``playground run`` decided it.

- **workshop**: attendees share one server (every server beyond loopback, ``--workshop``, and
  the ticket agent's lessons): each browser works in a room of its own, with the tour and the
  facilitator's board.
- **debugger**: one person on their own machine, on their own graph, database or Agent Server:
  no room, no tour; a thread's id is the one the person types or the app gave it.
"""

from __future__ import annotations

import os

MODE_ENV = "PLAYGROUND_MODE"  # "debugger" or "workshop", set by `playground run`
DEBUGGER, WORKSHOP = "debugger", "workshop"


def debugger() -> bool:
    """Whether this server is a debugger. A server started otherwise than by ``playground
    run`` (AppTest, a bare ``streamlit run``) keeps the workshop's rooms."""
    return os.environ.get(MODE_ENV) == DEBUGGER

# The place `playground run PLACE` opened in the debugger, read-only (a file, a postgresql://
# URL, an Agent Server's URL): Inspect opens on it. Named by the person who started the server.
OPEN_PLACE_ENV = "PLAYGROUND_OPEN_PLACE"


def opened_place() -> str | None:
    """The place ``playground run PLACE`` opened, or None."""
    return os.environ.get(OPEN_PLACE_ENV) or None
