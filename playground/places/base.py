"""What a place threads live answers: the one object pages, the CLI and the runtime ask.

A :class:`Place` is cheap to make (nothing connects until it is asked something) and lives as
long as its caller wants: a command, or the whole server. It answers

- what it is: :attr:`~Place.kind`, a :attr:`~Place.label` safe to show, whether it can be
  written, and the database replicas share (:attr:`~Place.shared_database`);
- the engine's reads, as a :class:`~playground.timetravel.storage.Storage` that holds its
  connection for one command or one page run (:meth:`~Place.reads`);
- the saver and the long-term store a graph runs on, where the place has them
  (:meth:`~Place.open_saver`, :meth:`~Place.open_store`, :meth:`~Place.saver`);
- how it is closed (:meth:`~Place.close`) and what a "process restart" does to it
  (:meth:`~Place.restart`, :attr:`~Place.generation`).

A kind of place is one module in this package: a ``Place`` subclass (and the ``Storage`` its
reads come from), registered by one line in :mod:`playground.places.door`. See
docs/architecture.md, "The door".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.storage import JAVASCRIPT

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.store.base import BaseStore

    from playground.timetravel.storage import Storage

def written_by_another(label: str, writer: str) -> str:
    """Why a place another writer made is read here and never written, in one line."""
    if writer == JAVASCRIPT:
        return (f"{label} was written by LangGraph.js (JSON rows): the playground reads it "
                "(Inspect, playground history) and never writes to it or runs a graph on it, "
                "since its app reads only the rows it writes")
    return (f"{label} was written by {writer}: the playground reads it and never writes to it; "
            "your app's current saver upgrades it when it opens it")


# The log of what runs wrote to the long-term store, kept beside the store's own tables
# (playground.runtime.store_log reads and writes it through a StoreLog).
STORE_LOG_TABLE = "playground_store_changes"
STORE_LOG_COLUMNS = ("thread_id, from_checkpoint, node, namespace, key, before_value, "
                     "after_value, at")
STORE_LOG_DDL = (f"CREATE TABLE IF NOT EXISTS {STORE_LOG_TABLE} (thread_id TEXT, "
                 "from_checkpoint TEXT, node TEXT, namespace TEXT NOT NULL, key TEXT NOT NULL, "
                 "before_value TEXT, after_value TEXT, at TEXT NOT NULL)")


class StoreLog:
    """Where a place keeps the log of store changes: one insert, one select (async).

    The statements are the same on every kind but for the driver's placeholder
    (:attr:`mark`); a kind says only how it runs them (:meth:`_execute_many`, :meth:`_fetch`).
    """

    mark: ClassVar[str] = "?"

    async def insert(self, rows: list[tuple]) -> None:
        """Add rows, each ``(thread_id, from_checkpoint, node, namespace, key, before_value,
        after_value, at)``."""
        marks = ", ".join([self.mark] * len(STORE_LOG_COLUMNS.split(",")))
        await self._execute_many(
            f"INSERT INTO {STORE_LOG_TABLE} ({STORE_LOG_COLUMNS}) VALUES ({marks})", rows)

    async def select(self, thread_id: str, from_checkpoint: str | None, limit: int
                     ) -> list[tuple]:
        """A thread's rows (or one step's: the checkpoint it ran from), oldest first."""
        step = f"AND from_checkpoint = {self.mark} " if from_checkpoint else ""
        params = (thread_id, from_checkpoint, int(limit)) if from_checkpoint else (
            thread_id, int(limit))
        return await self._fetch(
            f"SELECT {STORE_LOG_COLUMNS} FROM {STORE_LOG_TABLE} WHERE thread_id = {self.mark} "
            f"{step}ORDER BY at LIMIT {self.mark}", params)

    async def _execute_many(self, sql: str, rows: list[tuple]) -> None:
        raise NotImplementedError

    async def _fetch(self, sql: str, params: tuple) -> list[tuple]:
        raise NotImplementedError


class OwnTablesError(OSError):
    """A table of the playground's own could not be read or written (the database is down,
    locked or full); the message is one line."""


class OwnTables:
    """Tables of the playground's own beside a place's threads (the rooms' records), reached
    through the place: its connection pool and its deadline. Opened by
    :meth:`Place.own_tables`; never on a place the playground only inspects.

    Statements take ``?`` marks whatever the kind; rows come back as tuples.
    """

    # A float column's type: one word both kinds take (SQLite reads it as REAL).
    NUMBER = "DOUBLE PRECISION"

    def run(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement, committed at once; its rows (none for a statement without).

        Raises:
            OwnTablesError: the driver's error, in one line.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Give back what the tables hold for the process (a connection); nothing by default."""


@dataclass(frozen=True)
class OpenedStore:
    """A long-term store a place opened for graphs, and its change log."""

    store: BaseStore
    log: StoreLog


class Place:
    """One place threads live (see the module's docstring).

    Args:
        target: what the user named: a path, a URL, or an object (a saver).
        typed: the target was typed into a page by whoever reaches it: connect with only what
            it says (a kind that connects somewhere checks it before anything else).
        label: how to name the place to a person, when not by its target (an upload's copy
            is named by the uploaded file's name, never by its temporary path).

    Attributes:
        target: the target as given (may hold a password: show :attr:`label`).
        label: the place, safe to show and log.
        generation: how many times :meth:`restart` made new savers; part of every cache key
            of what runs on this place.
    """

    kind: ClassVar[str] = "place"

    # Whether a person may type a target of this kind into a page (a URL the kind checks); a
    # path typed into a page is refused, so a folder rule cannot be bypassed.
    typeable: ClassVar[bool] = False

    def __init__(self, target: Any, typed: bool = False, label: str | None = None) -> None:
        self.target = target
        self.typed = typed
        self.label = label or str(target)
        self.generation = 0

    @classmethod
    def claims(cls, target: Any) -> bool:
        """Whether a target names a place of this kind. The door asks every kind in turn."""
        raise NotImplementedError

    @classmethod
    def is_busy(cls, exc: BaseException) -> bool:
        """Whether an error means another writer held the place too long: the thread keeps
        its last checkpoint, and the same call can run again."""
        return False

    @classmethod
    def is_transient(cls, exc: BaseException) -> bool:
        """Whether an error is a moment of another process's write (a lock, a page it was
        writing): the same read will likely succeed again."""
        return cls.is_busy(exc)

    @classmethod
    def errors(cls) -> tuple[type[Exception], ...]:
        """What reading this kind of place can raise besides a refusal (a driver's errors)."""
        return ()

    # -- what it is -------------------------------------------------------------------------

    def check_typed(self) -> None:
        """Refuse a typed target that asks for more than a page may (raises ``UrlRefused``);
        called by the door before anything connects."""

    @property
    def shared_database(self) -> str | None:
        """The database several processes share through this place (replicas, the bundled
        ticket API), or None for a place of one process (a file)."""
        return None

    def exists(self) -> bool:
        """Whether the place holds anything yet (an import into it creates it otherwise)."""
        return True

    def command_words(self) -> list[str]:
        """How a ``playground`` command line names this place again: its label (a URL without
        its password: a person puts it back, or keeps it in a pgpass file), and the options it
        needs to be opened (a kind that needs more says so)."""
        return [self.label]

    def discard(self) -> None:
        """Remove what a refused import into a new place left (a file that did not exist
        before); a place that existed is left alone."""

    # -- the engine's reads ---------------------------------------------------------------

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> Storage:
        """The engine's reads (and, when ``writable``, the write primitives) on this place,
        holding a connection until closed.

        Args:
            writable: allow writes (edit, fork, prune, migrate, import).
            create: with ``writable``, open an import's target even when it is new.
            shared: for a caller that opens reads on every page run and never closes them:
                borrow from the process's pool where the kind has one.

        Raises:
            CheckpointDbError: the place is not a readable LangGraph checkpoint store.
        """
        raise NotImplementedError

    # -- what graphs run on ---------------------------------------------------------------

    async def open_saver(self, serde: Any, max_size: int = 10) -> BaseCheckpointSaver:
        """The official async saver on this place, tables set up, for graphs to run on. Await
        it on the loop that will use it: the savers bind to the running loop.

        Raises:
            CheckpointDbError: the place has no saver graphs can run on.
        """
        raise CheckpointDbError(f"{self.label}: graphs cannot run on a {self.kind} place")

    @contextmanager
    def saver(self, serde: Any = None) -> Iterator[BaseCheckpointSaver]:
        """The official sync saver on this place, tables set up, closed afterwards (the CLI's
        turns, scripts)."""
        raise CheckpointDbError(f"{self.label}: graphs cannot run on a {self.kind} place")
        yield  # pragma: no cover - a generator, for contextmanager

    def check_runnable(self) -> None:
        """Refuse, before anything is written, a place graphs must not run on: one another
        writer made (a LangGraph.js file), whose app would not read the rows a Python saver
        adds.

        Raises:
            CheckpointDbError: the place is read here and never written; the message says why.
        """

    def store_place(self) -> str:
        """Where the long-term store of this place lives (shown to the user)."""
        return self.label

    async def open_store(self, options: dict[str, Any]) -> OpenedStore:
        """The async long-term store beside the checkpoints, tables set up, and its change
        log. ``options`` are langgraph.json's ``index`` and ``ttl``.

        Raises:
            CheckpointDbError: the place has no store.
        """
        raise CheckpointDbError(f"{self.label}: a {self.kind} place has no store")

    def own_tables(self, name: str) -> OwnTables:
        """Where the playground keeps tables of its own beside this place (``name`` says which:
        ``rooms``), through this place's connections and deadline.

        Raises:
            CheckpointDbError: this kind of place keeps none.
        """
        raise CheckpointDbError(f"{self.label}: a {self.kind} place keeps no tables of the "
                                "playground's own")

    # -- lifecycle ------------------------------------------------------------------------

    def restart(self) -> None:
        """What a process restart does: the next saver asked for is a new one on a new
        connection (callers key their caches by :attr:`generation`). The data stays."""
        self.generation += 1

    def close(self) -> None:
        """Give back what the place holds for the process (pools); nothing by default."""
