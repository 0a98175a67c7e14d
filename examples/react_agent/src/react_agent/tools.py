"""The agent's one tool: a search over the office handbook (async, as a real client would be)."""

from __future__ import annotations

import asyncio

from langgraph.runtime import get_runtime

from react_agent.context import Context

HANDBOOK = {
    "wifi": "Guest wifi is 'office-guest'; the password is on the kitchen whiteboard.",
    "parking": "Parking is in the basement, level -2; visitors get a ticket at reception.",
    "hours": "The office opens at 7:30 and closes at 20:00 on weekdays.",
    "lunch": "Lunch is served in the canteen from 12:00 to 14:00.",
    "printer": "The printer on floor 2 needs your badge; toner is in the supply room.",
    "badge": "Lost badges are replaced at reception, with an ID card.",
}


async def search_handbook(query: str) -> list[dict[str, str]]:
    """Search the office handbook for entries about the query's words."""
    await asyncio.sleep(0)  # where a real search client would await the network
    limit = get_runtime(Context).context.max_search_results
    words = [w.strip("?.!,'").lower() for w in query.split()]
    words = [w for w in words if len(w) > 3]  # "park" finds "parking"; "the" finds nothing
    found = [{"topic": topic, "entry": text} for topic, text in HANDBOOK.items()
             if any(w in topic or w in text.lower() for w in words)]
    return found[:limit]


TOOLS = [search_handbook]
