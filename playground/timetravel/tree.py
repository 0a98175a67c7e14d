"""A thread's whole checkpoint history as one tree: every branch, its forks, head and paused leaves.

Built from ids and parent links only, so it never asks the graph or the saver to rebuild states.
Blob details (next nodes, writers, time) are decoded for the leaves when the tree is loaded, and
for any other checkpoint only when something asks for them (the drawn ones, the selected one).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from playground.timetravel.records import CheckpointDetail, CheckpointRecord
from playground.timetravel.signals import TaskSignal
from playground.timetravel.source import CheckpointSource


@dataclass(frozen=True)
class CheckpointTree:
    """All checkpoints of one thread and namespace.

    Attributes:
        thread_id: the thread.
        checkpoint_ns: "" for the root graph.
        nodes: checkpoint id -> record, oldest first.
        children: checkpoint id -> ids of the checkpoints made from it, oldest first.
        roots: checkpoints without a (stored) parent.
        head: the newest checkpoint, the one a plain resume continues from.
        current_branch: ids from a root down to the head.
        paused: leaves that still have nodes to run (paused at an interrupt, or stopped).
        details: decoded details by checkpoint id; a cache that :func:`ensure_details` fills.
        signals: questions (``interrupt()``), answers and node errors stored under each
            checkpoint, by checkpoint id (only checkpoints that have any).
        fingerprint: the source's fingerprint of the thread when the tree was read (set by
            :class:`TreeCache`), so what is cached beside the tree needs no second query.
    """

    thread_id: str
    checkpoint_ns: str
    nodes: Mapping[str, CheckpointRecord]
    children: Mapping[str, tuple[str, ...]]
    roots: tuple[str, ...]
    head: str
    current_branch: tuple[str, ...]
    paused: frozenset[str]
    details: dict[str, CheckpointDetail]
    signals: Mapping[str, tuple[TaskSignal, ...]] = field(default_factory=dict)
    fingerprint: tuple | None = None

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def forks(self) -> tuple[str, ...]:
        """Checkpoints with more than one child: where branches split."""
        return tuple(cid for cid, kids in self.children.items() if len(kids) > 1)

    @property
    def leaves(self) -> tuple[str, ...]:
        """Checkpoints nothing was made from: the tip of every branch."""
        return tuple(cid for cid in self.nodes if not self.children.get(cid))

    def ordinal(self, checkpoint_id: str) -> int:
        """1-based position of a checkpoint in creation order (stable, unlike ``step``)."""
        return self._ordinals[checkpoint_id]

    @property
    def _ordinals(self) -> dict[str, int]:
        cached = self.__dict__.get("_ordinal_cache")
        if cached is None:
            cached = {cid: i for i, cid in enumerate(self.nodes, 1)}
            object.__setattr__(self, "_ordinal_cache", cached)
        return cached

    def path_to(self, checkpoint_id: str) -> tuple[str, ...]:
        """Ids from a root down to ``checkpoint_id``."""
        path = []
        current: str | None = checkpoint_id
        while current is not None and current in self.nodes:
            path.append(current)
            current = self.nodes[current].parent_id
        return tuple(reversed(path))

    def parent_of(self, checkpoint_id: str) -> str | None:
        """The stored parent of a checkpoint, or None for a root."""
        parent = self.nodes[checkpoint_id].parent_id
        return parent if parent in self.nodes else None


def build_tree(
    thread_id: str,
    records: list[CheckpointRecord],
    details: dict[str, CheckpointDetail] | None = None,
    checkpoint_ns: str = "",
    signals: Mapping[str, tuple[TaskSignal, ...]] | None = None,
) -> CheckpointTree:
    """Assemble a :class:`CheckpointTree` from a thread's records (any order).

    ``details`` must cover the leaves for ``paused`` to be known; others may come later.

    Raises:
        ValueError: when ``records`` is empty.
    """
    if not records:
        raise ValueError(f"thread {thread_id!r} has no checkpoints")
    ordered = sorted(records, key=lambda r: r.checkpoint_id)
    nodes = {r.checkpoint_id: r for r in ordered}
    children: dict[str, list[str]] = {cid: [] for cid in nodes}
    roots = []
    for record in ordered:
        if record.parent_id in nodes:
            children[record.parent_id].append(record.checkpoint_id)
        else:
            # A parent that is not stored (pruned, or another namespace) makes this a root.
            roots.append(record.checkpoint_id)
    head = ordered[-1].checkpoint_id
    path = []
    current: str | None = head
    while current in nodes:
        path.append(current)
        current = nodes[current].parent_id
    details = dict(details or {})
    paused = frozenset(
        cid for cid, kids in children.items() if not kids and cid in details and details[cid].next
    )
    return CheckpointTree(
        thread_id=thread_id,
        checkpoint_ns=checkpoint_ns,
        nodes=MappingProxyType(nodes),
        children=MappingProxyType({cid: tuple(kids) for cid, kids in children.items()}),
        roots=tuple(roots),
        head=head,
        current_branch=tuple(reversed(path)),
        paused=paused,
        details=details,
        signals=MappingProxyType({cid: found for cid, found in (signals or {}).items()
                                  if cid in nodes}),
    )


def load_tree(
    source: CheckpointSource, thread_id: str, checkpoint_ns: str = "", all_details: bool = False
) -> CheckpointTree:
    """Read a thread from a checkpoint source and build its tree.

    Args:
        source: where the checkpoints live.
        thread_id: the thread.
        checkpoint_ns: "" for the root graph, or a subgraph's namespace.
        all_details: decode every blob now (for a full listing); otherwise only the leaves'.

    Raises:
        UnknownThread: the thread has no checkpoints.
    """
    records = source.records(thread_id, checkpoint_ns)
    parents = {r.parent_id for r in records}
    wanted = (
        [r.checkpoint_id for r in records]
        if all_details
        else [r.checkpoint_id for r in records if r.checkpoint_id not in parents]
    )
    details = source.details(thread_id, wanted, checkpoint_ns)
    signals = source.signals(thread_id, checkpoint_ns)
    return build_tree(thread_id, records, details, checkpoint_ns, signals)


def ensure_details(
    source: CheckpointSource, tree: CheckpointTree, checkpoint_ids: Iterable[str]
) -> None:
    """Decode the details of these checkpoints into the tree's cache, if not there yet."""
    missing = [cid for cid in checkpoint_ids if cid in tree.nodes and cid not in tree.details]
    if missing:
        tree.details.update(source.details(tree.thread_id, missing, tree.checkpoint_ns))


class TreeCache:
    """Trees of recently viewed threads, rebuilt only when the thread's storage changed.

    A page that reruns on every click (Streamlit) would otherwise re-read a long thread each
    time; the source's :meth:`fingerprint` says cheaply whether anything changed. Sources
    without a fingerprint are read every time.
    """

    def __init__(self, size: int = 32) -> None:
        self._size = size
        self._trees: OrderedDict[tuple, tuple[tuple, CheckpointTree]] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, source: CheckpointSource, thread_id: str, checkpoint_ns: str = ""
    ) -> CheckpointTree:
        """The thread's tree, from the cache when its fingerprint is unchanged.

        Raises:
            UnknownThread: the thread has no checkpoints.
        """
        fingerprint = source.fingerprint(thread_id, checkpoint_ns)
        key = (source.label, thread_id, checkpoint_ns)
        with self._lock:
            cached = self._trees.get(key)
            if fingerprint is not None and cached and cached[0] == fingerprint:
                self._trees.move_to_end(key)
                return cached[1]
        tree = dataclasses.replace(load_tree(source, thread_id, checkpoint_ns),
                                   fingerprint=fingerprint)
        if fingerprint is not None:
            with self._lock:
                self._trees[key] = (fingerprint, tree)
                while len(self._trees) > self._size:
                    self._trees.popitem(last=False)
        return tree


class ValuesCache:
    """Decoded state values of recently shown checkpoints.

    A checkpoint's values change only when a migration rewrites the head's blob in place, which
    the thread's fingerprint catches; so values are cached by checkpoint and fingerprint, and a
    page rerun on a long chat does not decode its thousand messages again.
    """

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._values: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, source: CheckpointSource, tree: CheckpointTree, checkpoint_id: str) -> dict:
        """The values of one checkpoint of ``tree``, decoded once.

        Raises:
            UnreadableCheckpoint: the blob cannot be decoded (not cached).
        """
        fingerprint = tree.fingerprint or source.fingerprint(tree.thread_id, tree.checkpoint_ns)
        key = (source.label, tree.thread_id, tree.checkpoint_ns, checkpoint_id, fingerprint)
        with self._lock:
            if fingerprint is not None and key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        values = source.values(tree.thread_id, checkpoint_id, tree.checkpoint_ns)
        if fingerprint is not None:
            with self._lock:
                self._values[key] = values
                while len(self._values) > self._size:
                    self._values.popitem(last=False)
        return values
