"""Draw a compiled LangGraph graph as DOT, with the nodes a snapshot waits at highlighted.

Highlighting uses colour and pen width only: d3-graphviz (behind ``st.graphviz_chart``) makes a
node invisible when the shape of an existing node id changes between renders.
"""

from __future__ import annotations

from collections.abc import Iterable

import graphviz

START, END = "__start__", "__end__"

_PAUSED_FILL = "#ffd166"
_NODE_FILL = "#e8f1fb"
_TERMINAL_FILL = "#eeeeee"


def graph_dot(
    graph,
    waiting_at: Iterable[str] = (),
    interrupt_before: Iterable[str] | None = None,
) -> graphviz.Digraph:
    """Return the graph's nodes and edges as a ``graphviz.Digraph``.

    Args:
        graph: a compiled graph (anything with ``get_graph()``).
        waiting_at: nodes the selected snapshot will run next; drawn filled and bold.
        interrupt_before: nodes with an interrupt before them (default: the compiled list);
            marked with a pause sign in their label and a dashed incoming edge.

    Conditional edges are dashed and labelled "if"; plain edges are solid.
    """
    drawn = graph.get_graph()
    waiting = set(waiting_at)
    interrupts = set(
        interrupt_before
        if interrupt_before is not None
        else getattr(graph, "interrupt_before_nodes", ()) or ()
    )
    dot = graphviz.Digraph("graph", graph_attr={"rankdir": "TB", "bgcolor": "transparent"})
    dot.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="12")
    dot.attr("edge", fontname="Helvetica", fontsize="10", color="#555555")
    for node_id in drawn.nodes:
        terminal = node_id in (START, END)
        label = {START: "start", END: "end"}.get(node_id, node_id)
        if node_id in interrupts:
            label = f"⏸ {label}"
        dot.node(
            node_id,
            label=label,
            fillcolor=_PAUSED_FILL if node_id in waiting else (
                _TERMINAL_FILL if terminal else _NODE_FILL
            ),
            penwidth="3" if node_id in waiting else "1",
            color="#c77d00" if node_id in waiting else "#5b7fa6",
        )
    for edge in drawn.edges:
        attrs = {"style": "dashed", "label": "if"} if edge.conditional else {}
        if edge.target in interrupts:
            attrs["color"] = "#c77d00"
        dot.edge(edge.source, edge.target, **attrs)
    return dot
