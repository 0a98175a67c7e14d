"""A thread that waits at a node the graph no longer has: said in words, with a fork that fits.

After the graph's code changed (a node renamed or removed, then Reload graph or a hot reload),
a paused thread may name a node that is gone; continuing it would fail, as Studio's resume does
(langgraph#4183, #4253). Run and History flag such a thread and offer to replay it from the
newest checkpoint of its branch whose next nodes all exist, growing a new branch on the graph as
it is now.
"""

from __future__ import annotations

import streamlit as st

from playground.runtime.time_travel import replay_from
from playground.timetravel.tree import CheckpointTree, ensure_details, last_fitting_checkpoint
from playground.ui.markup import md_escape
from playground.ui.session import flash


def missing_nodes(source, tree: CheckpointTree, graph) -> list[str]:
    """The nodes the thread's head waits at that the graph no longer has."""
    ensure_details(source, tree, [tree.head])
    detail = tree.details.get(tree.head)
    return [node for node in (detail.next if detail else ()) if node not in graph.nodes]


def _fork(graph, tree: CheckpointTree, checkpoint_id: str) -> None:
    from playground.ui.components.stale import refused_as_stale

    if refused_as_stale(tree, "Fork"):
        return
    try:
        result = replay_from(graph, {"configurable": {
            "thread_id": tree.thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}})
    except ValueError as exc:
        flash("error", f"Not forked: {exc}")
        return
    where = f"paused before {', '.join(result.next)}" if result.next else "finished"
    flash("success", f"Forked from #{tree.ordinal(checkpoint_id)}: "
          f"{len(result.new_checkpoint_ids)} new checkpoints, {where}.")


def missing_nodes_warning(source, tree: CheckpointTree, graph, key: str,
                          refused: str | None = None) -> bool:
    """Flag a thread waiting at a removed node, with a ``Fork from #N`` button; True when it
    does (the page then offers no Continue). ``refused`` is why the thread's context does not
    fit, if it does not: the fork is not offered then."""
    missing = missing_nodes(source, tree, graph)
    if not missing:
        return False
    fits = last_fitting_checkpoint(source, tree, list(graph.nodes))
    st.warning(
        f"This thread waits at **{md_escape(', '.join(missing))}**, which the graph no longer "
        "has: its code changed since the thread ran. Continuing would fail; fork from the "
        "newest checkpoint that still fits the graph instead.", icon=":material/link_off:")
    if fits is not None:
        st.button(f"Fork from #{tree.ordinal(fits)}", icon=":material/call_split:", key=key,
                  disabled=refused is not None, on_click=_fork, args=(graph, tree, fits),
                  help=refused or "Replays the thread from there on the graph as it is now: a "
                  "new branch; the old one stays in History.")
    return True
