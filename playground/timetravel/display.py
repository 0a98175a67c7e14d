"""A checkpoint tree folded for Graphviz: ``playground history --dot`` and the race lesson's
picture. (The pages draw a thread's history as a git graph: :mod:`.tree_layout`.)

Past about 200 nodes a drawn tree is unreadable (Streamlit scales it to the page width, with no
zoom). The view therefore keeps every checkpoint that carries meaning (roots, forks, the first
checkpoint of each branch, leaves, the head, the selection, paused ones) and folds each linear run
between them into one node ("... 37 steps"; ``expanded`` unfolds one). If that is still too many,
the view draws the most relevant nodes and one summary node for the rest.

Highlights use colour and pen width, never shape: d3-graphviz hides a node whose shape changes
under the same id. Each kind of node also carries its shape in its id prefix (``cp_``, ``run_``,
``more_``), so one id never changes shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from playground.timetravel.signals import TaskSignal
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, ensure_details

MAX_DRAWN = 200
MIN_RUN = 3
FOLD_ABOVE = 40  # a tree this small is read best whole

_COLOURS = {
    "input": "#e3f2fd",
    "loop": "#f5f5f5",
    "update": "#ede7f6",
    "fork": "#e8f5e9",
}
_HEAD_PEN = "#d1495b"
_ERROR_FILL = "#f8c4c4"
_QUESTION_CHARS = 36
_SELECTED_FILL = "#ffd166"
_PAUSED_PEN = "#c77d00"
_BROKEN_PEN = "#7a4cc2"


@dataclass(frozen=True)
class DrawnNode:
    """One node of the view: a checkpoint, a folded run, or the summary of what is not drawn."""

    node_id: str
    kind: str  # "checkpoint" | "run" | "more"
    label: str
    members: tuple[str, ...]  # checkpoint ids it stands for
    is_head: bool = False
    is_selected: bool = False
    is_paused: bool = False
    source: str | None = None
    has_error: bool = False
    broken: bool = False


@dataclass(frozen=True)
class TreeView:
    """What to draw: nodes, edges (by node id), and how much was folded away."""

    nodes: tuple[DrawnNode, ...]
    edges: tuple[tuple[str, str], ...]
    total_checkpoints: int
    folded_runs: int
    hidden: int

    def node_for(self, checkpoint_id: str) -> DrawnNode | None:
        """The drawn node that stands for a checkpoint (itself, its run, or the summary)."""
        for node in self.nodes:
            if checkpoint_id in node.members:
                return node
        return None


def run_id(first: str, last: str) -> str:
    """The stable id of a folded run, used to expand it."""
    return f"run_{first}_{last}"


def _key_checkpoints(tree: CheckpointTree, selected: str | None, max_drawn: int) -> set[str]:
    keys = set(tree.roots) | set(tree.paused) | {tree.head} | set(tree.signals) | set(tree.broken)
    inputs = [cid for cid, record in tree.nodes.items() if record.source == "input"]
    if len(inputs) * 4 <= max_drawn:
        keys.update(inputs)  # turn boundaries, while there are few enough to read
    if selected in tree.nodes:
        keys.add(selected)
    for cid, kids in tree.children.items():
        if len(kids) != 1:  # forks and leaves
            keys.add(cid)
        if len(kids) > 1:
            keys.update(kids)  # the first checkpoint of each branch stays visible
    return keys


def _label(tree: CheckpointTree, cid: str) -> str:
    record, detail = tree.nodes[cid], tree.details.get(cid)
    who = (", ".join(detail.writers) if detail else "") or record.source or "?"
    if who == "__start__":
        who = "input applied"
    waits = f"\n→ {', '.join(detail.next)}" if detail and detail.next else ""
    notes = "".join(f"\n{_note(signal)}" for signal in tree.signals.get(cid, ())
                    if signal.kind != "answer")
    if detail and detail.problem:
        notes += "\n(blob not readable)"
    if cid in tree.broken:
        notes += "\n⚠ broken parent link"
    return f"#{tree.ordinal(cid)} {who}\nstep {record.step}{waits}{notes}"


def _note(signal: TaskSignal) -> str:
    text = signal.text
    if len(text) > _QUESTION_CHARS:
        text = text[: _QUESTION_CHARS - 1] + "…"
    return f"? {text}" if signal.kind == "interrupt" else f"✗ {signal.node or 'run'} failed"


def tree_view(
    tree: CheckpointTree,
    selected: str | None = None,
    expanded: Iterable[str] = (),
    max_drawn: int = MAX_DRAWN,
    storage: Storage | None = None,
) -> TreeView:
    """Fold a tree into at most about ``max_drawn`` drawn nodes.

    Args:
        tree: the thread's tree.
        selected: the checkpoint the user is looking at (always drawn on its own).
        expanded: ids of runs (see :func:`run_id`) the user unfolded.
        max_drawn: cap on drawn nodes; the rest is summarized in one node.
        storage: when given, the drawn checkpoints' blobs are decoded for their labels
            (who wrote them, what runs next); without it labels show source and step only.
    """
    keys = _key_checkpoints(tree, selected, max_drawn)
    expanded = set(expanded)
    # Walk each chain of non-key checkpoints; fold it when long enough and not expanded.
    stand_for: dict[str, str] = {}
    drawn: dict[str, DrawnNode] = {}
    folded = 0
    for cid in tree.nodes:
        if cid in stand_for:
            continue
        if cid in keys:
            stand_for[cid] = f"cp_{cid}"
            continue
        parent = tree.parent_of(cid)
        if parent is not None and parent not in keys:
            continue  # reached from the start of its chain
        chain = [cid]
        while True:
            kids = tree.children.get(chain[-1], ())
            if len(kids) != 1 or kids[0] in keys:
                break
            chain.append(kids[0])
        rid = run_id(chain[0], chain[-1])
        if len(tree) > FOLD_ABOVE and len(chain) >= MIN_RUN and rid not in expanded:
            folded += 1
            for member in chain:
                stand_for[member] = rid
            first, last = tree.ordinal(chain[0]), tree.ordinal(chain[-1])
            drawn[rid] = DrawnNode(
                rid, "run", f"… {len(chain)} steps\n#{first}–#{last}", tuple(chain)
            )
        else:
            for member in chain:
                stand_for[member] = f"cp_{member}"
    if storage is not None:
        ensure_details(storage, tree, [c for c, n in stand_for.items() if n.startswith("cp_")])
    for cid, node_id in stand_for.items():
        if node_id.startswith("cp_"):
            drawn[node_id] = DrawnNode(
                node_id,
                "checkpoint",
                _label(tree, cid),
                (cid,),
                is_head=cid == tree.head,
                is_selected=cid == selected,
                is_paused=cid in tree.paused,
                source=tree.nodes[cid].source,
                has_error=any(s.kind == "error" for s in tree.signals.get(cid, ())),
                broken=cid in tree.broken,
            )
    edges = []
    for cid, _record in tree.nodes.items():
        parent = tree.parent_of(cid)
        if parent is None:
            continue
        a, b = stand_for[parent], stand_for[cid]
        if a != b:
            edges.append((a, b))
    hidden = 0
    if len(drawn) > max_drawn:
        drawn, edges, hidden = _cap(tree, drawn, edges, stand_for, selected, max_drawn)
    order = {node_id: i for i, node_id in enumerate(stand_for[c] for c in tree.nodes)}
    nodes = tuple(sorted(drawn.values(), key=lambda n: order.get(n.node_id, len(order))))
    return TreeView(nodes, tuple(dict.fromkeys(edges)), len(tree), folded, hidden)


def _cap(tree, drawn, edges, stand_for, selected, max_drawn):
    """Keep the head's and the selection's branches (nearest first) and the newest other nodes;
    summarize the rest in one node."""
    keep: list[str] = []
    if selected in tree.nodes:
        keep.append(stand_for[selected])
    for cid in reversed(tree.current_branch):
        keep.append(stand_for[cid])
    for cid in reversed(tree.path_to(selected) if selected in tree.nodes else ()):
        keep.append(stand_for[cid])
    for cid in reversed(list(tree.nodes)):
        keep.append(stand_for[cid])
    kept = list(dict.fromkeys(keep))[: max_drawn - 1]
    kept_set = set(kept)
    members_hidden = tuple(c for c in tree.nodes if stand_for[c] not in kept_set)
    summary = DrawnNode(
        "more_hidden", "more", f"{len(members_hidden)} more checkpoints\nnot drawn", members_hidden
    )
    new_drawn = {node_id: drawn[node_id] for node_id in kept}
    new_drawn[summary.node_id] = summary
    new_edges = []
    for a, b in edges:
        a2 = a if a in kept_set else summary.node_id
        b2 = b if b in kept_set else summary.node_id
        if a2 != b2:
            new_edges.append((a2, b2))
    return new_drawn, new_edges, len(members_hidden)


def dot_safe(text: str) -> str:
    """Text from a database made safe inside a DOT string: backslashes doubled.

    The graphviz package quotes a string and escapes its ``"``, but leaves backslashes as they
    are (DOT's own escapes): a checkpoint id ending in ``\\`` would escape the closing quote
    and blank the whole chart. (Each text put in DOT here starts with a fixed prefix, so none
    reads as a ``<...>`` HTML label either.)
    """
    return text.replace("\\", "\\\\")


def view_dot(view: TreeView):
    """Render a :class:`TreeView` as DOT (a ``graphviz.Digraph``), oldest at the top.

    Every id, label and tooltip holds database text: each goes through :func:`dot_safe`.
    """
    import graphviz  # only for drawing: the CLI's other commands never load it

    dot = graphviz.Digraph("checkpoints", graph_attr={"rankdir": "TB", "bgcolor": "transparent",
                                                      "nodesep": "0.25", "ranksep": "0.3"})
    dot.attr("node", fontname="Helvetica", fontsize="10", style="filled", color="#888888")
    dot.attr("edge", color="#999999", arrowsize="0.6")
    for node in view.nodes:
        if node.kind == "checkpoint":
            fill = _SELECTED_FILL if node.is_selected else (
                _ERROR_FILL if node.has_error else _COLOURS.get(node.source or "", "#fff"))
            pen = _HEAD_PEN if node.is_head else (_PAUSED_PEN if node.is_paused else "#888888")
            width = "3" if node.is_head or node.is_selected else ("2" if node.is_paused else "1")
            label = node.label + ("\nHEAD" if node.is_head else "")
            if node.broken:
                pen, width = _BROKEN_PEN, "2"
            dot.node(dot_safe(node.node_id), label=dot_safe(label), shape="box",
                     fillcolor=fill, color=pen, penwidth=width,
                     tooltip=dot_safe(f"checkpoint {node.members[0]}"),
                     style="filled,dashed" if node.broken else "filled")
        elif node.kind == "run":
            dot.node(dot_safe(node.node_id), label=dot_safe(node.label), shape="ellipse",
                     fillcolor="#fafafa", style="filled,dashed")
        else:
            dot.node(node.node_id, label=node.label, shape="note", fillcolor="#eeeeee")
    for a, b in view.edges:
        dot.edge(dot_safe(a), dot_safe(b))
    return dot
