"""One agent conversation (turn 1 + resume) through the playground vs bare LangGraph.

Both sides use the same embedded ticket API, a SQLite checkpoint file and the same graph shape
(read -> plan -> pause -> write). The playground's side runs as the pages run it: the agent
driven through LangGraph's async API on the process's event loop, on ``AsyncSqliteSaver``. The
baseline is written with LangGraph and urllib3 only (the HTTP library TicketClient uses), sync,
on ``SqliteSaver``: no TicketClient, no planner, no turn helpers. The ratio is the playground's
overhead (goal <= 1.10x).
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import TypedDict

import urllib3
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import resume, start_turn
from playground.event_loop import shared_loop
from playground.runtime.driven import driven
from playground.savers import close_async_saver, open_async_saver, open_saver
from ticket_api.server import start_embedded


class BareState(TypedDict, total=False):
    ticket_id: str
    request: str
    etag: str
    priority: str
    changes: dict
    outcome: str


def _bare_graph(http: urllib3.HTTPConnectionPool, saver: SqliteSaver):
    def read(state):
        response = http.request("GET", f"/tickets/{state['ticket_id']}")
        return {"etag": response.headers["etag"], "priority": response.json()["priority"]}

    def plan(state):
        return {"changes": {"priority": "high"}}

    def write(state):
        response = http.request(
            "PATCH", f"/tickets/{state['ticket_id']}", json=state["changes"],
            headers={**http.headers, "If-Match": state["etag"]},
        )
        return {"etag": response.headers.get("etag"), "outcome": str(response.status)}

    builder = StateGraph(BareState)
    builder.add_node("read", read)
    builder.add_node("plan", plan)
    builder.add_node("write", write)
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_edge("plan", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=saver, interrupt_before=["write"])


def run(conversations: int = 60) -> dict:
    """Time ``conversations`` two-turn conversations each way, interleaved; return medians."""
    with tempfile.TemporaryDirectory() as tmp, start_embedded(None) as api:
        tenant = f"bench-{uuid.uuid4().hex[:6]}"
        ours_times, bare_times = [], []
        with (
            open_saver(Path(tmp) / "bare.sqlite") as bare_saver,
            urllib3.connection_from_url(api.url, headers={"X-Tenant": tenant}) as http,
        ):
            client = TicketClient(api.url, tenant=tenant)
            loop = shared_loop()
            async_saver = loop.run(open_async_saver(Path(tmp) / "ours.sqlite"))
            ours = driven(build_agent(client, async_saver))
            bare = _bare_graph(http, bare_saver)
            for i in range(conversations):
                # Interleaved so that drift on the machine hits both sides alike.
                thread = f"t-{i}"
                started = time.perf_counter()
                start_turn(ours, thread, "raise t7 to high")
                resume(ours, thread)
                ours_times.append(time.perf_counter() - started)

                config = {"configurable": {"thread_id": thread}}
                started = time.perf_counter()
                bare.invoke({"ticket_id": "t7", "request": "raise t7 to high"}, config)
                bare.get_state(config)
                bare.invoke(None, config)
                bare.get_state(config)
                bare_times.append(time.perf_counter() - started)
            client.close()
            loop.run(close_async_saver(async_saver))
    ours_ms = statistics.median(ours_times[5:]) * 1000
    bare_ms = statistics.median(bare_times[5:]) * 1000
    return {
        "name": "agent conversation (turn 1 + resume), median",
        "ours": f"{ours_ms:.2f} ms",
        "baseline_value": f"{bare_ms:.2f} ms",
        "baseline": "bare sync LangGraph + urllib3 on SqliteSaver, same graph shape and API",
        "ratio": round(ours_ms / bare_ms, 3),
        "goal": "<= 1.10x",
    }


if __name__ == "__main__":
    print(run())
