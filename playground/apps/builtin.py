"""The ticket agent, registered as an app like any user's graph.

Its graph needs the room's ticket client, so its builder takes whatever holds one (a page's
context, a script's namespace) and never reaches into the pages; everything
else (drawing, schema, History, Sizes, Inspect) goes through :class:`~playground.apps.app.App`
as for any other graph. Its workshop lessons (Agent, Conflicts, Schema, the four-approach
comparison on Sizes) are shown because it is the built-in app.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from playground.agent.graph import build_agent
from playground.agent.turns import write_refused
from playground.apps.app import App

SPEC = "builtin:ticket-agent"
# The write node's outcome when the API took the change: ``priority is high at "v3"`` (the
# ticket's new ETag, quoted as HTTP sends it).
_WRITTEN = re.compile(r' at "([^"]+)"$')


def ticket_agent() -> App:
    """The built-in app: the ticket agent (read -> plan -> pause -> write)."""

    def build(saver, context: Any) -> Any:
        # The pages keep one compiled agent per room themselves (playground.ui.session.graph).
        return build_agent(getattr(context, "client", None), saver)

    return App("ticket-agent", SPEC, build_agent(None, None), build=build, builtin=True,
               description="reads a ticket, plans a change, pauses, writes it with If-Match",
               step_ending=write_ending)


def write_ending(values: Mapping[str, Any]) -> str | None:
    """How the agent's last step ended, in words, from the ``outcome`` its nodes write:
    ``412 refused`` (the API answered a status), ``not written`` (nothing was sent),
    ``written v3`` (the ticket's new version); None for no outcome, or one of another form.

    The values come from a database: the outcome is read as text, and only when it is text.
    """
    outcome = values.get("outcome")
    if not isinstance(outcome, str) or not outcome:
        return None
    if write_refused(outcome):
        status = outcome.partition(":")[0]
        return f"{status} refused" if status.isdigit() else status.strip() or None
    written = _WRITTEN.search(outcome)
    return f"written {written.group(1)}" if written else None
