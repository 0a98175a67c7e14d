"""Checkpoint savers: the one adapter between the playground and where checkpoints live.

Every saver made here serializes with :func:`playground.serde.graph_serde`: LangGraph's safe
types plus the classes the running graph's state declares, never the permissive default that
imports whatever a checkpoint names.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from playground.timetravel.source import is_postgres_url

if TYPE_CHECKING:  # imported where a saver is made: the CLI's read-only commands need neither
    from langgraph.checkpoint.serde.base import SerializerProtocol
    from langgraph.checkpoint.sqlite import SqliteSaver

DEFAULT_CHECKPOINTS = Path(".playground") / "checkpoints.sqlite"
DEFAULT_SQLITE_TIMEOUT = 30.0
SQLITE_TIMEOUT_ENV = "PLAYGROUND_SQLITE_TIMEOUT"


def sqlite_timeout() -> float:
    """Seconds a checkpoint connection waits for another writer's lock before giving up.

    ``PLAYGROUND_SQLITE_TIMEOUT`` overrides the 30 s default.

    Raises:
        ValueError: when the variable is set to something other than a non-negative number.
    """
    raw = os.environ.get(SQLITE_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_SQLITE_TIMEOUT
    try:
        seconds = float(raw)
        if not seconds >= 0:  # refuses negatives and nan
            raise ValueError(raw)
    except ValueError:
        raise ValueError(
            f"{SQLITE_TIMEOUT_ENV} must be a number of seconds >= 0, got {raw!r}"
        ) from None
    return seconds


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


def postgres_saver(url: str, max_size: int = 10, serde: SerializerProtocol | None = None):
    """A PostgresSaver on a connection pool (the official saver; tables set up if missing).

    One pool per process serves every session and thread; ``close_postgres_saver`` closes it.
    """
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from playground.serde import graph_serde

    # PostgresSaver needs autocommit and dict rows; prepared statements break behind poolers.
    pool = ConnectionPool(
        url, min_size=1, max_size=max_size, open=True,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    saver = PostgresSaver(pool, serde=serde or graph_serde())
    with pool.connection() as conn:
        setup_postgres_tables(conn)
    return saver


# Any 64-bit number no other application on the database uses for an advisory lock.
SETUP_LOCK_KEY = 0x706C_6179_6772_6E64  # "playgrnd"
_SETUP_LOCK_POLL = 0.05


def setup_postgres_tables(conn, timeout: float = 120.0) -> None:
    """Create or migrate PostgresSaver's tables, one process at a time per database.

    PostgresSaver's migrations build indexes ``CONCURRENTLY``; two processes doing that at once
    (replicas of a workshop starting together on an empty database) deadlock, and Postgres
    kills one of them. A session advisory lock serializes them, so the second finds the
    migrations done. The lock is taken by polling ``pg_try_advisory_lock``: a process blocked
    inside ``pg_advisory_lock`` would hold a snapshot that the first one's index build waits for.

    ``conn`` is an autocommit psycopg connection with dict rows, as PostgresSaver needs.

    Raises:
        TimeoutError: another process held the lock for ``timeout`` seconds.
    """
    import time

    from langgraph.checkpoint.postgres import PostgresSaver

    deadline = time.monotonic() + timeout
    while not conn.execute(
        "SELECT pg_try_advisory_lock(%s) AS taken", (SETUP_LOCK_KEY,)
    ).fetchone()["taken"]:
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"another process has been setting up the checkpoint tables for {timeout:.0f} s"
            )
        time.sleep(_SETUP_LOCK_POLL)
    try:
        PostgresSaver(conn).setup()
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))


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
