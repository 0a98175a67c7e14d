"""A checkpoint database of each kind the engine has a backend for, as tests meet them.

A :class:`Database` is a real SQLite file or a throwaway Postgres database with the official
saver's tables, the official saver on it (which writes the threads a test reads), and what a
test checks with: every row of every checkpoint table, read with the raw driver, so "changes
nothing" is asserted on the database itself and not through the code under test.

The storage conformance suite is every test that takes the ``database`` fixture
(tests/playground/conftest.py): each runs once per backend. It lives beside what it tests:
places/test_reads.py (reads, tree, sizes, read-only), timetravel/test_prune.py,
test_migrate.py, test_transfer.py (the flows), storage/test_untrusted.py (the hostile
fixtures) and cli/test_write_commands.py (the commands). A third backend joins it by adding its
kind to :data:`KINDS` and a branch to :func:`database`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from playground.places.door import open_storage
from playground.timetravel.storage import Storage
from tests import postgres

KINDS = ("sqlite", "postgres")
TABLES = {
    "sqlite": ("checkpoints", "writes"),
    "postgres": ("checkpoints", "checkpoint_blobs", "checkpoint_writes"),
}


@dataclass
class Database:
    """One checkpoint database, its official saver, and the raw rows for assertions.

    Attributes:
        kind: ``sqlite`` or ``postgres``.
        target: what a user passes to the CLI: the file's path, or the database's URL.
        saver: the official sync saver on it (SqliteSaver or PostgresSaver), tables set up.
    """

    kind: str
    target: str
    saver: BaseCheckpointSaver
    _closers: list = field(default_factory=list, repr=False)

    def open(self, writable: bool = False) -> Storage:
        """The engine's storage on this database, as the CLI and the pages open it."""
        return open_storage(self.target, writable=writable)

    @contextmanager
    def storage(self, writable: bool = False) -> Iterator[Storage]:
        """:meth:`open`, closed afterwards."""
        storage = self.open(writable)
        try:
            yield storage
        finally:
            storage.close()

    @contextmanager
    def fresh_saver(self) -> Iterator[BaseCheckpointSaver]:
        """The official saver on a connection of its own (a process that starts after a
        change and reads only what the database holds)."""
        if self.kind == "sqlite":
            from langgraph.checkpoint.sqlite import SqliteSaver

            with closing(sqlite3.connect(self.target, check_same_thread=False)) as conn:
                yield SqliteSaver(conn)
        else:
            from langgraph.checkpoint.postgres import PostgresSaver

            with _pg_connect(self.target) as conn:
                yield PostgresSaver(conn)

    def rows(self, thread_id: str | None = None) -> dict[str, list]:
        """Every row of every checkpoint table (of one thread, or all), in key order."""
        where = "" if thread_id is None else "WHERE thread_id = " + (
            "?" if self.kind == "sqlite" else "%s")
        params = () if thread_id is None else (thread_id,)
        found = {}
        for table in TABLES[self.kind]:
            sql = f"SELECT * FROM {table} {where} ORDER BY 1, 2, 3, 4, 5"
            if self.kind == "sqlite":
                with closing(sqlite3.connect(self.target)) as conn:
                    found[table] = conn.execute(sql, params).fetchall()
            else:
                with _pg_connect(self.target) as conn:
                    found[table] = [tuple(row.values()) for row in
                                    conn.execute(sql, params).fetchall()]
        return found

    def stored_bytes(self, thread_id: str, checkpoint_ns: str = "") -> int:
        """What a thread's namespace stores, summed with raw SQL: every checkpoint and
        metadata, every value blob (Postgres keeps each version once), every write."""
        if self.kind == "sqlite":
            sql = ("SELECT (SELECT COALESCE(SUM(length(checkpoint) + length(metadata)), 0) "
                   "FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2) + "
                   "(SELECT COALESCE(SUM(length(value)), 0) FROM writes "
                   "WHERE thread_id = ?1 AND checkpoint_ns = ?2)")
        else:
            sql = ("SELECT (SELECT COALESCE(sum(octet_length(checkpoint::text) + "
                   "octet_length(metadata::text)), 0) FROM checkpoints WHERE thread_id = %(t)s "
                   "AND checkpoint_ns = %(ns)s) + (SELECT COALESCE(sum(octet_length(blob)), 0) "
                   "FROM checkpoint_blobs WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s) + "
                   "(SELECT COALESCE(sum(octet_length(blob)), 0) FROM checkpoint_writes "
                   "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s)")
        params = (thread_id, checkpoint_ns) if self.kind == "sqlite" else {
            "t": thread_id, "ns": checkpoint_ns}
        return int(self.execute(sql, params)[0][0])

    def count(self, thread_id: str) -> int:
        """Checkpoint rows of a thread, in every namespace."""
        return len(self.rows(thread_id)["checkpoints"])

    def execute(self, sql: str, params: tuple | dict = ()) -> list:
        """Run one statement with the raw driver (``?`` marks on SQLite, ``%s`` on Postgres):
        how a test crafts the rows no saver writes."""
        if self.kind == "sqlite":
            with closing(sqlite3.connect(self.target)) as conn:
                rows = conn.execute(sql, params).fetchall()
                conn.commit()
                return rows
        with _pg_connect(self.target) as conn:
            cursor = conn.execute(sql, params)
            return [tuple(row.values()) for row in cursor.fetchall()] if cursor.description else []

    def close(self) -> None:
        for close in reversed(self._closers):
            close()


def _pg_connect(url: str):
    import psycopg

    from playground.places.settings import postgres_options

    return psycopg.connect(url, **postgres_options())


@contextmanager
def database(kind: str, folder: Path) -> Iterator[Database]:
    """A fresh checkpoint database of ``kind`` with the official saver's tables and saver.

    Postgres needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it; tests/conftest.py
    finds a local server): the test is skipped without one.
    """
    if kind == "sqlite":
        from langgraph.checkpoint.sqlite import SqliteSaver

        path = folder / "checkpoints.sqlite"
        conn = sqlite3.connect(path, check_same_thread=False)
        saver = SqliteSaver(conn)
        saver.setup()
        made = Database(kind, str(path), saver, [conn.close])
        try:
            yield made
        finally:
            made.close()
        return
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    from langgraph.checkpoint.postgres import PostgresSaver

    from playground.places.postgres.connections import setup_postgres_tables

    with postgres.throwaway_database() as url:
        conn = _pg_connect(url)
        setup_postgres_tables(conn)
        made = Database(kind, url, PostgresSaver(conn), [conn.close])
        try:
            yield made
        finally:
            made.close()


@contextmanager
def empty_target(kind: str, folder: Path) -> Iterator[str]:
    """Where an import makes a new database of ``kind``: a file that does not exist yet, or an
    empty Postgres database (no tables)."""
    if kind == "sqlite":
        yield str(folder / "imported.sqlite")
        return
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        yield url


def saver_on(target: str, kind: str) -> Any:
    """A context manager of the official saver on ``target`` (for reading what an import
    wrote as LangGraph does)."""
    return Database(kind, target, None).fresh_saver()  # type: ignore[arg-type]
