"""Drawing a compiled graph: nodes, conditional edges, interrupts, the node a thread waits at."""

from __future__ import annotations

import re

from playground.agent.graph import build_agent
from playground.apps.drawing import graph_dot


def _node_attrs(dot: str, node: str) -> str:
    return re.search(rf"\b{node} \[([^\]]*)\]", dot, re.DOTALL).group(1)


def test_agent_graph_shows_nodes_conditional_edges_and_the_interrupt():
    dot = graph_dot(build_agent(None, None)).source

    for node in ("__start__", "read", "plan", "write", "__end__"):
        assert f"\t{node} [" in dot
    assert "write · pause before" in dot  # interrupt_before, in words (no glyph a font lacks)
    assert "⏸" not in dot
    assert re.search(r"plan -> write \[[^\]]*style=dashed", dot)  # conditional edge
    assert re.search(r"read -> plan\s*$", dot, re.MULTILINE)  # plain edge


def test_waiting_node_is_highlighted_by_colour_and_pen_not_shape():
    graph = build_agent(None, None)

    idle = graph_dot(graph).source
    waiting = graph_dot(graph, waiting_at=("write",)).source

    assert "penwidth=3" in _node_attrs(waiting, "write")
    assert "penwidth=3" not in _node_attrs(idle, "write")
    assert "shape" not in _node_attrs(waiting, "write")  # one node shape for every state
