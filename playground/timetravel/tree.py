"""A thread's whole checkpoint history as one tree: every branch, its forks, head and paused leaves.

Built from ids and parent links only, so it never asks the graph or the saver to rebuild states.
Blob details (next nodes, writers, time) are decoded for the leaves when the tree is loaded, and
for any other checkpoint only when something asks for them (the drawn ones, the selected one).
"""

from __future__ import annotations

import dataclasses
import operator
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeVar

from playground.timetravel.bulk import paused_gc
from playground.timetravel.delta import StateAt
from playground.timetravel.limits import limits
from playground.timetravel.records import CheckpointDetail, CheckpointRecord
from playground.timetravel.signals import TaskSignal
from playground.timetravel.status import FAILED, PAUSED, STOPPED, Status, status_at
from playground.timetravel.storage import Storage

_ID = operator.itemgetter(0)  # a record's checkpoint_id


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
        paused: leaves that wait for a person: nodes left to run and none failed (at a
            question, or before a node). A leaf whose node raised is in ``failed`` instead.
        details: decoded details by checkpoint id; a cache that :func:`ensure_details` fills.
        signals: questions (``interrupt()``), answers and node errors stored under each
            checkpoint, by checkpoint id (only checkpoints that have any).
        fingerprint: the storage's fingerprint of the thread when the tree was read (set by
            :class:`TreeCache`), so what is cached beside the tree needs no second query.
        broken: checkpoint id -> why its parent link is not followed: the parent is not stored
            (in the root graph's namespace), or the links loop back (a checkpoint that is its
            own ancestor). Such a checkpoint is drawn as a root with a broken link, so every
            walk of the tree ends.
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
    broken: Mapping[str, str] = field(default_factory=dict)

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

    @property
    def failed(self) -> frozenset[str]:
        """Leaves under which a node raised (the run ended there; never paused). A node a
        person stopped is not among them: see :attr:`stopped`."""
        found = self.__dict__.get("_failed")
        if found is None:
            found = frozenset(cid for cid in self.leaves if any(
                signal.kind == "error" for signal in self.signals.get(cid, ()))
                and status_at((), self.signals.get(cid, ())).kind == FAILED)
            object.__setattr__(self, "_failed", found)
        return found

    @property
    def stopped(self) -> frozenset[str]:
        """Leaves where a person stopped the run while a node ran (its error is a
        cancellation): Continue runs that node again from there."""
        found = self.__dict__.get("_stopped")
        if found is None:
            found = frozenset(cid for cid in self.leaves if self.signals.get(cid)
                              and status_at((), self.signals[cid]).kind == STOPPED)
            object.__setattr__(self, "_stopped", found)
        return found

    def tip_status(self, checkpoint_id: str) -> Status:
        """Where a branch's tip stands (failed, paused, finished), as every surface says it
        (:func:`~playground.timetravel.status.status_at`). Its details must be known (they
        are for every leaf of a tree :func:`build_tree` was given them for)."""
        detail = self.details.get(checkpoint_id)
        return status_at(detail.next if detail is not None else (),
                         self.signals.get(checkpoint_id, ()))

    def tip_along(self, checkpoint_id: str) -> str:
        """The tip of the branch a checkpoint is on by the first-child rule (its oldest child,
        that child's oldest, to a leaf): the branch the tree draws it on. A page that knows
        which tip a person walked down from passes that one instead."""
        current = checkpoint_id
        while kids := self.children.get(current):
            current = kids[0]
        return current

    def ordinal(self, checkpoint_id: str) -> int:
        """1-based position of a checkpoint in creation order (stable, unlike ``step``)."""
        return self.ordinals[checkpoint_id]

    @property
    def ordinals(self) -> Mapping[str, int]:
        """Checkpoint id -> :meth:`ordinal`, for a loop over many."""
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
            current = self.parent_of(current)
        return tuple(reversed(path))

    def parent_of(self, checkpoint_id: str) -> str | None:
        """The stored parent of a checkpoint, or None for a root (or a broken link)."""
        if checkpoint_id in self.broken:
            return None
        parent = self.nodes[checkpoint_id].parent_id
        return parent if parent in self.nodes else None


def tip_fields(tree: CheckpointTree, checkpoint_id: str) -> dict[str, str | None]:
    """Where a checkpoint stands as JSON (``history --json``, MCP): ``status`` and, in the
    words every surface uses, ``status_said``; both null for a checkpoint something was made
    from (a run went on from it: it stands nowhere)."""
    if tree.children.get(checkpoint_id):
        return {"status": None, "status_said": None}
    status = tree.tip_status(checkpoint_id)
    return {"status": status.kind, "status_said": status.said}


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
    ordered = sorted(records, key=_ID)  # in order already from most kinds: one pass
    nodes = {r.checkpoint_id: r for r in ordered}
    broken = broken_links(nodes, dangling=checkpoint_ns == "")
    children: dict[str, list[str]] = {cid: [] for cid in nodes}
    roots = []
    for record in ordered:
        if record.parent_id in nodes and record.checkpoint_id not in broken:
            children[record.parent_id].append(record.checkpoint_id)
        else:
            # A parent that is not stored (pruned, or another namespace) makes this a root,
            # and so does a link that loops back.
            roots.append(record.checkpoint_id)
    head = ordered[-1].checkpoint_id
    path = []
    current: str | None = head
    while current in nodes:
        path.append(current)
        current = None if current in broken else nodes[current].parent_id
    details = dict(details or {})
    signals = MappingProxyType({cid: found for cid, found in (signals or {}).items()
                                if cid in nodes})
    paused = frozenset(
        cid for cid, kids in children.items() if not kids and cid in details
        and status_at(details[cid].next, signals.get(cid, ())).kind == PAUSED)
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
        signals=signals,
        broken=MappingProxyType(broken),
    )


def broken_links(nodes: Mapping[str, CheckpointRecord], dangling: bool = True
                 ) -> dict[str, str]:
    """Checkpoints whose parent link cannot be followed, and why, found in one pass.

    A loop of parent links (a checkpoint that names itself, or two that name each other) is
    cut at its oldest member, so the rest hangs under it as a normal branch. With
    ``dangling``, a parent that is not stored is reported too (a subgraph's first checkpoint
    may name its parent graph's: not reported there).
    """
    broken: dict[str, str] = {}
    done: set[str] = set()
    for start in nodes:
        if start in done:
            continue
        parent = nodes[start].parent_id
        if parent is None or parent in done:
            # The honest case, and nearly every checkpoint: ids sort by creation, so a parent
            # comes first and has been walked already.
            done.add(start)
            continue
        path: list[str] = []
        on_path: set[str] = set()
        current: str | None = start
        while current is not None and current in nodes and current not in done:
            path.append(current)
            on_path.add(current)
            parent = nodes[current].parent_id
            if parent is None:
                break
            if parent not in nodes:
                if dangling:
                    broken[current] = f"its parent checkpoint {parent} is not stored"
                break
            if parent in on_path:
                loop = path[path.index(parent):]
                oldest = min(loop)
                broken[oldest] = (
                    "its parent link loops back to itself" if len(loop) == 1 else
                    f"its parent links make a loop through {len(loop)} checkpoints")
                break
            current = parent
        done.update(path)
    return broken


def load_tree(
    storage: Storage, thread_id: str, checkpoint_ns: str = "", all_details: bool = False,
    times: bool = False,
) -> CheckpointTree:
    """Read a thread from a checkpoint storage and build its tree.

    Args:
        storage: where the checkpoints live.
        thread_id: the thread.
        checkpoint_ns: "" for the root graph, or a subgraph's namespace.
        all_details: decode every blob now (for a full listing); otherwise only the leaves'.
        times: read each checkpoint's time with its record where the kind can do that in the
            same pass (for a timeline: cheaper than a pass of its own).

    Raises:
        UnknownThread: the thread has no checkpoints.
    """
    with paused_gc():  # a record per checkpoint, none in a cycle
        records = storage.records(thread_id, checkpoint_ns, times=times)
        parents = {r.parent_id for r in records}
        wanted = (
            [r.checkpoint_id for r in records]
            if all_details
            else [r.checkpoint_id for r in records if r.checkpoint_id not in parents]
        )
        details = storage.details(thread_id, wanted, checkpoint_ns)
        signals = storage.signals(thread_id, checkpoint_ns)
        return build_tree(thread_id, records, details, checkpoint_ns, signals)


def ensure_details(
    storage: Storage, tree: CheckpointTree, checkpoint_ids: Iterable[str]
) -> None:
    """Decode the details of these checkpoints into the tree's cache, if not there yet."""
    missing = [cid for cid in checkpoint_ids if cid in tree.nodes and cid not in tree.details]
    if missing:
        tree.details.update(storage.details(tree.thread_id, missing, tree.checkpoint_ns))


def last_fitting_checkpoint(
    storage: Storage, tree: CheckpointTree, nodes: list[str]
) -> str | None:
    """The newest checkpoint on the head's branch whose next nodes are all in ``nodes``.

    After a graph's code changed, a thread may wait at a node the graph no longer has:
    resuming it fails (Studio fails there too, langgraph#4183). Replaying from the checkpoint
    this returns runs the graph as it is now and grows a new branch. None when no checkpoint of
    the branch fits.
    """
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


# What one cached entry is taken to hold, estimated from what it was read from: a record (a
# named tuple of ids, numbers and its time) and its details come to a few hundred bytes; decoded
# values to a few times the blob they were decoded from.
_RECORD_BYTES = 480
T = TypeVar("T")
_DECODED_PER_BLOB_BYTE = 4


class _Budget:
    """An LRU of entries bounded by their estimated bytes (not by their count: one upload's
    tree of 100,000 checkpoints weighs as much as thousands of small ones)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: OrderedDict[tuple, tuple[int, object]] = OrderedDict()
        self.total = 0
        self.lock = threading.Lock()

    def get(self, key: tuple) -> object | None:
        with self.lock:
            held = self.entries.get(key)
            if held is None:
                return None
            self.entries.move_to_end(key)
            return held[1]

    def put(self, key: tuple, value: object, size: int) -> None:
        with self.lock:
            if key in self.entries:
                self.total -= self.entries.pop(key)[0]
            if size > self.max_bytes:
                return  # larger than the whole budget: served, never kept
            self.entries[key] = (size, value)
            self.total += size
            while self.total > self.max_bytes:
                evicted, _ = self.entries.popitem(last=False)[1]
                self.total -= evicted


def _cache_bytes() -> int:
    # The tree and values caches share the limit half and half.
    return int(limits().cache_mb * 1024 * 1024 / 2)


@dataclass(frozen=True)
class ThreadMoved:
    """A thread that grew since a tree of it was read: the debugger's own 412.

    Attributes:
        thread_id: the thread.
        new_ids: checkpoints the thread holds that the tree did not, oldest first.
        head: the newest of them.
        writers: the nodes that wrote it (empty for an input, an edit, a replay's copy).
        source: how it was made (``loop``, ``input``, ``update``, ``fork``).
        ordinal: its ``#N`` (creation order) in the thread as it is now.
    """

    thread_id: str
    new_ids: tuple[str, ...]
    head: str
    writers: tuple[str, ...]
    source: str | None
    ordinal: int

    def line(self) -> str:
        """One sentence for a refused action, naming the new checkpoint and who wrote it."""
        number = f"#{self.ordinal}"
        who = (f"written by {', '.join(self.writers)}" if self.writers
               else f"made by {'update_state' if self.source == 'update' else self.source}")
        more = f" (and {len(self.new_ids) - 1} before it)" if len(self.new_ids) > 1 else ""
        return (f"the thread moved on since this page was drawn: checkpoint {number} is new, "
                f"{who}{more}")


def moved_since(storage: Storage, tree: CheckpointTree) -> ThreadMoved | None:
    """What the thread holds now that ``tree`` did not, or None when nothing new was stored.

    An action taken on a stale drawing (an edit, a fork, an answer, a replay from what the page
    showed) must not act on what someone else has moved past. The fingerprint answers cheaply
    when nothing changed; otherwise the thread's records say which checkpoints are new.
    """
    now = storage.fingerprint(tree.thread_id, tree.checkpoint_ns)
    if tree.fingerprint is not None and now == tree.fingerprint:
        return None
    records = storage.records(tree.thread_id, tree.checkpoint_ns)  # oldest first
    new = [r for r in records if r.checkpoint_id not in tree.nodes]
    if not new:
        return None  # the same checkpoints: pending writes, or a head rewritten in place
    head = new[-1]  # checkpoint ids grow with time: the newest is the last
    detail = storage.details(tree.thread_id, [head.checkpoint_id], tree.checkpoint_ns).get(
        head.checkpoint_id)
    return ThreadMoved(tree.thread_id, tuple(r.checkpoint_id for r in new), head.checkpoint_id,
                       detail.writers if detail else (), head.source, records.index(head) + 1)


class TreeCache:
    """Trees of recently viewed threads, rebuilt only when the thread's storage changed.

    A page that reruns on every click (Streamlit) would otherwise re-read a long thread each
    time; the storage's :meth:`fingerprint` says cheaply whether anything changed. Storages
    without a fingerprint are read every time. The cache holds at most half the
    ``PLAYGROUND_CACHE_MB`` limit, estimated from the trees' sizes.
    """

    def __init__(self, max_bytes: int | None = None) -> None:
        self._budget = _Budget(_cache_bytes() if max_bytes is None else max_bytes)

    def get(
        self, storage: Storage, thread_id: str, checkpoint_ns: str = ""
    ) -> CheckpointTree:
        """The thread's tree, from the cache when its fingerprint is unchanged.

        Raises:
            UnknownThread: the thread has no checkpoints.
        """
        fingerprint = storage.fingerprint(thread_id, checkpoint_ns)
        key = (storage.identity, thread_id, checkpoint_ns)
        cached = self._budget.get(key)
        if fingerprint is not None and cached and cached[0] == fingerprint:
            return cached[1]
        # with the times: the pages that read trees through this cache show timelines too
        tree = dataclasses.replace(load_tree(storage, thread_id, checkpoint_ns, times=True),
                                   fingerprint=fingerprint)
        if fingerprint is not None:
            self._budget.put(key, (fingerprint, tree), len(tree) * _RECORD_BYTES)
        return tree

    def derived(self, storage: Storage, tree: CheckpointTree, what: tuple,
                make: Callable[[], T], size: Callable[[T], int]) -> T:
        """``make()``, something read for ``tree`` (a branch's timeline), kept in this cache's
        budget (``size`` estimates its bytes) for as long as the thread is unchanged: the
        tree's fingerprint is part of its key. Read every time for a tree without one."""
        if tree.fingerprint is None:
            return make()
        key = (storage.identity, tree.thread_id, tree.checkpoint_ns, tree.fingerprint, *what)
        found = self._budget.get(key)
        if found is None:
            found = make()
            self._budget.put(key, found, size(found))
        return found


class ValuesCache:
    """Decoded state values of recently shown checkpoints.

    A checkpoint's values change only when a migration rewrites the head's blob in place, which
    the thread's fingerprint catches; so values are cached by checkpoint and fingerprint, and a
    page rerun on a long chat does not decode its thousand messages again. The cache holds at
    most half the ``PLAYGROUND_CACHE_MB`` limit, estimated from the blobs' sizes.
    """

    def __init__(self, max_bytes: int | None = None) -> None:
        self._budget = _Budget(_cache_bytes() if max_bytes is None else max_bytes)

    def get(self, storage: Storage, tree: CheckpointTree, checkpoint_id: str) -> dict:
        """The values of one checkpoint of ``tree``, decoded (and rebuilt) once.

        Raises:
            UnreadableCheckpoint: the blob cannot be decoded (not cached).
        """
        return self.state(storage, tree, checkpoint_id).values

    def state(self, storage: Storage, tree: CheckpointTree, checkpoint_id: str) -> StateAt:
        """The state of one checkpoint of ``tree`` with how each DeltaChannel value was
        rebuilt (:meth:`Storage.state`), read once.

        Raises:
            UnreadableCheckpoint: the blob cannot be decoded (not cached).
        """
        fingerprint = tree.fingerprint or storage.fingerprint(tree.thread_id, tree.checkpoint_ns)
        # The graph's own reducers fold values differently from none, and an unfolded value
        # says what works on its surface: both part of the key.
        key = (storage.identity, tree.thread_id, tree.checkpoint_ns, checkpoint_id, fingerprint,
               tuple(sorted(storage.reducers)), storage.shown_on)
        if fingerprint is not None:
            cached = self._budget.get(key)
            if cached is not None:
                return cached
        state = storage.state(tree.thread_id, checkpoint_id, tree.checkpoint_ns)
        if fingerprint is not None:
            # A rebuilt value is as large as its snapshot and the writes since, which the
            # checkpoint's own small blob does not tell.
            sources = {checkpoint_id} | {r.snapshot_at for r in state.rebuilt if r.snapshot_at}
            stored = sum(tree.nodes[cid].blob_bytes for cid in sources if cid in tree.nodes)
            stored += sum(r.writes for r in state.rebuilt) * _RECORD_BYTES
            self._budget.put(key, state, max(stored * _DECODED_PER_BLOB_BYTE, _RECORD_BYTES))
        return state


def resolve_checkpoint(tree: CheckpointTree, ref: str) -> str:
    """Find a checkpoint by full id, ``#N`` (creation order) or a unique part of its id.

    Raises:
        ValueError: nothing or more than one checkpoint matches.
    """
    ids = list(tree.nodes)
    if ref in tree.nodes:
        return ref
    number = ref[1:] if ref.startswith("#") else ref
    if number.isdigit() and (ref.startswith("#") or len(number) < 6):
        index = int(number)
        if 1 <= index <= len(ids):
            return ids[index - 1]
        raise ValueError(f"#{index} is out of range: the thread has {len(ids)} checkpoints")
    matches = [cid for cid in ids if ref in cid]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ValueError(f"no checkpoint {ref!r} in thread {tree.thread_id!r}")
    raise ValueError(f"{ref!r} matches {len(matches)} checkpoints: give more of the id")
