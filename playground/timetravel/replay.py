"""Time travel: replay a thread from a past checkpoint, or fork it with an edit and run on.

Both commands grow a new branch beside the old one; nothing is overwritten. The result says
where the branch starts (``fork_checkpoint_id``), where it ends (``head_config``) and whether the
run paused again: ``interrupt_before`` passed at call time is ignored (DESIGN.md), so a replay
through a paused node stops there again, with ``next`` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from playground.timetravel.edit import checkpoint_exists, edit_state, saver_of


@dataclass(frozen=True)
class ReplayResult:
    """What a replay or fork wrote and where the thread stands after it.

    Attributes:
        replayed_checkpoint_id: the past checkpoint the run started from.
        fork_checkpoint_id: the first checkpoint of the new branch, a child of the replayed one
            (source ``fork`` for a replay, ``update`` for a fork with an edit); None when the
            run wrote nothing.
        new_checkpoint_ids: the new branch, oldest first.
        head_config: the config of the branch's newest checkpoint.
        values: the state at the head.
        next: the nodes due at the head; not empty when the run paused at an interrupt.
    """

    replayed_checkpoint_id: str
    fork_checkpoint_id: str | None
    new_checkpoint_ids: tuple[str, ...]
    head_config: RunnableConfig
    values: dict[str, Any]
    next: tuple[str, ...]

    @property
    def paused(self) -> bool:
        """True when the new branch stopped before a node (an interrupt) instead of finishing."""
        return bool(self.next)


def replay_from(graph: Any, config: RunnableConfig) -> ReplayResult:
    """Re-run a thread from one of its past checkpoints.

    LangGraph first writes a ``fork`` checkpoint whose parent is the given checkpoint, then runs
    the nodes due there (DESIGN.md). A checkpoint written by ``update_state`` is its own fork
    point, so the run's first checkpoint is its child directly.

    Args:
        graph: the compiled graph, with a checkpointer.
        config: a config naming the thread and the ``checkpoint_id`` to replay from.

    Returns:
        The new branch and the state at its head.

    Raises:
        ValueError: when the config names no checkpoint, a subgraph checkpoint, or one that is
            not in the thread; nothing is written then.
    """
    checkpoint_id = _require_root_checkpoint(graph, config)
    before = _newest_id(graph, config)
    graph.invoke(None, config)
    return _result(graph, config, checkpoint_id, before)


def fork_with_edit(
    graph: Any,
    config: RunnableConfig,
    values: Mapping[str, Any],
    as_node: str | None = None,
) -> ReplayResult:
    """Edit a past checkpoint and run on from the edited state.

    The edit is written as an ``update`` checkpoint, a child of the given checkpoint, and the run
    continues from it, so the new branch holds the edited state.

    Args:
        graph: the compiled graph, with a checkpointer.
        config: a config naming the thread and the ``checkpoint_id`` to edit.
        values: state keys and their new values (validated, see ``edit_state``).
        as_node: the node the edit acts as; its successors run next.

    Returns:
        The new branch and the state at its head.

    Raises:
        EditRefused: when the edit is invalid; nothing is written then.
        ValueError: when the config names no checkpoint, a subgraph checkpoint, or one that is
            not in the thread; nothing is written then.
    """
    checkpoint_id = _require_root_checkpoint(graph, config)
    before = _newest_id(graph, config)
    edited = edit_state(graph, config, values, as_node)
    # Keep the caller's configurable keys (nodes may read them); take the edit's checkpoint id.
    run_config = {
        **config,
        "configurable": {**config["configurable"], **edited["configurable"]},
    }
    graph.invoke(None, run_config)
    return _result(graph, config, checkpoint_id, before)


def _require_root_checkpoint(graph: Any, config: RunnableConfig) -> str:
    configurable = config.get("configurable", {})
    thread_id = configurable.get("thread_id")
    checkpoint_id = configurable.get("checkpoint_id")
    if not checkpoint_id:
        raise ValueError(
            f"the config names no checkpoint_id: replay starts from a past checkpoint of thread "
            f"{thread_id!r}; take its config from get_state_history"
        )
    if namespace := configurable.get("checkpoint_ns"):
        # Subgraph checkpoints are not in the root history (DESIGN.md): the tree has no place
        # to show a branch grown from them.
        raise ValueError(
            f"checkpoint {checkpoint_id!r} belongs to the subgraph namespace {namespace!r}: "
            "replay the parent graph's checkpoint that ran the subgraph instead"
        )
    if not checkpoint_exists(graph, config):
        raise ValueError(
            f"no checkpoint {checkpoint_id!r} in thread {thread_id!r}: "
            "choose one from the thread's history"
        )
    return checkpoint_id


def _thread_config(config: RunnableConfig) -> RunnableConfig:
    configurable = {
        key: value
        for key, value in config.get("configurable", {}).items()
        if key not in ("checkpoint_id", "checkpoint_ns")
    }
    return {"configurable": configurable}


def _newest_id(graph: Any, config: RunnableConfig) -> str:
    newest = saver_of(graph).get_tuple(_thread_config(config))
    # the replayed checkpoint exists, so the thread has a newest checkpoint
    return newest.config["configurable"]["checkpoint_id"]


def _result(graph: Any, config: RunnableConfig, checkpoint_id: str, before: str) -> ReplayResult:
    saver = saver_of(graph)
    head = graph.get_state(_thread_config(config))
    # Walk from the new head back to the replayed checkpoint. Checkpoint ids are uuid6, ordered
    # by creation time (DESIGN.md), so ids above `before` were written by this run.
    branch: list[str] = []
    reached = False
    cursor: RunnableConfig | None = head.config
    while cursor is not None:
        current = cursor["configurable"]["checkpoint_id"]
        reached = current == checkpoint_id
        if reached or current <= before:
            break
        branch.append(current)
        found = saver.get_tuple(cursor)
        cursor = found.parent_config if found else None
    branch.reverse()
    if not branch:
        # The run wrote nothing (say, a finished update checkpoint): the state is the replayed one.
        head = graph.get_state(config)
    return ReplayResult(
        replayed_checkpoint_id=checkpoint_id,
        fork_checkpoint_id=branch[0] if branch and reached else None,
        new_checkpoint_ids=tuple(branch),
        head_config=head.config,
        values=dict(head.values),
        next=tuple(head.next),
    )


def last_fitting_checkpoint(storage: Any, tree: Any, nodes: list[str]) -> str | None:
    """The newest checkpoint on the head's branch whose next nodes are all in ``nodes``.

    After a graph's code changed, a thread may wait at a node the graph no longer has:
    resuming it fails (Studio fails there too, langgraph#4183). Replaying from the checkpoint
    this returns runs the graph as it is now and grows a new branch. None when no checkpoint of
    the branch fits.
    """
    from playground.timetravel.tree import ensure_details

    known = set(nodes)
    current, seen = tree.head, set()
    while current is not None and current not in seen:  # a cycle of parents stops the walk
        seen.add(current)
        ensure_details(storage, tree, [current])
        detail = tree.details.get(current)
        if detail is not None and detail.next and all(node in known for node in detail.next):
            return current
        current = tree.parent_of(current)
    return None
