"""Turn an agent's terse outcome into words a newcomer understands.

Pure functions: the pages and the CLI pass in the outcome text and, for a conflict, the ticket's
audit log from the API.
"""

from __future__ import annotations

import re

_STALE = re.compile(r'^412: ticket is at v(?P<now>\d+), you read "?(?P<read>[^"]*)"?')


RUN_AGAIN = ("Next: run a new turn so the agent re-reads the ticket and plans again from the "
             "current version.")


def explain_outcome(outcome: str | None, ticket_id: str | None, history: list[dict],
                    next_step: str = RUN_AGAIN) -> str:
    """Explain an outcome in one or two plain sentences.

    Args:
        outcome: the state's ``outcome`` value (``412: ticket is at v3, you read "v2"``, ...).
        ticket_id: the ticket the thread works on.
        history: the ticket's accepted writes, oldest first (``GET /tickets/{id}/history``).
        next_step: the way out of a 412, said after it; a page that says it once elsewhere
            (beside the button that does it) passes "".
    """
    if not outcome:
        return "Nothing has happened yet on this thread."
    stale = _STALE.match(outcome)
    if stale:
        now, read = stale["now"], stale["read"]
        writers = [e for e in history if str(e.get("version")) == now]
        who = writers[-1].get("actor", "someone") if writers else "someone else"
        changes = writers[-1].get("changes") if writers else None
        what = f" ({', '.join(f'{k} -> {v}' for k, v in changes.items())})" if changes else ""
        return (
            f"Refused with 412: {who} changed {ticket_id} after the agent read it{what}. "
            f"The agent read {read}; the ticket is now at v{now}. The API kept their edit and "
            "wrote nothing for the agent." + (f" {next_step}" if next_step else "")
        )
    if outcome.startswith("428"):
        return "Refused with 428: the write carried no If-Match, so the API would not risk it."
    if outcome.startswith("404"):
        return f"The API has no ticket {ticket_id} in this workspace."
    if outcome.startswith("not written: no version"):
        return (
            "The agent refused to write: its state holds no version of the ticket, so it cannot "
            "prove nobody changed it since. Run a new turn to read it again."
        )
    if outcome.startswith("could not understand"):
        return outcome[0].upper() + outcome[1:] + "."
    if " at " in outcome and outcome.rsplit(" at ", 1)[1].startswith('"v'):
        return (
            f"Written: {outcome}. The API accepted it because the version the agent read was "
            "still current."
        )
    return outcome
