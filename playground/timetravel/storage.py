"""The engine's read seam: the questions the engine asks of any place threads live.

A :class:`Storage` answers, whatever holds the threads (a SQLite file, a Postgres database, a
saver object, a LangGraph.js file): which threads there are; a thread's checkpoints with their
parent, metadata, time and next nodes; the pending writes under a checkpoint with their task
and node; the values at one checkpoint; the long-term store's items. Everything comes through
the safe decoder (:mod:`playground.timetravel.decode`), which never imports or calls what the
data names.

A kind of place supplies three questions (:meth:`Storage.thread_ids`,
:meth:`Storage.stored_checkpoints`, :meth:`Storage.stored_writes`) and the base class derives
every other read from them. A kind overrides a derived read only where it answers faster (the
SQL kinds aggregate in the database). Prune, migrate and transfer are each one flow over the
write primitives at the end; a read-only kind leaves them to the defaults, which refuse.

Nothing here imports a kind: the kinds (``playground/places/``) import this module. See
docs/architecture.md, "The read seam".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from playground.timetravel.delta import (
    ON_PAGE,
    DeltaWrite,
    Reducer,
    StateAt,
    channels_to_rebuild,
    fold,
    stored_value,
)
from playground.timetravel.errors import CheckpointDbError, UnknownThread, UnreadableCheckpoint
from playground.timetravel.records import (
    UNKNOWN_NODE,
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    delta_channels,
    detail_of,
    is_internal_channel,
    state_values,
    task_node,
)
from playground.timetravel.runs import run_of
from playground.timetravel.signals import SIGNAL_CHANNELS, TaskSignal, signals_of
from playground.timetravel.status import Status
from playground.timetravel.thread_list import (
    STATUSES,
    ThreadQuery,
    counted_cursor,
    metadata_holds,
    status_of,
)

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from playground.timetravel.portable import PortableThread

# Who wrote a place, as a person reads it (the header of Inspect and of `playground threads`).
# A place another writer made is read and never written: its app reads only its own rows.
PYTHON = "LangGraph (Python)"
OLDER_PYTHON = "LangGraph (Python, before task_path)"
JAVASCRIPT = "LangGraph.js (JSON)"
SERVER = "a LangGraph Agent Server (its HTTP API)"

# The task LangGraph stores an answer under when the input brought it (Command(resume=...)).
NULL_TASK = "00000000-0000-0000-0000-000000000000"

# A thread list row's reads: the thread's summary, its head's signals, its first metadata.
ThreadLine = tuple[ThreadSummary, tuple[TaskSignal, ...], dict]

__all__ = ["DuplicateRows", "ExportTable", "Head", "PendingWrite", "PlanRow", "Storage",
           "StoredCheckpoint", "StoredWrite"]


@dataclass(frozen=True)
class PendingWrite:
    """One write a task stored under a checkpoint (``task_id`` where the place keeps it: the
    tasks of a ``Send`` fan-out share a node and differ by it)."""

    node: str
    channel: str
    value: Any
    size: int
    task_id: str = ""


@dataclass(frozen=True)
class StoredCheckpoint:
    """One checkpoint as a place holds it, decoded: what a kind that is not SQL hands the base.

    Attributes:
        checkpoint_id: the checkpoint.
        parent_id: its stored parent, None for a root.
        metadata: its metadata as a dict (``source``, ``step``...).
        checkpoint: the decoded checkpoint (``ts``, ``channel_values``, ``channel_versions``,
            ``versions_seen``); {} when it could not be read.
        blob_bytes: bytes the place stores for it (0 when it cannot tell).
        metadata_bytes: bytes of its metadata.
        problem: why it could not be read, one line, or None.
    """

    checkpoint_id: str
    parent_id: str | None
    metadata: dict
    checkpoint: dict
    blob_bytes: int = 0
    metadata_bytes: int = 0
    problem: str | None = None


@dataclass(frozen=True)
class StoredWrite:
    """One pending write under a checkpoint, decoded.

    Attributes:
        checkpoint_id: the checkpoint the task ran from.
        task_path: the task's stored path (``~__pregel_pull, node``), "" when not stored.
        channel: the channel written.
        value: the value, plain data from the safe decoder.
        size: bytes stored.
        node: the node that wrote it when the place knows it some other way than the path.
        task_id: the task's id, where the place keeps it (:data:`NULL_TASK` for an answer the
            input brought).
    """

    checkpoint_id: str
    task_path: str
    channel: str
    value: Any
    size: int = 0
    node: str | None = None
    task_id: str = ""

    def writer(self) -> str:
        """The node that wrote this, or ``?`` when nothing stored says."""
        return self.node or task_node(self.task_path) or UNKNOWN_NODE


@dataclass(frozen=True)
class PlanRow:
    """What planning a deletion needs of a checkpoint, whatever database holds it.

    Attributes:
        checkpoint_id: the checkpoint.
        parent_id: its stored parent.
        size: bytes of its own row (blob or JSONB, and metadata).
        metadata: its metadata as stored (JSON text), for DeltaChannel counters.
        versions: its channel versions where the database keeps values per version
            (Postgres), so a deletion can tell which values no kept checkpoint refers to.
    """

    checkpoint_id: str
    parent_id: str | None
    size: int
    metadata: bytes | str | None
    versions: dict | None = None


@dataclass
class Head:
    """A thread's newest root checkpoint, as a repair reads and rewrites it.

    Attributes:
        thread_id: the thread.
        checkpoint_id: its newest root checkpoint.
        checkpoint: the checkpoint as plain structure (``channel_values``, ``channel_versions``,
            ``versions_seen``...), an app's own values carried as their exact bytes; None when
            the backend cannot rewrite it (``problem`` says why).
        metadata: its metadata as a dict.
        held: the channels that hold a value, inline or (Postgres) in a value blob row.
        problem: why this head cannot be rewritten byte for byte, or None.
        stored: what the backend needs to rewrite it (its raw blob), opaque to the flows.
    """

    thread_id: str
    checkpoint_id: str
    checkpoint: dict | None
    metadata: dict
    held: frozenset[str] = frozenset()
    problem: str | None = None
    stored: Any = None


@dataclass(frozen=True)
class ExportTable:
    """One list of rows in a thread export: its key, the table, its columns and their order.

    ``columns`` maps a column to its kind: ``str``, ``str?`` (may be null), ``int``, ``blob``
    (base64 text in the file), ``blob!`` (a blob that may not be null) or ``json`` (a JSON
    object in the file).
    """

    key: str
    table: str
    columns: dict[str, str]
    order: str


def export_columns(table: ExportTable, keeps_task_paths: bool) -> str:
    """The SELECT list of an export table's rows: a place without task paths exports each
    write's as "", the value Python's savers give such rows."""
    return ", ".join("'' AS task_path" if name == "task_path" and not keeps_task_paths else name
                     for name in table.columns)


class DuplicateRows(Exception):
    """Rows an import inserts that the database already holds (its own unique keys said so)."""


@dataclass(frozen=True)
class CheckpointLink:
    """Where one checkpoint sits in its thread, as a clone of one branch picks its rows.

    Attributes:
        checkpoint_ns: its namespace ("" for the root graph).
        checkpoint_id: the checkpoint.
        parent_id: its stored parent in that namespace, None for a root.
        root_id: for a subgraph's checkpoint, the root graph's checkpoint the call ran from
            (LangGraph's ``metadata["parents"][""]``); None in the root namespace or where the
            metadata does not say.
    """

    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    root_id: str | None


def kept_rows(table: ExportTable, rows: list[tuple],
              keep: frozenset[tuple[str, str]] | None) -> list[tuple]:
    """The rows of an export table that belong to kept checkpoints (``(namespace, checkpoint
    id)`` pairs; None keeps every row). A table without a checkpoint column (Postgres's value
    blobs) is the kind's to filter: it is returned whole."""
    names = list(table.columns)
    if keep is None or "checkpoint_id" not in names:
        return rows
    ns_at, id_at = names.index("checkpoint_ns"), names.index("checkpoint_id")
    return [row for row in rows if (row[ns_at], row[id_at]) in keep]


class Storage:
    """What every place offers the engine: reads, with defaults, and the write primitives.

    A kind implements :meth:`thread_ids`, :meth:`stored_checkpoints` and :meth:`stored_writes`;
    every other read has a default built on them. A kind that stores rows the engine can
    change (SQLite, Postgres) also implements the write primitives; the defaults refuse.

    Attributes:
        kind: the kind of place (``sqlite``, ``postgres``, ``saver``...): names it in messages
            and exports.
        label: the place, safe to show (a URL without its password).
        writable: opened for writes (prune, migrate, import); read-only otherwise.
        saver_tables: the saver's tables, in words, for messages.
        export_tables: the lists of rows a thread export of this place holds (none: transfer
            refuses in one line).
    """

    kind: ClassVar[str] = "place"
    label: str = ""
    writable: bool = False
    saver_tables: ClassVar[str] = "checkpoint tables this tool has SQL for"
    export_tables: tuple[ExportTable, ...] = ()
    # Who wrote the place, as a person reads it (a header on Inspect and `playground threads`).
    writer: str = PYTHON
    # Whether the place stores each write's task path (which names its node). Where it does not
    # (a saver's ``list``, a LangGraph.js file), a write takes its checkpoint's single next node
    # instead.
    keeps_task_paths: bool = True
    # Where the place never keeps the answers a run resumed with (an Agent Server's history),
    # what to say instead of showing one; "" where answers are stored.
    answers_unkept: str = ""
    # The reducers of the DeltaChannels of the graph the person who started the playground
    # named (``--graph``, ``--config``, the built-in agent), by state key: set by the edge that
    # loaded it, never read from data (:mod:`playground.timetravel.delta`).
    reducers: Mapping[str, Reducer] = {}
    # The surface the values read here are shown on (``delta.ON_PAGE``, ``ON_CLI``, ``ON_MCP``),
    # set by the edge that opened it: a value only the app's reducer folds says what works
    # there to see the value it makes.
    shown_on: str = ON_PAGE

    # -- the three questions a kind answers ---------------------------------------------------

    def thread_ids(self) -> list[str]:
        """Every thread that has a root checkpoint."""
        raise NotImplementedError

    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = "") -> list[StoredCheckpoint]:
        """A thread's checkpoints in a namespace, oldest first (by checkpoint id)."""
        raise NotImplementedError

    def stored_writes(self, thread_id: str, checkpoint_ns: str = "",
                      checkpoint_ids: Iterable[str] | None = None,
                      channels: Iterable[str] | None = None) -> list[StoredWrite]:
        """Pending writes of a thread's namespace (or only those under ``checkpoint_ids``, or
        on ``channels``), in the order they were stored."""
        raise NotImplementedError

    @property
    def identity(self) -> str:
        """What the place is, for caches shared by every session: never the label a person
        gave (two uploads may both be called app.sqlite)."""
        return self.label

    # -- reads derived from them --------------------------------------------------------------

    def _checkpoints(self, thread_id: str, checkpoint_ns: str = "") -> list[StoredCheckpoint]:
        found = sorted(self.stored_checkpoints(thread_id, checkpoint_ns),
                       key=lambda item: item.checkpoint_id)
        if not found:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        return found

    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first."""
        summaries = []
        for thread_id in self.thread_ids():
            try:
                summaries.append(self.thread_summary(thread_id))
            except UnknownThread:
                continue
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    def thread_summary(self, thread_id: str) -> ThreadSummary:
        """One thread's line of the thread list: counts, bytes, its head and when.

        Raises:
            UnknownThread: it has no checkpoints in the root namespace.
        """
        items = self._checkpoints(thread_id)
        by_id = {item.checkpoint_id: item for item in items}
        head = items[-1]
        writes = sum(write.size for write in self.stored_writes(thread_id))
        parents = {item.parent_id for item in items}
        created = head.checkpoint.get("ts")
        return ThreadSummary(
            thread_id=thread_id, checkpoints=len(items),
            newest_at=created if isinstance(created, str) else None,
            head_next=self._detail(head, by_id).next,
            branches=sum(1 for item in items if item.checkpoint_id not in parents),
            stored_bytes=sum(i.blob_bytes + i.metadata_bytes for i in items) + writes,
            head_id=head.checkpoint_id)

    def thread_lines(self, thread_ids: list[str]
                     ) -> Iterator[tuple[str, ThreadLine | None]]:
        """What the thread list shows of some threads, in their order: each one's summary,
        its head's questions, answers and errors, and its first checkpoint's metadata (None
        for a thread gone since it was listed). Here one thread at a time, so a deadline met
        midway keeps the lines read before it; a SQL kind reads a batch in a few queries."""
        for thread_id in thread_ids:
            try:
                summary = self.thread_summary(thread_id)
            except UnknownThread:
                yield thread_id, None
                continue
            signals = self.signals_at(thread_id, [summary.head_id]).get(
                summary.head_id, ()) if summary.head_id else ()
            yield thread_id, (summary, signals, self.first_metadata(thread_id))

    # The statuses the thread list can filter this kind's threads by.
    statuses: ClassVar[tuple[str, ...]] = STATUSES

    def thread_status(self, summary: ThreadSummary, head_signals: tuple[TaskSignal, ...]
                      ) -> Status:
        """Where a thread stands, from its head (a kind that knows more, such as a running
        thread, says so)."""
        return status_of(summary, head_signals)

    # Whether :meth:`thread_candidates` walks threads by their newest checkpoint's time, so
    # that a walk past ``since`` finds only older ones: this one does (it sorts by it); a kind
    # that walks in another order says False, and its walk is read to its end.
    walks_in_time_order = True

    def thread_candidates(self, query: ThreadQuery) -> Iterator[tuple[str, str]]:
        """(thread id, cursor after it) for the threads a page of ``query`` may hold, newest
        first, from ``query.after`` on; a kind pushes what filters it can into its own query.
        This one lists every thread (:meth:`threads`, within the read's limits) and checks a
        metadata filter against each thread's checkpoints; its cursor is a position in that
        list.

        Raises:
            QueryRefused: ``query.after`` is not a cursor of this kind.
        """
        start = counted_cursor(query.after, "i")
        wanted = query.meta_values()
        for index, summary in enumerate(self.threads()[start:], start + 1):
            if wanted and not any(metadata_holds(item.metadata, wanted)
                                  for item in self._checkpoints(summary.thread_id)):
                continue
            yield summary.thread_id, f"i{index}"

    def counted(self, query: ThreadQuery) -> int | None:
        """How many threads match ``query``, when this kind's database can count them itself
        (:func:`~playground.timetravel.thread_list.counted_in_sql`); None here: the thread
        list walks."""
        return None

    def first_metadata(self, thread_id: str) -> dict:
        """The metadata of a thread's first root checkpoint (a run's own keys, ``user_id``
        or ``channel``, are stored with each checkpoint it writes), {} when unreadable."""
        items = self.stored_checkpoints(thread_id)
        return min(items, key=lambda item: item.checkpoint_id).metadata if items else {}

    def checkpoint_metadata(self, thread_id: str, checkpoint_ns: str = "",
                            checkpoint_ids: Iterable[str] | None = None) -> dict[str, dict]:
        """Each checkpoint's metadata as stored (or of some), by checkpoint id."""
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        return {item.checkpoint_id: item.metadata
                for item in self.stored_checkpoints(thread_id, checkpoint_ns)
                if wanted is None or item.checkpoint_id in wanted}

    def namespaces(self, thread_id: str) -> list[str]:
        """Checkpoint namespaces of a thread: "" for the root (a kind that keeps subgraph
        checkpoints lists them too)."""
        return [""]

    def records(self, thread_id: str, checkpoint_ns: str = "", times: bool = False
                ) -> list[CheckpointRecord]:
        """Every checkpoint of a thread and namespace, oldest first.

        With ``times``, each record's ``created_at`` too where the kind can read it in the same
        pass for little (a page that shows a timeline beside the tree asks; a kind that decodes
        its checkpoints anyway, as here, fills it always).

        Raises:
            UnknownThread: the thread has no checkpoints in this namespace.
        """
        items = self._checkpoints(thread_id, checkpoint_ns)
        sizes: dict[str, int] = defaultdict(int)
        for write in self.stored_writes(thread_id, checkpoint_ns):
            sizes[write.checkpoint_id] += write.size
        return [CheckpointRecord(
            item.checkpoint_id, item.parent_id, checkpoint_ns, _int_or_none(
                item.metadata.get("step")), _str_or_none(item.metadata.get("source")),
            item.blob_bytes, item.metadata_bytes, sizes.get(item.checkpoint_id, 0),
            _str_or_none(item.checkpoint.get("ts")), *run_of(item.metadata))
            for item in items]

    def resume_marks(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> dict[str, Any]:
        """Each checkpoint's ``versions_seen["__interrupt__"]`` (None where it has none, or
        the kind does not keep it): where a checkpoint's differs from its parent's, a run was
        resumed there (:func:`playground.timetravel.decode.interrupt_seen`). A timeline asks
        only for steps that carry no run ids."""
        wanted = set(checkpoint_ids)
        found = {}
        for item in self.stored_checkpoints(thread_id, checkpoint_ns):
            if item.checkpoint_id in wanted:
                seen = item.checkpoint.get("versions_seen")
                mark = seen.get("__interrupt__") if isinstance(seen, dict) else None
                found[item.checkpoint_id] = mark if isinstance(mark, dict) else None
        return found

    @staticmethod
    def _detail(item: StoredCheckpoint, by_id: dict[str, StoredCheckpoint]) -> CheckpointDetail:
        parent = by_id.get(item.parent_id) if item.parent_id else None
        return detail_of(item.checkpoint_id, item.checkpoint,
                         parent.checkpoint if parent is not None else None, item.problem)

    def details(self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
                ) -> dict[str, CheckpointDetail]:
        """What the checkpoints themselves tell: time, next nodes, writers, changed channels."""
        wanted = set(checkpoint_ids)
        by_id = {item.checkpoint_id: item
                 for item in self.stored_checkpoints(thread_id, checkpoint_ns)}
        return {cid: self._detail(by_id[cid], by_id) for cid in wanted if cid in by_id}

    def checkpoint_times(self, thread_id: str, checkpoint_ids: Iterable[str],
                         checkpoint_ns: str = "") -> dict[str, str | None]:
        """Each checkpoint's stored time (``ts``; a kind reads it cheaper where it can)."""
        return {cid: detail.created_at for cid, detail in self.details(
            thread_id, checkpoint_ids, checkpoint_ns).items()}

    def write_owners(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> list[tuple[str, str, str, str]]:
        """(checkpoint, node, task, channel) of the writes under some checkpoints (a kind that
        can, without reading their values)."""
        writes = self._with_nodes(thread_id, checkpoint_ns, self.stored_writes(
            thread_id, checkpoint_ns, list(checkpoint_ids)))
        return [(w.checkpoint_id, w.writer(), w.task_id, w.channel) for w in writes]

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """A cheap value that changes whenever the thread's stored checkpoints change; None
        when the kind has none (then its trees are read anew every time, never cached)."""
        return None

    def values(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = "") -> dict:
        """The state values at one checkpoint as LangGraph loads them (its bookkeeping channels
        left out; a DeltaChannel's value rebuilt: :meth:`state`).

        Raises:
            CheckpointDbError: no such checkpoint.
            UnreadableCheckpoint: its blob cannot be decoded.
        """
        return self.state(thread_id, checkpoint_id, checkpoint_ns).values

    def ancestry(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
                 ) -> Iterator[StoredCheckpoint]:
        """The checkpoint, then its parent, its parent's parent and so on, each decoded, read
        as the caller goes (a DeltaChannel's walk stops at the first ancestor holding its
        value). A kind with SQL follows the parent links in the database."""
        by_id = {item.checkpoint_id: item
                 for item in self.stored_checkpoints(thread_id, checkpoint_ns)}
        seen: set[str] = set()
        at: str | None = checkpoint_id
        while at is not None and at in by_id and at not in seen:
            seen.add(at)
            yield by_id[at]
            at = by_id[at].parent_id

    def state(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = "") -> StateAt:
        """The state values at one checkpoint as LangGraph's ``get_state`` gives them, and how
        each DeltaChannel value was rebuilt (:mod:`playground.timetravel.delta`): its seed is the
        nearest ancestor holding a value, its writes those stored under the checkpoints walked
        to it, oldest first and in LangGraph's order within one checkpoint.

        Raises:
            CheckpointDbError: no such checkpoint.
            UnreadableCheckpoint: its blob cannot be decoded.
        """
        chain = self.ancestry(thread_id, checkpoint_id, checkpoint_ns)
        first = next(chain, None)
        if first is None:
            raise CheckpointDbError(f"no checkpoint {checkpoint_id} in thread {thread_id!r}")
        if first.problem:
            raise UnreadableCheckpoint(first.problem)
        stored = state_values(first.checkpoint)
        values = {key: stored_value(value) for key, value in stored.items()}
        versions = first.checkpoint.get("channel_versions")
        wanted = channels_to_rebuild(first.checkpoint, (
            key for key in (versions if isinstance(versions, dict) else ())
            if isinstance(key, str) and not is_internal_channel(key)))
        # A DeltaChannel never written on this branch still reads as its empty value in
        # LangGraph (``from_checkpoint`` of nothing): the channels LangGraph counts in the
        # metadata, and the graph's own, when it was named.
        for channel in (*delta_channels(first.metadata), *self.reducers):
            if channel not in values and not is_internal_channel(channel) and (
                    not isinstance(versions, dict) or channel not in versions):
                values[channel] = []
        if not wanted:
            return StateAt(values)
        # Walk up until every wanted channel meets a stored value (its seed) or the root.
        seeds: dict[str, tuple[Any, str]] = {}
        walked: dict[str, list[str]] = {channel: [] for channel in wanted}
        open_ = set(wanted)
        for item in chain:
            if not open_:
                break
            for channel in open_:
                walked[channel].append(item.checkpoint_id)
            held = item.checkpoint.get("channel_values")
            for channel in [c for c in open_ if isinstance(held, dict) and c in held]:
                seeds[channel] = (stored_value(held[channel]), item.checkpoint_id)
                open_.discard(channel)
        under = {cid for ids in walked.values() for cid in ids}
        writes = self._with_nodes(thread_id, checkpoint_ns, self.stored_writes(
            thread_id, checkpoint_ns, sorted(under), wanted)) if under else []
        by_place: dict[tuple[str, str], list[StoredWrite]] = defaultdict(list)
        for write in writes:
            by_place[(write.checkpoint_id, write.channel)].append(write)
        rebuilt = []
        for channel in wanted:
            replayed = []
            for cid in reversed(walked[channel]):  # oldest first
                # LangGraph's writes_sort_key: task path, then task id; the kinds give each
                # task's writes in index order, which the stable sort keeps.
                here = sorted(by_place.get((cid, channel), ()),
                              key=lambda w: (w.task_path, w.task_id))
                replayed.extend(DeltaWrite(cid, w.node or task_node(w.task_path), w.value)
                                for w in here)
            seed, seed_at = seeds.get(channel, (None, None))
            values[channel], how = fold(channel, seed, seed_at, replayed,
                                        self.reducers.get(channel), self.shown_on)
            rebuilt.append(how)
        return StateAt(dict(sorted(values.items(), key=lambda kv: _key_order(
            kv[0], versions))), tuple(rebuilt))

    def store_items(self, limit: int = 500) -> list | None:
        """The items of a LangGraph store beside the checkpoints (None when there is none)."""
        return None

    def own_export(self, thread_id: str) -> dict | None:
        """A thread's export in the place's own terms, for a place without saver rows to
        export (an Agent Server's history); None where the rows are the export."""
        return None

    def pending_writes_of(self, thread_id: str, checkpoint_ids: Iterable[str],
                          checkpoint_ns: str = "") -> dict[str, list[PendingWrite]]:
        """The writes under each of some checkpoints, in one read (ids without writes are
        left out)."""
        found: dict[str, list[PendingWrite]] = defaultdict(list)
        writes = self._with_nodes(thread_id, checkpoint_ns, self.stored_writes(
            thread_id, checkpoint_ns, list(checkpoint_ids)))
        for write in writes:
            found[write.checkpoint_id].append(
                PendingWrite(write.writer(), write.channel, write.value, write.size,
                             write.task_id))
        return dict(found)

    def _with_nodes(self, thread_id: str, checkpoint_ns: str, writes: list[StoredWrite]
                    ) -> list[StoredWrite]:
        """Where the place keeps no task paths, writes take their checkpoint's single next node
        when it has one: the only task that can have written there. (Where it keeps them, a
        path naming no node is LangGraph's own: an answer the input brought, a ``Send``.)"""
        if self.keeps_task_paths:
            return writes
        unnamed = {write.checkpoint_id for write in writes if self._unnamed(write)}
        if not unnamed:
            return writes
        due = {cid: detail.next for cid, detail in self.details(
            thread_id, unnamed, checkpoint_ns).items()}
        return [replace(write, node=due[write.checkpoint_id][0])
                if self._unnamed(write) and len(due.get(write.checkpoint_id, ())) == 1 else write
                for write in writes]

    @staticmethod
    def _unnamed(write: StoredWrite) -> bool:
        # LangGraph's own task (an answer the input brought) is no node's.
        return (not write.node and not task_node(write.task_path) and write.task_id != NULL_TASK
                and not write.task_path.startswith("~__pregel_push"))

    def pending_writes(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
                       ) -> list[PendingWrite]:
        """Writes stored under one checkpoint by the tasks that ran from it."""
        return self.pending_writes_of(thread_id, [checkpoint_id], checkpoint_ns).get(
            checkpoint_id, [])

    def signals(self, thread_id: str, checkpoint_ns: str = ""
                ) -> dict[str, tuple[TaskSignal, ...]]:
        """Questions, answers and errors tasks stored under each checkpoint of a thread."""
        writes = self.stored_writes(thread_id, checkpoint_ns, channels=SIGNAL_CHANNELS)
        return group_signals(
            (write.checkpoint_id, write.node or task_node(write.task_path), write.channel,
             write.value)
            for write in self._with_nodes(thread_id, checkpoint_ns, writes))

    def signals_at(self, thread_id: str, checkpoint_ids: Iterable[str],
                   checkpoint_ns: str = "") -> dict[str, tuple[TaskSignal, ...]]:
        """Questions, answers and errors stored under some checkpoints only (a thread list
        row asks for its head's)."""
        writes = self.stored_writes(thread_id, checkpoint_ns, list(checkpoint_ids),
                                    channels=SIGNAL_CHANNELS)
        return group_signals(
            (write.checkpoint_id, write.node or task_node(write.task_path), write.channel,
             write.value)
            for write in self._with_nodes(thread_id, checkpoint_ns, writes))

    def saver(self, serde: Any) -> BaseCheckpointSaver:
        """The official saver on this place's connection with the graph's ``serde`` (for edits
        and replays), when writable.

        Args:
            serde: the serializer of the graph that will run on it
                (:func:`playground.serde.graph_serde`, never the permissive default).

        Raises:
            CheckpointDbError: the reads are open read-only, or the place has no saver this
                tool can write with.
        """
        if not self.writable:
            raise CheckpointDbError(f"{self.label} is open read-only: reopen it writable to edit")
        return self._saver_on_connection(serde)

    def _saver_on_connection(self, serde: Any) -> BaseCheckpointSaver:
        """The kind's official saver on the connection these reads hold."""
        raise CheckpointDbError(f"{self.label}: a {self.kind} place is read-only here")

    def close(self) -> None:
        """Give back what the reads hold (a connection); nothing by default."""

    # -- what writes are made of (prune, migrate, transfer) ------------------------------------
    # A read-only kind keeps these defaults: the flows check ``writable`` and
    # ``has_saver_tables`` first and refuse in one line before any of them is called.

    def has_saver_tables(self) -> bool:
        """True when the place has a saver's tables this tool can change (real tables)."""
        return False

    def create_saver_tables(self) -> None:
        """Make the saver's tables, by the saver itself, in a place opened with ``create``
        that has none (an import's target, once the export has been checked)."""
        raise self._read_only()

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction: what the body reads cannot change before it commits (no saver
        adds a checkpoint between a plan and its change); rolled back on any error."""
        raise self._read_only()

    def stored_bytes(self, thread_id: str, checkpoint_ns: str = "") -> int:
        """Bytes a thread's namespace stores: checkpoints, their values and their writes."""
        return sum(record.stored_bytes for record in self.records(thread_id, checkpoint_ns))

    def plan_rows(self, thread_id: str, checkpoint_ns: str) -> list[PlanRow]:
        """A thread's checkpoints in a namespace, oldest first, as a deletion plans on them."""
        raise self._read_only()

    def deletion_bytes(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                       doomed: set[str]) -> tuple[int, int, int]:
        """(bytes before, bytes after, pending writes deleted) of deleting ``doomed``."""
        raise self._read_only()

    def delete_checkpoints(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                           deleted: Iterable[str], detached: Iterable[str]) -> None:
        """Delete checkpoints with their writes (and values no kept checkpoint refers to); set
        the parent of ``detached`` ones to NULL. Inside :meth:`transaction`."""
        raise self._read_only()

    def heads(self, thread_id: str | None = None) -> Iterator[Head]:
        """The newest root checkpoint of each thread (or of one), ordered by thread id."""
        raise self._read_only()

    def rewrite_problem(self, head: Head) -> str | None:
        """Why rewriting ``head`` would change more than a rename, or None."""
        return f"a {self.kind} place cannot be rewritten here"

    def count_writes(self, thread_id: str, checkpoint_id: str, channel: str) -> int:
        """Pending writes stored on ``channel`` under a root checkpoint."""
        return sum(1 for write in self.stored_writes(thread_id, "", [checkpoint_id])
                   if write.channel == channel)

    def rename_extra(self, head: Head, old: str, new: str) -> tuple[list[str], Any] | str:
        """What else a rename of ``old`` to ``new`` in ``head`` must change beyond the checkpoint
        and its writes: ``(names of what changes, a plan)``, or why it cannot (one line)."""
        return [], None

    def rewrite_head(self, head: Head, checkpoint: dict, old: str, new: str, plan: Any) -> None:
        """Store ``checkpoint`` as the head, rename its pending writes on ``old`` to ``new``,
        and carry out ``plan``. Inside :meth:`transaction`."""
        raise self._read_only()

    def export_rows(self, thread_id: str) -> dict[str, list[tuple]]:
        """Every row of a thread, in all namespaces, per export table."""
        raise self._read_only()

    def rows_taken(self, thread_id: str) -> int:
        """Rows a thread already has (checkpoints, values, writes), in any namespace."""
        raise self._read_only()

    def insert_rows(self, thread_id: str, rows: dict[str, list[tuple]]) -> None:
        """Insert an export's checked rows under ``thread_id``. Inside :meth:`transaction`.

        Raises:
            DuplicateRows: the rows repeat a key the place already holds.
        """
        raise self._read_only()

    def rows_bytes(self, rows: dict[str, list[tuple]]) -> int:
        """Bytes the rows of an import hold, counted as :meth:`stored_bytes` counts them."""
        raise self._read_only()

    # -- what a clone is made of ----------------------------------------------------------
    # A clone reads a thread's rows in the place's own layout (:meth:`branch_rows`) and, when
    # the target is another kind, carries them across in no saver's layout
    # (:mod:`playground.timetravel.portable`); the target writes them with :meth:`insert_rows`.

    def checkpoint_links(self, thread_id: str) -> list[CheckpointLink]:
        """Every checkpoint of a thread, in every namespace, with its parent and (for a
        subgraph's) the root checkpoint its call ran from. Here from the decoded checkpoints;
        a SQL kind reads the columns."""
        links = []
        for namespace in self.namespaces(thread_id):
            for item in self.stored_checkpoints(thread_id, namespace):
                parents = item.metadata.get("parents")
                root = parents.get("") if namespace and isinstance(parents, dict) else None
                links.append(CheckpointLink(namespace, item.checkpoint_id, item.parent_id,
                                            root if isinstance(root, str) else None))
        return links

    def branch_rows(self, thread_id: str, keep: frozenset[tuple[str, str]] | None
                    ) -> dict[str, list[tuple]]:
        """A thread's rows per export table, as stored, of the kept checkpoints only (``(namespace,
        checkpoint id)`` pairs; None: every row): their checkpoints, their writes and (where the
        kind keeps values apart) the values they refer to."""
        raise self._no_rows()

    def portable_of(self, rows: dict[str, list[tuple]]) -> PortableThread:
        """This kind's rows (as :meth:`branch_rows` gives them) in no saver's layout, values
        moved as their stored bytes.

        Raises:
            NotPortable: a row another kind could not take as it is (one line: which, why).
        """
        raise self._no_rows()

    def rows_of_portable(self, thread: PortableThread) -> dict[str, list[tuple]]:
        """A thread in no saver's layout as this kind's rows, ready for :meth:`insert_rows`,
        laid out as this kind's own saver lays them out.

        Raises:
            NotPortable: a value this kind's saver could not store either (one line).
        """
        raise self._no_rows()

    def _no_rows(self) -> CheckpointDbError:
        return CheckpointDbError(f"{self.label}: a {self.kind} place has no saver rows to copy")

    def _read_only(self) -> CheckpointDbError:
        return CheckpointDbError(f"{self.label}: a {self.kind} place is read here, never "
                                 "changed")


def growing_batches(ids: list[str], most: int = 32) -> Iterator[list[str]]:
    """``ids`` in batches of 1, 4, 16, then ``most``: a walk up the parent links reads the
    checkpoint itself alone (most reads need no more: nothing to rebuild), then more at a time
    as it goes on."""
    size, start = 1, 0
    while start < len(ids):
        yield ids[start : start + size]
        start += size
        size = min(size * 4, most)


def group_signals(writes: Iterable[tuple[str, str, str, Any]]
                  ) -> dict[str, tuple[TaskSignal, ...]]:
    """Signals per checkpoint from ``(checkpoint id, node, channel, value)`` rows, in order."""
    by_checkpoint: dict[str, list[tuple]] = defaultdict(list)
    for checkpoint_id, node, channel, value in writes:
        by_checkpoint[checkpoint_id].append((node, channel, value))
    return {cid: signals_of(rows) for cid, rows in by_checkpoint.items()}


def _key_order(key: str, versions: object) -> tuple[int, str]:
    # A rebuilt key joins the others where the checkpoint lists its version, as a stored one
    # would sit, rather than at the end.
    order = list(versions) if isinstance(versions, dict) else []
    return (order.index(key) if key in order else len(order), key)


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
