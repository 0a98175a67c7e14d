"""The ticket agent, registered as an app like any user's graph.

Its graph needs the room's ticket client, so its builder takes whatever holds one (a page's
context, a script's namespace) and never reaches into the pages; everything
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
        # The pages keep one compiled agent per room themselves (playground.ui.session.graph).
        return build_agent(getattr(context, "client", None), saver)

    return App("ticket-agent", SPEC, build_agent(None, None), build=build, builtin=True,
               description="reads a ticket, plans a change, pauses, writes it with If-Match")
