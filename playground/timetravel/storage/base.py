"""The one protocol every checkpoint database is read and changed through, and its value types.

A :class:`Storage` gives the engine a thread's records, details, values, writes and signals,
whatever database holds them, through the safe decoder (:mod:`playground.timetravel.decode`,
which never imports or calls what the data names). Prune, migrate and transfer are each one
flow over the few primitives below: a transaction, the rows a deletion is planned on, deleting
them, reading and rewriting a thread's head, exporting and inserting rows. A backend supplies
its SQL and row shapes and nothing else: every refusal, report and check is the flow's, and
behaves the same on every database.

Nothing here imports a backend: the backends import this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from playground.timetravel.records import CheckpointDetail, CheckpointRecord, ThreadSummary
from playground.timetravel.signals import TaskSignal

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

__all__ = ["DuplicateRows", "ExportTable", "Head", "PendingWrite", "PlanRow", "Storage"]


@dataclass(frozen=True)
class PendingWrite:
    """One write a task stored under a checkpoint."""

    node: str
    channel: str
    value: Any
    size: int


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


class DuplicateRows(Exception):
    """Rows an import inserts that the database already holds (its own unique keys said so)."""


class Storage(Protocol):
    """What every checkpoint database offers the engine: reads, and the primitives of writes.

    Attributes:
        kind: ``sqlite``, ``postgres`` or ``saver``: names the backend in messages and exports.
        label: the database, safe to show (a URL without its password).
        writable: opened for writes (prune, migrate, import); read-only otherwise.
        saver_tables: the saver's tables, in words, for messages ("SqliteSaver tables
            (checkpoints, writes)").
        export_tables: the lists of rows a thread export of this database holds.
    """

    kind: str
    label: str
    writable: bool
    saver_tables: str
    export_tables: tuple[ExportTable, ...]

    # -- reads --------------------------------------------------------------------------------

    def threads(self) -> list[ThreadSummary]: ...

    def namespaces(self, thread_id: str) -> list[str]: ...

    def records(self, thread_id: str, checkpoint_ns: str = "") -> list[CheckpointRecord]: ...

    def details(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, CheckpointDetail]: ...

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None: ...

    def values(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = "") -> dict: ...

    def store_items(self, limit: int = 500) -> list | None:
        """The items of a LangGraph store table beside the checkpoints (None when there is none)."""
        ...

    def pending_writes(
        self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
    ) -> list[PendingWrite]: ...

    def pending_writes_of(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, list[PendingWrite]]:
        """The writes under each of some checkpoints, in one read (ids without writes are
        left out)."""
        ...

    def signals(
        self, thread_id: str, checkpoint_ns: str = ""
    ) -> dict[str, tuple[TaskSignal, ...]]: ...

    def saver(self, serde: Any) -> BaseCheckpointSaver:
        """The official saver on this database with the graph's ``serde`` (for edits and
        replays), when writable."""
        ...

    def close(self) -> None: ...

    # -- what writes are made of --------------------------------------------------------------

    def has_saver_tables(self) -> bool:
        """True when the database has the saver's tables (real tables, not views)."""
        ...

    def create_saver_tables(self) -> None:
        """Make the saver's tables, by the saver itself, in a database opened with ``create``
        that has none (an import's target, once the export has been checked)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction: what the body reads cannot change before it commits (no saver
        adds a checkpoint between a plan and its change); rolled back on any error."""
        ...

    def stored_bytes(self, thread_id: str, checkpoint_ns: str = "") -> int:
        """Bytes a thread's namespace stores: checkpoints, their values and their writes."""
        ...

    def plan_rows(self, thread_id: str, checkpoint_ns: str) -> list[PlanRow]:
        """A thread's checkpoints in a namespace, oldest first, as a deletion plans on them."""
        ...

    def deletion_bytes(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                       doomed: set[str]) -> tuple[int, int, int]:
        """(bytes before, bytes after, pending writes deleted) of deleting ``doomed``."""
        ...

    def delete_checkpoints(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                           deleted: Iterable[str], detached: Iterable[str]) -> None:
        """Delete checkpoints with their writes (and values no kept checkpoint refers to); set
        the parent of ``detached`` ones to NULL. Inside :meth:`transaction`."""
        ...

    def heads(self, thread_id: str | None = None) -> Iterator[Head]:
        """The newest root checkpoint of each thread (or of one), ordered by thread id."""
        ...

    def rewrite_problem(self, head: Head) -> str | None:
        """Why rewriting ``head`` would change more than a rename (it would not re-encode to
        the same bytes, or the same JSONB), or None."""
        ...

    def count_writes(self, thread_id: str, checkpoint_id: str, channel: str) -> int:
        """Pending writes stored on ``channel`` under a root checkpoint."""
        ...

    def rename_extra(self, head: Head, old: str, new: str) -> tuple[list[str], Any] | str:
        """What else a rename of ``old`` to ``new`` in ``head`` must change beyond the checkpoint
        and its writes: ``(names of what changes, a plan)``, or why it cannot (one line)."""
        ...

    def rewrite_head(self, head: Head, checkpoint: dict, old: str, new: str, plan: Any) -> None:
        """Store ``checkpoint`` as the head, rename its pending writes on ``old`` to ``new``,
        and carry out ``plan``. Inside :meth:`transaction`."""
        ...

    def export_rows(self, thread_id: str) -> dict[str, list[tuple]]:
        """Every row of a thread, in all namespaces, per export table: cells as stored (blobs
        as bytes, JSON as dicts) in the order of the table's columns."""
        ...

    def rows_taken(self, thread_id: str) -> int:
        """Rows a thread already has (checkpoints, values, writes), in any namespace."""
        ...

    def insert_rows(self, thread_id: str, rows: dict[str, list[tuple]]) -> None:
        """Insert an export's checked rows under ``thread_id``. Inside :meth:`transaction`.

        Raises:
            DuplicateRows: the rows repeat a key the database already holds.
        """
        ...

    def rows_bytes(self, rows: dict[str, list[tuple]]) -> int:
        """Bytes the rows of an import hold, counted as :meth:`stored_bytes` counts them."""
        ...
