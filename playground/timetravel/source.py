"""Open a checkpoint database, whatever holds it, as one kind of object: a checkpoint source.

``open_source`` takes what a user types (a SQLite path, a ``postgresql://`` URL) or a saver
object, and returns a source with the same read methods. Inspection is read-only unless the
caller asks for ``writable=True``. Files and URLs are read through the safe decoder
(:mod:`playground.timetravel.decode`), which never imports or calls what the data names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from playground.timetravel.dburl import is_postgres_url
from playground.timetravel.records import CheckpointDetail, CheckpointRecord, ThreadSummary

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
from playground.timetravel.signals import TaskSignal

__all__ = ["CheckpointSource", "PendingWrite", "is_postgres_url", "open_source"]


@dataclass(frozen=True)
class PendingWrite:
    """One write a task stored under a checkpoint."""

    node: str
    channel: str
    value: Any
    size: int


class CheckpointSource(Protocol):
    """What every storage adapter offers the engine."""

    kind: str
    label: str

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

    def signals(
        self, thread_id: str, checkpoint_ns: str = ""
    ) -> dict[str, tuple[TaskSignal, ...]]: ...

    def saver(self) -> BaseCheckpointSaver: ...

    def close(self) -> None: ...


def open_source(
    target: str | Path | BaseCheckpointSaver, writable: bool = False, typed: bool = False
) -> CheckpointSource:
    """Open a checkpoint database for the engine.

    Args:
        target: a SQLite file path, a Postgres URL, or any ``BaseCheckpointSaver``.
        writable: allow writes (edit, fork, prune, migrate, import).
        typed: a Postgres URL someone typed into a page: connect with only what it says
            (:func:`playground.timetravel.dburl.typed_connection`).

    Raises:
        CheckpointDbError: the target is not a readable LangGraph checkpoint database.
    """
    if not isinstance(target, (str, Path)):  # a saver object: no LangGraph import otherwise
        from playground.timetravel.saver_source import SaverSource

        return SaverSource(target)
    text = str(target)
    if is_postgres_url(text):
        from playground.timetravel.postgres_source import PostgresSource

        return PostgresSource(text, writable=writable, typed=typed)
    from playground.timetravel.sqlite_source import SqliteSource

    return SqliteSource(text, writable=writable)
