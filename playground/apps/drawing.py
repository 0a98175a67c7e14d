"""Draw a compiled LangGraph graph as DOT: its nodes, conditional edges, subgraphs and breakpoints,
with the node that runs, the nodes a thread waits at and a node that failed highlighted.

Highlighting uses colour and pen width only: d3-graphviz (behind ``st.graphviz_chart``) makes a
node invisible when the shape of an existing node id changes between renders (docs/architecture.md).

With ``xray`` the subgraphs' own nodes are drawn inside a dashed box named after the subgraph
node (LangGraph's ``get_graph(xray=1)`` names them ``subgraph:node``, drawn as ``subgraph/node``);
without it a subgraph is one node marked ``▸``.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable

import graphviz

START, END = "__start__", "__end__"

_PAUSED_FILL = "#ffd166"
_RUNNING_FILL = "#b9e4c9"
_FAILED_FILL = "#f8c4c4"
_NODE_FILL = "#e8f1fb"
_TERMINAL_FILL = "#eeeeee"


def _dot_id(node_id: str) -> str:
    # graphviz reads "a:b" in an edge as node a, port b: a subgraph's node is drawn as "a/b",
    # the name a run gives it too.
    return node_id.replace(":", "/")


def _drawn(name: str, ids: set[str]) -> set[str]:
    """The drawn ids that stand for a node named ``a`` or ``a/b`` (a subgraph's node): itself,
    else its subgraph's node, else (a subgraph drawn open) every node inside it."""
    if name in ids:
        return {name}
    outer = name.split("/", 1)[0]
    if outer in ids:
        return {outer}
    return {node_id for node_id in ids if node_id.startswith(f"{name}/")}


def _subgraph_names(graph) -> set[str]:
    try:
        return {name.split("|", 1)[0] for name, _ in graph.get_subgraphs()}
    except Exception:  # a graph type without subgraph support
        return set()


def graph_dot(graph, waiting_at: Iterable[str] = (), interrupt_before: Iterable[str] | None = None,
              **options) -> graphviz.Digraph:
    """:func:`draw_graph`, remembered for the same graph and highlights (pages redraw the same
    picture on most reruns, and building it walks the whole compiled graph)."""
    before = None if interrupt_before is None else tuple(interrupt_before)
    key = tuple(sorted((k, tuple(v) if isinstance(v, (list, set)) else v)
                       for k, v in options.items()))
    return _remembered(graph, tuple(waiting_at), before, key)


@functools.lru_cache(maxsize=256)
def _remembered(graph, waiting_at: tuple, interrupt_before: tuple | None,
                options: tuple) -> graphviz.Digraph:
    return draw_graph(graph, waiting_at, interrupt_before, **dict(options))


def draw_graph(
    graph,
    waiting_at: Iterable[str] = (),
    interrupt_before: Iterable[str] | None = None,
    *,
    interrupt_after: Iterable[str] = (),
    xray: bool = False,
    running: str | None = None,
    failed: str | None = None,
) -> graphviz.Digraph:
    """Return the graph's nodes and edges as a ``graphviz.Digraph``.

    Args:
        graph: a compiled graph (anything with ``get_graph()``).
        waiting_at: nodes the thread will run next; drawn filled amber and bold.
        interrupt_before: nodes with a breakpoint before them (default: the compiled list);
            marked "pause before" after the name, with an amber incoming edge.
        interrupt_after: nodes with a breakpoint after them; marked "pause after".
        xray: draw the nodes inside subgraphs.
        running: the node running now (``sub/node`` for a subgraph's node); drawn green.
        failed: the node that raised; drawn red.

    Conditional edges are dashed; plain edges are solid.
    """
    drawn = graph.get_graph(xray=1 if xray else 0)
    ids = {_dot_id(node_id) for node_id in drawn.nodes}
    waiting = {d for n in waiting_at for d in _drawn(n, ids)}
    now = _drawn(running, ids) if running else set()
    broken = _drawn(failed, ids) if failed else set()
    before = set(interrupt_before if interrupt_before is not None
                 else getattr(graph, "interrupt_before_nodes", ()) or ())
    after = set(interrupt_after) | set(getattr(graph, "interrupt_after_nodes", ()) or ())
    subgraphs = _subgraph_names(graph) if not xray else set()
    dot = graphviz.Digraph("graph", graph_attr={"rankdir": "TB", "bgcolor": "transparent"})
    dot.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="12")
    dot.attr("edge", fontname="Helvetica", fontsize="10", color="#555555")
    clusters: dict[str, list[str]] = defaultdict(list)
    for node_id in map(_dot_id, drawn.nodes):
        prefix, sep, _ = node_id.rpartition("/")
        (clusters[prefix] if sep else clusters[""]).append(node_id)
    for prefix, members in clusters.items():
        target = dot
        if prefix:
            target = graphviz.Digraph(name=f"cluster_{prefix}", graph_attr={
                # Its name alone, at the box's top right: edges enter near the top middle,
                # and a name as wide as the box was crossed by them. (The Run page's caption
                # says a dashed box is a subgraph.)
                "label": prefix.rpartition("/")[2], "labeljust": "r", "style": "dashed,rounded",
                "color": "#8a8a8a",
                "fontname": "Helvetica", "fontsize": "11"})
        for node_id in members:
            _node(target, node_id, node_id in waiting, node_id in now, node_id in broken,
                  node_id in before, node_id in after, node_id in subgraphs)
        if prefix:
            dot.subgraph(target)
    for edge in drawn.edges:
        # Dashed, with no label: an "if" on each was drawn over other edges; the Run page's
        # caption says what a dashed arrow is.
        attrs = {"style": "dashed"} if edge.conditional else {}
        if edge.target in before:
            attrs["color"] = "#c77d00"
        dot.edge(_dot_id(edge.source), _dot_id(edge.target), **attrs)
    return dot


def _node(dot: graphviz.Digraph, node_id: str, waiting: bool, running: bool, failed: bool,
          pause_before: bool, pause_after: bool, subgraph: bool) -> None:
    terminal = node_id in (START, END)
    label = {START: "start", END: "end"}.get(node_id, node_id.rpartition("/")[2])
    if subgraph:
        label = f"{label} ▸"
    # Words, not a pause symbol: a machine without a font for U+23F8 draws it as an empty box.
    if pause_before:
        label = f"{label} · pause before"
    if pause_after:
        label = f"{label} · pause after"
    if failed:
        fill, pen, width = _FAILED_FILL, "#c62828", "3"
    elif running:
        fill, pen, width = _RUNNING_FILL, "#2e7d32", "3"
    elif waiting:
        fill, pen, width = _PAUSED_FILL, "#c77d00", "3"
    else:
        fill, pen, width = (_TERMINAL_FILL if terminal else _NODE_FILL), "#5b7fa6", "1"
    dot.node(node_id, label=label, fillcolor=fill, penwidth=width, color=pen)
