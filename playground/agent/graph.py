"""The ticket agent's graph: read -> plan -> (pause) -> write."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from playground.agent.client import TicketClient
from playground.agent.nodes import make_nodes
from playground.agent.state import schema_variant

INTERRUPT_BEFORE = ("write",)


def _after_plan(state: dict) -> str:
    # A request the planner did not understand proposes nothing: end the turn without pausing.
    return "write" if state.get("changes") else END


def build_agent(
    client: TicketClient,
    checkpointer: BaseCheckpointSaver | None,
    schema: str = "etag",
) -> CompiledStateGraph:
    """Compile the ticket agent.

    Args:
        client: the ticket API client; held by the nodes, never put in state.
        checkpointer: any LangGraph saver (SqliteSaver, PostgresSaver, InMemorySaver).
        schema: ``etag`` (original), ``version`` (rename) or ``both`` (add-then-remove).

    Returns:
        The compiled graph, paused before ``write`` at the end of every first turn.
    """
    variant = schema_variant(schema)
    nodes = make_nodes(client, variant.version_keys)
    builder = StateGraph(variant.state_type)
    builder.add_node("read", nodes.read)
    builder.add_node("plan", nodes.plan)
    builder.add_node("write", nodes.write)
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_conditional_edges("plan", _after_plan, ["write", END])
    builder.add_edge("write", END)
    # The turn ends after the proposal; the write waits for the user's next message.
    return builder.compile(checkpointer=checkpointer, interrupt_before=list(INTERRUPT_BEFORE))
