"""The agent's three nodes: read the ticket, plan a change, write it back with If-Match.

Nodes return only ids, versions and short outcomes. The ticket body they fetch is used and dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.runnables import RunnableConfig

from playground.agent.client import ApiUnavailable, TicketClient
from playground.agent.planner import Plan, understand

NO_VERSION = "not written: no version in state"


def idempotency_key(config: RunnableConfig) -> str:
    """Derive the write's Idempotency-Key from the thread and the checkpoint it resumes from.

    A process that dies after the API accepted the PATCH and before LangGraph saved the write's
    checkpoint resumes from the same checkpoint, so it sends the same key and the API answers with
    the original 200 instead of a false 412. A replay from another checkpoint (a fork) gets a new
    key and is checked against the ticket's current version like any other write.
    """
    configurable = config.get("configurable", {})
    # checkpoint_map[""] is the root graph's checkpoint the running task was scheduled from;
    # checkpoint_id is None inside a task (verified with langgraph 1.2.24).
    checkpoint = (configurable.get("checkpoint_map") or {}).get("") or configurable.get(
        "checkpoint_id", ""
    )
    seed = f"{configurable.get('thread_id', '')}|{checkpoint}"
    return "lg-" + hashlib.sha256(seed.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class AgentNodes:
    """The node functions, bound to a client and to the state keys that hold the version."""

    read: Callable[[dict], dict]
    plan: Callable[[dict], dict]
    write: Callable[[dict, RunnableConfig], dict]


def make_nodes(client: TicketClient, version_keys: tuple[str, ...]) -> AgentNodes:
    """Build the nodes for a schema whose ticket version lives in ``version_keys``."""

    def cleared(outcome: str) -> dict:
        # Clear every version key: one left by an earlier ticket in this thread would let the
        # next write go out with another ticket's ETag.
        return {**dict.fromkeys(version_keys), "priority": None, "outcome": outcome}

    def read(state: dict) -> dict:
        ticket_id = state.get("ticket_id")
        if not ticket_id:
            return cleared("not read: the request names no ticket (such as t7)")
        try:
            result = client.get_ticket(ticket_id)
        except ApiUnavailable as exc:
            return cleared(f"not read: {exc}")
        if result.status != 200:
            return cleared(f"{result.status}: {result.error}")
        return {
            **dict.fromkeys(version_keys, result.etag),
            "priority": result.body.get("priority"),
            "outcome": None,
        }

    def plan(state: dict) -> dict:
        proposal = understand(state.get("request") or "")
        if not isinstance(proposal, Plan):
            return {"changes": {}, "outcome": proposal.reason}
        if state.get("ticket_id") and proposal.ticket_id != state["ticket_id"]:
            return {"changes": {}, "outcome": "could not understand: the request names two tickets"}
        return {"changes": proposal.changes}

    def write(state: dict, config: RunnableConfig) -> dict:
        version = next((state[key] for key in version_keys if state.get(key)), None)
        if not version:
            # Without the version it read, the agent cannot prove nobody changed the ticket since;
            # RFC 6585 section 6 says clients must not count on the server sending 428.
            return {"outcome": NO_VERSION}
        # ApiUnavailable propagates on purpose: the task fails, no checkpoint is written for it,
        # and the thread stays paused before write, ready to resume when the API is back.
        result = client.patch_ticket(
            state["ticket_id"], state.get("changes") or {}, version, idempotency_key(config)
        )
        if result.status != 200:
            return {"outcome": f"{result.status}: {result.error}"}
        summary = ", ".join(f"{key} is {result.body.get(key)}" for key in state["changes"])
        return {
            **dict.fromkeys(version_keys, result.etag),
            "priority": result.body.get("priority"),
            "outcome": f"{summary} at {result.etag}",
        }

    return AgentNodes(read=read, plan=plan, write=write)
