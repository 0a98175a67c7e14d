"""SQLite storage for tickets, their history and Idempotency-Key records.

All reads and writes go through :meth:`TicketStore._transaction`, the one side-effect funnel:
it takes the store lock, opens a transaction (``BEGIN IMMEDIATE`` for writes) and commits or
rolls back. Every ticket write is a compare-and-set on the version column, so two writers
that read the same version cannot both succeed, whichever thread or process they run in.
The order of operations is in ``ticket_store.StoreBase``; this module holds the SQLite side.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ticket_api.domain import Comment, Ticket, canonical_json
from ticket_api.records import HistoryEntry, IdempotencyClaim, StoredResponse
from ticket_api.ticket_store import TICKET_COLUMNS, StoreBase, utc_now_iso

MEMORY = ":memory:"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tenants (
    tenant TEXT PRIMARY KEY,
    seeded_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tickets (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    priority TEXT NOT NULL,
    assignee TEXT,
    comments TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (tenant, id)
);
CREATE TABLE IF NOT EXISTS history (
    tenant TEXT NOT NULL,
    ticket_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    changes TEXT NOT NULL,
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (tenant, ticket_id, version)
);
CREATE TABLE IF NOT EXISTS idempotency (
    tenant TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    etag TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, key)
);
"""


class TicketStore(StoreBase):
    """Tickets per tenant on one SQLite connection, safe to share between threads.

    Each tenant is seeded lazily, inside the first transaction that touches it.

    Args:
        path: A database file (WAL journal; its folder is made when missing) or
            ``":memory:"``.
        busy_timeout_ms: How long to wait for another process's lock on a file database.
        clock: Returns the ISO-8601 timestamp recorded in history; injectable for tests.
    """

    def __init__(
        self,
        path: str = MEMORY,
        *,
        busy_timeout_ms: int = 5000,
        clock: Callable[[], str] = utc_now_iso,
    ) -> None:
        super().__init__()
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        if str(path) not in (MEMORY, "") and not str(path).startswith("file:"):
            # A new file in a new folder: the store makes the folder, so no caller has to.
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; _transaction() issues BEGIN itself.
        # check_same_thread=False: uvicorn's worker threads share this connection, and the
        # lock in _transaction() serializes them.
        self._conn = sqlite3.connect(
            path, check_same_thread=False, isolation_level=None,
            timeout=busy_timeout_ms / 1000,
        )
        self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if path != MEMORY:
            # WAL: readers (here or in another process) never wait for the writer. NORMAL
            # sync in WAL mode cannot corrupt the file; a power cut may lose the last commits.
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the connection. The store cannot be used afterwards."""
        with self._lock:
            self._conn.close()

    def journal_mode(self) -> str:
        """Return SQLite's journal mode for this database (``wal`` for files)."""
        with self._transaction(write=False) as conn:
            return str(conn.execute("PRAGMA journal_mode").fetchone()[0])

    @contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[sqlite3.Connection]:
        """Run a block as one transaction: lock, BEGIN, then COMMIT or ROLLBACK.

        Args:
            write: Use ``BEGIN IMMEDIATE``, which takes SQLite's write lock up front, so a
                read-then-write block cannot interleave with another process's write (that
                would end in SQLITE_BUSY at commit instead of waiting busy_timeout at the
                start). Read-only blocks pass False: in WAL mode they never wait for a lock.
        """
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    # -- statements (see StoreBase) -----------------------------------------------------

    def _claim_tenant(self, conn: sqlite3.Connection, tenant: str, now: str) -> bool:
        return conn.execute(
            "INSERT OR IGNORE INTO tenants (tenant, seeded_at) VALUES (?, ?)", (tenant, now),
        ).rowcount == 1

    def _delete_tenant(self, conn: sqlite3.Connection, tenant: str) -> None:
        for table in ("tickets", "history", "idempotency", "tenants"):
            conn.execute(f"DELETE FROM {table} WHERE tenant = ?", (tenant,))

    def _select_tickets(self, conn: sqlite3.Connection, tenant: str) -> list[Ticket]:
        rows = conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM tickets WHERE tenant = ? ORDER BY length(id), id",
            (tenant,),
        ).fetchall()
        return [_ticket_from_row(row) for row in rows]

    def _select_ticket(
        self, conn: sqlite3.Connection, tenant: str, ticket_id: str,
    ) -> Ticket | None:
        row = conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM tickets WHERE tenant = ? AND id = ?",
            (tenant, ticket_id),
        ).fetchone()
        return None if row is None else _ticket_from_row(row)

    def _select_history(
        self, conn: sqlite3.Connection, tenant: str, ticket_id: str,
    ) -> list[HistoryEntry]:
        rows = conn.execute(
            "SELECT version, changes, actor, at FROM history "
            "WHERE tenant = ? AND ticket_id = ? ORDER BY version",
            (tenant, ticket_id),
        ).fetchall()
        # Stored as canonical JSON, so the keys come back sorted.
        return [HistoryEntry(v, json.loads(c), a, at) for v, c, a, at in rows]

    def _select_idempotent(
        self, conn: sqlite3.Connection, tenant: str, key: str,
    ) -> StoredResponse | None:
        row = conn.execute(
            "SELECT fingerprint, status, body, etag FROM idempotency "
            "WHERE tenant = ? AND key = ?",
            (tenant, key),
        ).fetchone()
        return None if row is None else StoredResponse(*row)

    def _claim_key(
        self, conn: sqlite3.Connection, tenant: str, claim: IdempotencyClaim, now: str,
    ) -> StoredResponse | None:
        # BEGIN IMMEDIATE already holds the database's one write lock: no other request can
        # record this key before this transaction ends, so looking is enough.
        return self._select_idempotent(conn, tenant, claim.key)

    def _release_key(self, conn: sqlite3.Connection, tenant: str, key: str) -> None:
        pass  # _claim_key reserved nothing

    def _update_if_version(
        self, conn: sqlite3.Connection, tenant: str, ticket_id: str, expected_version: int,
        changes: Mapping[str, Any],
    ) -> Ticket | None:
        assignments = ", ".join(f"{field} = ?" for field in changes)
        cursor = conn.execute(
            f"UPDATE tickets SET {assignments}, version = version + 1 "
            f"WHERE tenant = ? AND id = ? AND version = ? RETURNING {TICKET_COLUMNS}",
            (*changes.values(), tenant, ticket_id, expected_version),
        )
        rows = cursor.fetchall()  # all of them: SQLite finishes the statement only then
        return _ticket_from_row(rows[0]) if rows else None

    def _insert_history(
        self, conn: sqlite3.Connection, tenant: str, ticket_id: str, version: int,
        changes: Mapping[str, Any], actor: str, now: str,
    ) -> None:
        conn.execute(
            "INSERT INTO history (tenant, ticket_id, version, changes, actor, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (tenant, ticket_id, version, canonical_json(dict(changes)), actor, now),
        )

    def _record_response(
        self, conn: sqlite3.Connection, tenant: str, key: str, stored: StoredResponse, now: str,
    ) -> None:
        conn.execute(
            "INSERT INTO idempotency (tenant, key, fingerprint, status, body, etag, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (tenant, key, stored.fingerprint, stored.status, stored.body, stored.etag, now),
        )

    def _insert_tickets(
        self, conn: sqlite3.Connection, tenant: str, tickets: Iterable[Ticket],
    ) -> None:
        conn.executemany(
            f"INSERT INTO tickets (tenant, {TICKET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (tenant, t.id, t.title, t.status, t.priority, t.assignee,
                 json.dumps([{"author": c.author, "text": c.text} for c in t.comments]),
                 t.version)
                for t in tickets
            ],
        )


def open_store(target: str | None) -> StoreBase:
    """Open the store a ``--db`` target names.

    Args:
        target: None for an in-memory SQLite store, a ``postgresql://`` or ``postgres://``
            URL for PostgreSQL, anything else a SQLite file path (``":memory:"`` included).

    Returns:
        A ``TicketStore`` or ``PostgresTicketStore``; the caller closes it.

    Raises:
        ticket_api.ticket_store_postgres.PostgresUnavailable: If a Postgres URL cannot be used (the
            message has the password redacted).
    """
    if target is None:
        return TicketStore(MEMORY)
    if target.startswith(("postgresql://", "postgres://")):
        # Imported here, not at the top: ticket_store_postgres imports this module.
        from ticket_api.ticket_store_postgres import PostgresTicketStore

        return PostgresTicketStore(target)
    return TicketStore(target)


def _ticket_from_row(row: tuple[Any, ...]) -> Ticket:
    ticket_id, title, status, priority, assignee, comments, version = row
    return Ticket(ticket_id, title, status, priority, assignee, _parse_comments(comments),
                  version)


@functools.lru_cache(maxsize=128)
def _parse_comments(text: str) -> tuple[Comment, ...]:
    # Comments change far less often than they are read (t7's thread is 40 comments), and
    # the parsed tuple is immutable, so parsing each distinct thread once is safe.
    return tuple(Comment(author=c["author"], text=c["text"]) for c in json.loads(text))
