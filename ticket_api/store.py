"""SQLite storage for tickets, their history and Idempotency-Key records.

All reads and writes go through :meth:`TicketStore._transaction`, the one side-effect funnel:
it takes the store lock, opens a transaction (``BEGIN IMMEDIATE`` for writes) and commits or
rolls back. Every ticket write is a compare-and-set on the version column, so two writers
that read the same version cannot both succeed, whichever thread or process they run in.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ticket_api.domain import Comment, Ticket, canonical_json, patch_problem, render_json
from ticket_api.records import (
    HistoryEntry,
    IdempotencyClaim,
    StoredResponse,
    WriteOutcome,
    WriteResult,
)
from ticket_api.seed import seed_tickets

if TYPE_CHECKING:
    from ticket_api.pg_store import PostgresTicketStore

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

_TICKET_COLUMNS = "id, title, status, priority, assignee, comments, version"


def utc_now_iso() -> str:
    """Return the current UTC time as ISO-8601 with milliseconds and a ``Z`` suffix."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SnapshotReads:
    """The reads a write needs, shared by the SQLite and Postgres stores.

    A store provides ``_transaction(write=False)``, ``_seed_once``, ``_select_idempotent`` and
    ``_select_ticket``; these methods combine them the same way on either database.
    """

    def find_idempotent(self, tenant: str, key: str) -> StoredResponse | None:
        """Return the response recorded under a tenant's Idempotency-Key, if any."""
        with self._transaction(write=False) as conn:
            return self._select_idempotent(conn, tenant, key)

    def read_for_write(
        self, tenant: str, ticket_id: str, idempotency_key: str | None = None,
    ) -> tuple[StoredResponse | None, Ticket | None]:
        """Read, in one snapshot, the response recorded under a key and the current ticket.

        One snapshot matters: read separately, a retry could miss the key just before the
        first attempt commits, then see that attempt's new version and answer a false 412.

        Args:
            tenant: Tenant owning the ticket.
            ticket_id: Ticket about to be written.
            idempotency_key: The request's Idempotency-Key, if any.

        Returns:
            ``(stored, ticket)``: the recorded response (None without a key or record) and
            the ticket (None when the tenant has no such ticket).
        """
        self._seed_once(tenant)
        with self._transaction(write=False) as conn:
            stored = None
            if idempotency_key is not None:
                stored = self._select_idempotent(conn, tenant, idempotency_key)
            return stored, self._select_ticket(conn, tenant, ticket_id)


class TicketStore(SnapshotReads):
    """Tickets per tenant on one SQLite connection, safe to share between threads.

    Each tenant is seeded lazily, inside the first transaction that touches it.

    Args:
        path: A database file (WAL journal) or ``":memory:"``.
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
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()
        self._seeded: set[str] = set()  # tenants known to be seeded; see _seed_once
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

    # -- reads ---------------------------------------------------------------------------

    def list_tickets(self, tenant: str) -> list[Ticket]:
        """Return every ticket of a tenant, ordered t1, t2, ... (seeding it on first use)."""
        self._seed_once(tenant)
        with self._transaction(write=False) as conn:
            rows = conn.execute(
                f"SELECT {_TICKET_COLUMNS} FROM tickets WHERE tenant = ? "
                "ORDER BY length(id), id",
                (tenant,),
            ).fetchall()
        return [_ticket_from_row(row) for row in rows]

    def get_ticket(self, tenant: str, ticket_id: str) -> Ticket | None:
        """Return one ticket of a tenant, or None when that tenant has no such ticket."""
        self._seed_once(tenant)
        with self._transaction(write=False) as conn:
            return self._select_ticket(conn, tenant, ticket_id)

    def history(self, tenant: str, ticket_id: str) -> list[HistoryEntry] | None:
        """Return the accepted writes of a ticket, oldest first, or None if it does not exist."""
        self._seed_once(tenant)
        with self._transaction(write=False) as conn:
            if self._select_ticket(conn, tenant, ticket_id) is None:
                return None
            rows = conn.execute(
                "SELECT version, changes, actor, at FROM history "
                "WHERE tenant = ? AND ticket_id = ? ORDER BY version",
                (tenant, ticket_id),
            ).fetchall()
        return [HistoryEntry(v, json.loads(c), a, at) for v, c, a, at in rows]

    # -- writes --------------------------------------------------------------------------

    def compare_and_set(
        self,
        tenant: str,
        ticket_id: str,
        expected_version: int,
        changes: Mapping[str, Any],
        *,
        actor: str,
        idempotency: IdempotencyClaim | None = None,
    ) -> WriteResult:
        """Apply changes only if the ticket is still at ``expected_version``.

        The ticket update, its history row and the Idempotency-Key record commit together
        or not at all.

        Args:
            tenant: Tenant owning the ticket.
            ticket_id: Ticket to change.
            expected_version: The version the caller's precondition was checked against.
            changes: Validated field changes (see ``domain.patch_problem``).
            actor: Who made the change, recorded in history.
            idempotency: Key and request fingerprint to record with a successful write.

        Returns:
            WRITTEN with the new ticket; CONFLICT with the current ticket when another write
            won; NOT_FOUND; or REPLAYED / KEY_REUSED when the key was recorded meanwhile.

        Raises:
            ValueError: If the changes fail ``domain.patch_problem``.
        """
        problem = patch_problem(changes)
        if problem is not None:
            # Field names become SQL column names below: only the known ones may pass.
            raise ValueError(problem)
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
            if idempotency is not None:
                # Checked again inside the transaction: two concurrent retries with the same
                # key must not both write.
                stored = self._select_idempotent(conn, tenant, idempotency.key)
                if stored is not None:
                    same = stored.fingerprint == idempotency.fingerprint
                    outcome = WriteOutcome.REPLAYED if same else WriteOutcome.KEY_REUSED
                    return WriteResult(outcome, stored=stored)
            # The compare-and-set itself: the row changes only if nobody moved the version
            # since the caller checked its precondition against it.
            assignments = ", ".join(f"{field} = ?" for field in changes)
            cursor = conn.execute(
                f"UPDATE tickets SET {assignments}, version = version + 1 "
                "WHERE tenant = ? AND id = ? AND version = ?",
                (*changes.values(), tenant, ticket_id, expected_version),
            )
            new = self._select_ticket(conn, tenant, ticket_id)
            if cursor.rowcount != 1:
                if new is None:
                    return WriteResult(WriteOutcome.NOT_FOUND)
                # Someone else won: the caller's precondition is stale.
                return WriteResult(WriteOutcome.CONFLICT, ticket=new)
            assert new is not None  # the row was just updated inside this transaction
            now = self._clock()
            conn.execute(
                "INSERT INTO history (tenant, ticket_id, version, changes, actor, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (tenant, ticket_id, new.version, canonical_json(dict(changes)), actor, now),
            )
            stored = None
            if idempotency is not None:
                stored = StoredResponse(
                    fingerprint=idempotency.fingerprint, status=200,
                    body=render_json(new.to_body()), etag=new.etag,
                )
                conn.execute(
                    "INSERT INTO idempotency "
                    "(tenant, key, fingerprint, status, body, etag, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (tenant, idempotency.key, stored.fingerprint, stored.status, stored.body,
                     stored.etag, now),
                )
            return WriteResult(WriteOutcome.WRITTEN, ticket=new, stored=stored)

    def add_ticket(self, tenant: str, ticket: Ticket) -> None:
        """Insert a ticket for a tenant (seeding the tenant first); used by tests and demos.

        Raises:
            sqlite3.IntegrityError: If the tenant already has a ticket with that id.
        """
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
            self._insert_tickets(conn, tenant, [ticket])

    def reset_tenant(self, tenant: str) -> None:
        """Restore a tenant's seed tickets and forget its history and Idempotency-Keys."""
        with self._transaction() as conn:
            for table in ("tickets", "history", "idempotency", "tenants"):
                conn.execute(f"DELETE FROM {table} WHERE tenant = ?", (tenant,))
            self._ensure_seeded(conn, tenant)

    # -- helpers -------------------------------------------------------------------------

    def _seed_once(self, tenant: str) -> None:
        """Seed a tenant unless this store already knows it is seeded.

        Tenants are never unseeded (a reset re-seeds in the same transaction), so once seen
        a tenant stays seeded and reads can skip the write transaction.
        """
        if tenant in self._seeded:
            return
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
        self._seeded.add(tenant)  # only after COMMIT: a rolled-back seed must be retried

    def _ensure_seeded(self, conn: sqlite3.Connection, tenant: str) -> None:
        """Insert a tenant's seed tickets if it has none yet (call inside a transaction)."""
        row = conn.execute("SELECT 1 FROM tenants WHERE tenant = ?", (tenant,)).fetchone()
        if row is not None:
            return
        conn.execute("INSERT INTO tenants (tenant, seeded_at) VALUES (?, ?)",
                     (tenant, self._clock()))
        self._insert_tickets(conn, tenant, seed_tickets())

    @staticmethod
    def _insert_tickets(conn: sqlite3.Connection, tenant: str, tickets: Iterable[Ticket]) -> None:
        conn.executemany(
            f"INSERT INTO tickets (tenant, {_TICKET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (tenant, t.id, t.title, t.status, t.priority, t.assignee,
                 json.dumps([{"author": c.author, "text": c.text} for c in t.comments]),
                 t.version)
                for t in tickets
            ],
        )

    @staticmethod
    def _select_ticket(conn: sqlite3.Connection, tenant: str, ticket_id: str) -> Ticket | None:
        row = conn.execute(
            f"SELECT {_TICKET_COLUMNS} FROM tickets WHERE tenant = ? AND id = ?",
            (tenant, ticket_id),
        ).fetchone()
        return None if row is None else _ticket_from_row(row)

    @staticmethod
    def _select_idempotent(
        conn: sqlite3.Connection, tenant: str, key: str
    ) -> StoredResponse | None:
        row = conn.execute(
            "SELECT fingerprint, status, body, etag FROM idempotency "
            "WHERE tenant = ? AND key = ?",
            (tenant, key),
        ).fetchone()
        return None if row is None else StoredResponse(*row)


def open_store(target: str | None) -> TicketStore | PostgresTicketStore:
    """Open the store a ``--db`` target names.

    Args:
        target: None for an in-memory SQLite store, a ``postgresql://`` or ``postgres://``
            URL for PostgreSQL, anything else a SQLite file path (``":memory:"`` included).

    Returns:
        A store with the ``TicketStore`` methods; the caller closes it.

    Raises:
        ticket_api.pg_store.PostgresUnavailable: If a Postgres URL cannot be used (the
            message has the password redacted).
    """
    if target is None:
        return TicketStore(MEMORY)
    if target.startswith(("postgresql://", "postgres://")):
        # Imported here, not at the top: pg_store imports this module.
        from ticket_api.pg_store import PostgresTicketStore

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
