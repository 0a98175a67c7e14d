"""A SQLite file as a place threads live: what it is (any path), how it is opened for the
engine's reads (:class:`~playground.places.sqlite.reads.SqliteStorage`), and the savers and the
store graphs run on in it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from playground.places.base import (
    STORE_LOG_DDL,
    OpenedStore,
    Place,
    written_by_another,
)
from playground.places.settings import sqlite_timeout
from playground.places.sqlite.own_tables import SqliteOwnTables
from playground.places.sqlite.reads import TRANSIENT, SqliteStorage
from playground.places.sqlite.store_log import SqliteStoreLog
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.storage import PYTHON


class SqliteFile(Place):
    """A SQLite file: SqliteSaver's checkpoints, and the store in a sibling file.

    Claims any path (the door asks it last). A process restart (:meth:`Place.restart`) makes
    the next saver a new one on a new connection: resuming then reads the file alone.
    """

    kind = "sqlite"

    def __init__(self, target: str | Path, typed: bool = False, label: str | None = None
                 ) -> None:
        super().__init__(str(target), typed, label)
        self.path = Path(target)

    @classmethod
    def claims(cls, target: object) -> bool:
        """Any path (a ``str`` or ``Path`` no other kind claimed)."""
        return isinstance(target, (str, Path))

    @classmethod
    def is_busy(cls, exc: BaseException) -> bool:
        """SQLITE_BUSY past :func:`~playground.places.settings.sqlite_timeout`."""
        # getattr: an error raised by Python code rather than by SQLite has no error name.
        return isinstance(exc, sqlite3.OperationalError) and (
            getattr(exc, "sqlite_errorname", None) or "").startswith(
            ("SQLITE_BUSY", "SQLITE_LOCKED"))

    @classmethod
    def is_transient(cls, exc: BaseException) -> bool:
        """A lock, or a page another process was writing ("disk I/O error")."""
        return cls.is_busy(exc) or (isinstance(exc, sqlite3.OperationalError)
                                    and str(exc).lower().startswith(TRANSIENT))

    @classmethod
    def errors(cls) -> tuple[type[Exception], ...]:
        """sqlite3's errors (a damaged file, a lock held too long)."""
        return (sqlite3.Error,)

    def command_words(self) -> list[str]:
        """The file, made absolute when it is here (a command may run in another folder)."""
        return [str(self.path.resolve())] if self.path.exists() else [self.label]

    def exists(self) -> bool:
        """Whether the file is there."""
        return self.path.exists()

    def discard(self) -> None:
        """Delete the file and SQLite's side files (only call it for a file this process
        created: the door's callers check :meth:`exists` first)."""
        for leftover in (self.path, *(Path(f"{self.path}{end}")
                                      for end in ("-wal", "-shm", "-journal"))):
            leftover.unlink(missing_ok=True)

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> SqliteStorage:
        """The file's reads (a file costs nothing to open: ``shared`` changes nothing)."""
        return SqliteStorage(self.path, writable=writable, create=create, label=self.label)

    def check_runnable(self) -> None:
        """Refuse a file another writer made (LangGraph.js, an older LangGraph). A file that
        is not there yet, is empty, or holds no checkpoint tables is fine: the saver makes
        them, as SqliteSaver.setup() does."""
        if not self.path.is_file() or self.path.stat().st_size == 0:
            return
        try:
            with closing(self.reads()) as reads:
                writer = reads.writer
        except CheckpointDbError:
            return  # not a checkpoint file yet: the saver's setup() makes its tables
        if writer != PYTHON:
            raise CheckpointDbError(written_by_another(self.label, writer))

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Other threads may use it: one SqliteSaver serializes every call through its lock.
        return sqlite3.connect(str(self.path), check_same_thread=False,
                               timeout=sqlite_timeout())

    @contextmanager
    def saver(self, serde=None) -> Iterator:
        """SqliteSaver on the file (created if needed), tables set up, closed afterwards. A
        write waits up to ``sqlite_timeout()`` for another writer's lock, then raises
        ``sqlite3.OperationalError`` ("database is locked": :meth:`is_busy`)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        from playground.serde import graph_serde

        self.check_runnable()
        conn = self._connect()
        try:
            saver = SqliteSaver(conn, serde=serde or graph_serde())
            saver.setup()
            yield saver
        finally:
            conn.close()

    async def open_saver(self, serde, max_size: int = 10):
        """AsyncSqliteSaver on aiosqlite: one connection for every session of the process
        (the saver serializes its calls with its lock)."""
        import asyncio

        import aiosqlite
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        # Off the loop every graph runs on: a file another process holds may make it wait.
        await asyncio.to_thread(self.check_runnable)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(self.path), timeout=sqlite_timeout())
        saver = AsyncSqliteSaver(conn, serde=serde)
        await saver.setup()
        return saver

    def own_tables(self, name: str) -> SqliteOwnTables:
        """A sibling file named for them (``rooms.sqlite`` beside the checkpoint file)."""
        return SqliteOwnTables(self.path.with_name(f"{name}.sqlite"))

    def store_place(self) -> str:
        """A sibling file (``app.sqlite`` -> ``app.store.sqlite``), not the checkpoint file
        itself: SQLite lets one writer in at a time, and a store transaction that reads
        before it writes (a TTL refresh, a put logged with its old value) fails at once with
        "database is locked" when the saver's connection wrote in between."""
        return str(self.path.with_name(f"{self.path.stem}.store{self.path.suffix or '.sqlite'}"))

    async def open_store(self, options):
        """AsyncSqliteStore in :meth:`store_place`, with its change log table."""
        import aiosqlite
        from langgraph.store.sqlite.aio import AsyncSqliteStore

        path = Path(self.store_place())
        path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: AsyncSqliteStore opens its own transactions
        # (docs/architecture.md, "LangGraph facts").
        conn = await aiosqlite.connect(str(path), isolation_level=None, timeout=sqlite_timeout())
        store = AsyncSqliteStore(conn, **options)
        await store.setup()
        await conn.execute(STORE_LOG_DDL)
        return OpenedStore(store, SqliteStoreLog(store))


