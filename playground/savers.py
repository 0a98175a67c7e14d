"""Checkpoint savers: the one adapter between the playground and where checkpoints live.

Every saver made here serializes with :func:`playground.serde.graph_serde`: LangGraph's safe
types plus the classes the running graph's state declares, never the permissive default that
imports whatever a checkpoint names.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from playground.timetravel.storage.open import is_postgres_url
from playground.timetravel.storage.postgres import setup_postgres_tables
from playground.timetravel.storage.settings import postgres_options, sqlite_timeout

if TYPE_CHECKING:  # imported where a saver is made: the CLI's read-only commands need neither
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.serde.base import SerializerProtocol
    from langgraph.checkpoint.sqlite import SqliteSaver

DEFAULT_CHECKPOINTS = Path(".playground") / "checkpoints.sqlite"


def sqlite_saver(conn: sqlite3.Connection, serde: SerializerProtocol | None = None) -> SqliteSaver:
    """A SqliteSaver on an open connection, tables set up, with the allowlisted serializer."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from playground.serde import graph_serde

    saver = SqliteSaver(conn, serde=serde or graph_serde())
    saver.setup()
    return saver


@contextmanager
def open_sqlite_saver(
    path: str | Path = DEFAULT_CHECKPOINTS, serde: SerializerProtocol | None = None
) -> Iterator[SqliteSaver]:
    """Open (creating if needed) a SqliteSaver on a file, and close it afterwards.

    The connection allows other threads because one SqliteSaver serializes every call through its
    own lock, which is what a Streamlit server with many sessions needs. A write waits up to
    :func:`sqlite_timeout` seconds for another writer's lock, then raises
    ``sqlite3.OperationalError`` ("database is locked").
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=sqlite_timeout())
    try:
        yield sqlite_saver(conn, serde)
    finally:
        conn.close()


def is_lock_timeout(exc: BaseException) -> bool:
    """True when a SQLite saver gave up waiting for another writer's lock (SQLITE_BUSY past
    :func:`sqlite_timeout`): the thread keeps its last checkpoint, and the same call can run
    again."""
    return isinstance(exc, sqlite3.OperationalError) and exc.sqlite_errorname.startswith(
        ("SQLITE_BUSY", "SQLITE_LOCKED"))


def postgres_saver(url: str, max_size: int = 10, serde: SerializerProtocol | None = None):
    """A PostgresSaver on a connection pool (the official saver; tables set up if missing).

    One pool per process serves every session and thread; ``close_postgres_saver`` closes it.
    """
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg_pool import ConnectionPool

    from playground.serde import graph_serde

    pool = ConnectionPool(url, min_size=1, max_size=max_size, open=True,
                          kwargs=postgres_options())
    saver = PostgresSaver(pool, serde=serde or graph_serde())
    with pool.connection() as conn:
        setup_postgres_tables(conn)
    return saver


def close_postgres_saver(saver) -> None:
    """Close the pool behind a saver made by :func:`postgres_saver`."""
    saver.conn.close()


@contextmanager
def open_saver(
    target: str | Path = DEFAULT_CHECKPOINTS, serde: SerializerProtocol | None = None
) -> Iterator:
    """Open the saver for a checkpoint target: a SQLite file path or a Postgres URL."""
    if is_postgres_url(target):
        saver = postgres_saver(str(target), max_size=2, serde=serde)
        try:
            yield saver
        finally:
            close_postgres_saver(saver)
    else:
        with open_sqlite_saver(target, serde) as saver:
            yield saver


# -- the async savers graphs run on (opened on the process's event loop) ----------------------


async def open_async_saver(
    target: str | Path, serde: SerializerProtocol | None = None, max_size: int = 10
) -> BaseCheckpointSaver:
    """The async saver for a checkpoint target, tables set up: ``AsyncSqliteSaver`` on a file
    (on aiosqlite), or ``AsyncPostgresSaver`` on an async pool.

    Await it on the loop that will use it (``playground.runtime.loop``): both savers bind to
    the running loop. The tables are the ones the sync savers write, so a stock
    ``SqliteSaver`` or ``PostgresSaver``, and the engine, read every thread it writes.
    """
    from playground.serde import graph_serde

    serde = serde or graph_serde()
    if is_postgres_url(target):
        import asyncio

        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg_pool import AsyncConnectionPool

        def setup() -> None:
            with psycopg.connect(str(target), **postgres_options()) as conn:
                setup_postgres_tables(conn)

        # The migrations take a lock by polling (setup_postgres_tables): not on the loop.
        await asyncio.to_thread(setup)
        pool = AsyncConnectionPool(str(target), min_size=1, max_size=max_size, open=False,
                                   kwargs=postgres_options())
        await pool.open()
        return AsyncPostgresSaver(pool, serde=serde)
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    # One connection for every session: AsyncSqliteSaver serializes its calls with its lock.
    conn = await aiosqlite.connect(str(path), timeout=sqlite_timeout())
    saver = AsyncSqliteSaver(conn, serde=serde)
    await saver.setup()
    return saver


async def close_async_saver(saver: BaseCheckpointSaver) -> None:
    """Close what :func:`open_async_saver` opened (its connection or its pool)."""
    await saver.conn.close()


def has_async_api(saver: BaseCheckpointSaver) -> bool:
    """Whether a saver implements LangGraph's async methods itself (SqliteSaver and
    PostgresSaver raise NotImplementedError there; their async twins and InMemorySaver don't)."""
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver

    own = type(saver).aget_tuple
    return own is not BaseCheckpointSaver.aget_tuple and not isinstance(
        saver, (SqliteSaver, PostgresSaver))


def threaded(saver: BaseCheckpointSaver) -> BaseCheckpointSaver:
    """A saver with the async API over a sync-only one, each call run in a worker thread.

    For a graph compiled on a stock ``SqliteSaver`` or ``PostgresSaver`` (a script, a test, the
    CLI) that the playground drives through ``astream``. The data and the tables are the
    sync saver's own; this only moves its calls off the event loop.
    """
    import asyncio

    from langgraph.checkpoint.base import BaseCheckpointSaver

    class Threaded(BaseCheckpointSaver):
        def __init__(self) -> None:
            super().__init__(serde=saver.serde)
            self.inner = saver

        def get_tuple(self, config):
            return saver.get_tuple(config)

        def list(self, config, **kwargs):
            return saver.list(config, **kwargs)

        def put(self, config, checkpoint, metadata, new_versions):
            return saver.put(config, checkpoint, metadata, new_versions)

        def put_writes(self, config, writes, task_id, task_path=""):
            return saver.put_writes(config, writes, task_id, task_path)

        def delete_thread(self, thread_id):
            return saver.delete_thread(thread_id)

        def get_next_version(self, current, channel):
            return saver.get_next_version(current, channel)

        def get_delta_channel_history(self, *, config, channels):
            return saver.get_delta_channel_history(config=config, channels=channels)

        async def aget_tuple(self, config):
            return await asyncio.to_thread(saver.get_tuple, config)

        async def alist(self, config, **kwargs):
            # Materialized first: a sync saver holds its lock while its list() is open.
            for item in await asyncio.to_thread(lambda: list(saver.list(config, **kwargs))):
                yield item

        async def aput(self, config, checkpoint, metadata, new_versions):
            return await asyncio.to_thread(saver.put, config, checkpoint, metadata,
                                           new_versions)

        async def aput_writes(self, config, writes, task_id, task_path=""):
            return await asyncio.to_thread(saver.put_writes, config, writes, task_id, task_path)

        async def adelete_thread(self, thread_id):
            return await asyncio.to_thread(saver.delete_thread, thread_id)

        async def aget_delta_channel_history(self, *, config, channels):
            return await asyncio.to_thread(
                lambda: saver.get_delta_channel_history(config=config, channels=channels))

    return Threaded()
