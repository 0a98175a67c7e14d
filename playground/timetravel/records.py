"""What one checkpoint is, as the engine sees it, and the pure rules that derive it from a blob.

LangGraph 1.x schedules node N when the channel ``branch:to:N`` holds a value and has a newer
version than the one N last saw (``versions_seen[N]``). A consumed trigger is emptied and its
version bumped, so the version test alone is not enough: an empty channel is not stored in
``channel_values``. Reading that from the blob gives a checkpoint's next nodes
without the graph that wrote it, which is what lets the engine open any app's database.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

BRANCH_PREFIX = "branch:to:"
JOIN_PREFIX = "join:"
START = "__start__"
# versions_seen keys that are bookkeeping, not nodes.
_NOT_NODES = {"__interrupt__", "__input__"}


# A NamedTuple, not a frozen dataclass: as immutable (records are shared between sessions
# through the tree cache), as small, and about 3x cheaper to create, which is most of the
# engine's time on a 10,000-checkpoint thread.
class CheckpointRecord(NamedTuple):
    """One checkpoint of a thread, as storage columns give it (no blob decoded).

    Attributes:
        checkpoint_id: LangGraph's id (sorts by creation time).
        parent_id: the checkpoint it was made from, None for a root.
        checkpoint_ns: "" for the root graph, ``node:task`` for a subgraph.
        step: LangGraph's step number (shifts on forks: never a depth).
        source: ``input``, ``loop``, ``update`` or ``fork``.
        blob_bytes: bytes of the checkpoint blob (what a resume loads).
        metadata_bytes: bytes of the metadata.
        writes_bytes: bytes of pending writes stored under this checkpoint.
        created_at: the checkpoint's stored time (``ts``) as text, unchecked (it comes from
            the database), where the kind read it with the record (records read with
            ``times``, or a kind that decodes its checkpoints anyway); None where it did not
            (:meth:`Storage.checkpoint_times` reads it then).
        run_id: the run that wrote it, where its metadata records one (``run_id``: a run the
            playground drove, or an Agent Server's), unchecked; None otherwise.
        run_started_at: when that run started (``run_started_at``, ISO text, unchecked), where
            the playground drove it (:mod:`playground.timetravel.runs`); None otherwise.
        action: what that run was when the playground says (``rerun``: a re-run on current
            code; :data:`playground.timetravel.runs.ACTION_KEY`), unchecked; None otherwise.
    """

    checkpoint_id: str
    parent_id: str | None
    checkpoint_ns: str
    step: int | None
    source: str | None
    blob_bytes: int
    metadata_bytes: int
    writes_bytes: int
    created_at: str | None = None
    run_id: str | None = None
    run_started_at: str | None = None
    action: str | None = None

    @property
    def stored_bytes(self) -> int:
        """Everything this checkpoint keeps on disk: blob, metadata and pending writes."""
        return self.blob_bytes + self.metadata_bytes + self.writes_bytes


@dataclass(frozen=True, slots=True)
class CheckpointDetail:
    """What only the checkpoint blob tells, decoded on demand.

    Attributes:
        checkpoint_id: the checkpoint.
        created_at: ISO timestamp stored in the checkpoint.
        next: nodes that run when the thread resumes from here.
        writers: nodes whose writes produced this checkpoint (empty for input/update/fork).
        changed: state channels whose version moved from the parent to this checkpoint.
    """

    checkpoint_id: str
    created_at: str | None
    next: tuple[str, ...]
    writers: tuple[str, ...]
    changed: tuple[str, ...]
    problem: str | None = None


def detail_of(
    checkpoint_id: str, checkpoint: Mapping, parent: Mapping | None, problem: str | None = None
) -> CheckpointDetail:
    """Derive a checkpoint's detail from its decoded blob and its parent's.

    Args:
        checkpoint_id: the checkpoint.
        checkpoint: its decoded blob ({} when it could not be read).
        parent: the parent's decoded blob, or None.
        problem: why the blob could not be read, one line (shown on that checkpoint).
    """
    created = checkpoint.get("ts")
    return CheckpointDetail(
        checkpoint_id=checkpoint_id,
        created_at=created if isinstance(created, str) else None,
        next=next_nodes(checkpoint),
        writers=writers(parent, checkpoint),
        changed=changed_channels(parent, checkpoint),
        problem=problem,
    )


def _part(checkpoint: Mapping | None, key: str) -> Mapping:
    # A blob from an unknown writer may hold anything under these keys: read only mappings.
    # (``type is dict`` first: decoded blobs are dicts, and the ABC check costs ten times more
    # on a thread of 10,000 checkpoints.)
    value = (checkpoint or {}).get(key)
    return value if type(value) is dict or isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class ThreadSummary:
    """One thread of a database, for the thread list."""

    thread_id: str
    checkpoints: int
    newest_at: str | None
    head_next: tuple[str, ...]
    branches: int
    stored_bytes: int
    head_id: str | None = None  # the newest checkpoint


def _newer(version: object, seen: object) -> bool:
    if seen is None:
        return True
    if type(version) is not type(seen):
        # Mixed int and str versions come from different savers; compare as text of equal width.
        return str(version).zfill(40) > str(seen).zfill(40)
    try:
        return version > seen  # type: ignore[operator]
    except TypeError:  # versions no saver writes (lists, maps) never count as newer
        return False


def _members(value: object) -> set:
    """The names in a join barrier's stored set: a set (from a saver), a list, or the safe
    decoder's ``{"__type__": "builtins.set", "value": [...]}``."""
    if isinstance(value, Mapping):
        value = value.get("value")
    if isinstance(value, (set, frozenset, list, tuple)):
        return {item for item in value if isinstance(item, str)}
    return set()


def next_nodes(checkpoint: Mapping) -> tuple[str, ...]:
    """Nodes a checkpoint will run next, read from its channel versions.

    Matches ``StateSnapshot.next`` for graphs built with LangGraph 1.x StateGraph.
    """
    versions = _part(checkpoint, "channel_versions")
    seen = _part(checkpoint, "versions_seen")
    values = _part(checkpoint, "channel_values")
    pending = []
    # Only channels holding a value can trigger, and there are fewer of those than versions.
    for channel in values:
        version = versions.get(channel)
        if version is None or not isinstance(channel, str):
            continue
        if channel.startswith(BRANCH_PREFIX):
            node = channel[len(BRANCH_PREFIX):]
        elif channel == START:
            node = START
        elif channel.startswith(JOIN_PREFIX) and channel.count(":") == 2:
            # A fan-in edge ``join:a+b:node`` is a barrier: it triggers ``node`` only once every
            # source has written, i.e. when its stored set of names covers them all.
            _, sources, node = channel.split(":")
            if not set(sources.split("+")) <= _members(values[channel]):
                continue
        else:
            continue
        node_seen = seen.get(node)
        readable = type(node_seen) is dict or isinstance(node_seen, Mapping)
        if _newer(version, node_seen.get(channel) if readable else None):
            pending.append(node)
    return tuple(sorted(pending))


def writers(parent: Mapping | None, checkpoint: Mapping) -> tuple[str, ...]:
    """Nodes that ran in the step that produced ``checkpoint`` from ``parent``.

    A node records the trigger versions it consumed in ``versions_seen`` when it runs, so the
    nodes whose entry moved are the ones whose writes made this checkpoint.
    """
    if parent is None:
        return ()
    before = _part(parent, "versions_seen")
    after = _part(checkpoint, "versions_seen")
    return tuple(
        sorted(
            node
            for node, seen in after.items()
            if isinstance(node, str) and node not in _NOT_NODES and before.get(node) != seen
        )
    )


UNKNOWN_NODE = "?"  # a write whose task path does not name its node


def task_node(task_path: str | None) -> str:
    """The node of a stored task path (``~__pregel_pull, read`` -> ``read``); "" if none.

    A task a ``Send`` started (``~__pregel_push, 0000000000, ...``: create_agent's tools, a
    fan-out) is stored under its index, not its node: "" then, never the index.
    """
    path = task_path or ""
    if path.startswith("~__pregel_push"):
        return ""
    return path.rsplit(",", 1)[-1].strip()


def checkpoint_name(source: str | None, writers: tuple[str, ...] = ()) -> str:
    """A checkpoint named as LangGraph writes it, the same on every surface (the tree, the
    inspector, ``history``, Compare's pickers, MCP): its ``source`` and, for a step or an
    edit, the node (``loop · plan``; ``loop · __start__``, the step that applies a run's input;
    ``update · plan``, ``update_state`` as ``plan``; ``input``, the input a run was given;
    ``fork``, a replay's or a fork's start). A node that ran several times in one step is
    counted (``loop · research ×3``)."""
    counts: dict[str, int] = {}
    for name in writers:
        counts[name] = counts.get(name, 0) + 1
    nodes = ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counts.items())
    said = source or "?"
    return f"{said} · {nodes}" if nodes and source in ("loop", "update") else said


# What each name means, said once where the names are shown (a tooltip).
CHECKPOINT_NAMES = (
    "Each checkpoint is named as LangGraph writes it: input (the input a run was given), "
    "loop · NODE (the step NODE ran; loop · __start__ applies the input), update · NODE "
    "(update_state wrote the state as NODE), fork (a replay or a fork started from an older "
    "checkpoint).")


def step_nodes(writers: tuple[str, ...]) -> tuple[str, ...]:
    """The nodes of a step as a person reads them: ``__start__`` writing the input is
    ``input``."""
    return tuple("input" if node == "__start__" else node for node in writers)


def written_by(write_node: str, writers: tuple[str, ...]) -> bool:
    """True when a pending write belongs to the step these nodes made: written by one of
    them, or by a task whose stored path does not name its node (a ``Send``'s)."""
    return write_node in writers or (write_node == UNKNOWN_NODE and bool(writers))


def state_values(checkpoint: Mapping) -> dict:
    """A decoded checkpoint's state values, without LangGraph's bookkeeping channels."""
    return {k: v for k, v in _part(checkpoint, "channel_values").items()
            if isinstance(k, str) and not is_internal_channel(k)}


def is_internal_channel(channel: str) -> bool:
    """True for LangGraph's bookkeeping channels (``branch:to:x``, ``__start__``,
    ``__pregel_tasks`` of a ``Send`` fan-out, ...): every name LangGraph reserves starts with
    ``__`` or holds a ``:``."""
    return channel.startswith("__") or ":" in channel


def changed_channels(parent: Mapping | None, checkpoint: Mapping) -> tuple[str, ...]:
    """State channels whose version differs between ``parent`` and ``checkpoint``."""
    after = _part(checkpoint, "channel_versions")
    before = _part(parent, "channel_versions")
    # Version test first: it is cheap and rules out most channels before the name test.
    moved = [channel for channel, version in after.items() if before.get(channel) != version]
    return tuple(sorted(channel for channel in moved
                        if isinstance(channel, str) and not is_internal_channel(channel)))


# Written into checkpoint metadata by langgraph's DeltaChannel (beta): the channels listed there
# are rebuilt from ancestor writes, so their ancestors must keep them (prune, migrate).
DELTA_COUNTERS = "counters_since_delta_snapshot"


def delta_channels(metadata: bytes | str | Mapping | None) -> list[str]:
    """Channels a checkpoint rebuilds from ancestor writes (DeltaChannel), from its metadata
    (JSON text, or the dict a JSONB column gives)."""
    if metadata is None:
        return []
    try:
        parsed = metadata if isinstance(metadata, Mapping) else json.loads(metadata)
        counters = parsed.get(DELTA_COUNTERS)
    except (ValueError, AttributeError):  # not JSON, or not an object: nothing to protect
        return []
    return sorted(counters) if isinstance(counters, dict) else []
