"""The ticket agent, registered as an app like any user's graph.

Its graph needs the room's ticket client, so its builder takes the page context; everything
else (drawing, schema, History, Sizes, Inspect) goes through :class:`~playground.apps.app.App`
as for any other graph. Its workshop lessons (Agent, Conflicts, Schema, the four-approach
comparison on Sizes) are shown because it is the built-in app.
"""

from __future__ import annotations

from typing import Any

from playground.agent.graph import build_agent
from playground.apps.app import App

SPEC = "builtin:ticket-agent"


def ticket_agent() -> App:
    """The built-in app: the ticket agent (read -> plan -> pause -> write)."""

    def build(saver, context: Any) -> Any:
        # A page context keeps one compiled agent per room (playground.ui.session.agent);
        # anything else (a script, a test) gets one built on the spot.
        if hasattr(context, "agent"):
            return context.agent()
        return build_agent(getattr(context, "client", None), saver)

    return App("ticket-agent", SPEC, build_agent(None, None), build=build, builtin=True,
               description="reads a ticket, plans a change, pauses, writes it with If-Match")
