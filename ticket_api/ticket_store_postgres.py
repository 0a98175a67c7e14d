"""PostgreSQL storage for tickets: the same contract as the SQLite ``TicketStore``.

Every operation is one transaction on a pooled connection, taken through
:meth:`PostgresTicketStore._transaction`, the one side-effect funnel. Writes run at READ
COMMITTED: a compare-and-set is one ``UPDATE ... WHERE version = %s`` and Postgres re-checks
that WHERE on the newest row version once a concurrent writer commits, so of two writers that
read the same version exactly one changes the row, in this process or another. Reads that need
several statements run in one REPEATABLE READ READ ONLY snapshot (read-only transactions never
fail to serialize).

The tables are prefixed ``ticket_`` so that they can share a database with LangGraph's
PostgresSaver tables (``checkpoints``, ``checkpoint_blobs``, ...). The order of operations is in
``ticket_store.StoreBase``; this module holds the Postgres side.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ticket_api.domain import Comment, Ticket
from ticket_api.records import HistoryEntry, IdempotencyClaim, StoredResponse
from ticket_api.ticket_store import TICKET_COLUMNS, StoreBase, utc_now_iso
from ticket_api.urls import redact_url

POSTGRES_SCHEMES: tuple[str, ...] = ("postgresql://", "postgres://")

# Timestamps stay TEXT: history must return the injected clock's string unchanged.
_SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS ticket_tenants (
        tenant TEXT PRIMARY KEY,
        seeded_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS ticket_tickets (
        tenant TEXT NOT NULL,
        id TEXT NOT NULL,
        title TEXT NOT NULL,
        status TEXT NOT NULL,
        priority TEXT NOT NULL,
        assignee TEXT,
        comments JSONB NOT NULL,
        version INTEGER NOT NULL,
        PRIMARY KEY (tenant, id)
    )""",
    """CREATE TABLE IF NOT EXISTS ticket_history (
        tenant TEXT NOT NULL,
        ticket_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        changes JSONB NOT NULL,
        actor TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (tenant, ticket_id, version)
    )""",
    # body is TEXT, not JSONB: a replay must be byte-identical to the first response.
    """CREATE TABLE IF NOT EXISTS ticket_idempotency (
        tenant TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        etag TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (tenant, key)
    )""",
)
_TABLES: tuple[str, ...] = (
    "ticket_tickets", "ticket_history", "ticket_idempotency", "ticket_tenants",
)
# Any constant works; it only has to be the same in every process that creates the schema.
_SCHEMA_LOCK_KEY = 0x7469636B  # "tick"
_CLAIM_ATTEMPTS = 3



def is_postgres_url(target: str) -> bool:
    """Return True when a ``--db`` target is a PostgreSQL URL rather than a SQLite path."""
    return target.startswith(POSTGRES_SCHEMES)


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server could not be reached or set up; the message is redacted."""


class PostgresTicketStore(StoreBase):
    """Tickets per tenant in PostgreSQL, shared by every thread and process that opens it.

    Each tenant is seeded lazily, inside the first transaction that touches it.

    Args:
        url: A ``postgresql://`` URL. Messages and ``label`` show it with the password
            redacted.
        clock: Returns the ISO-8601 timestamp recorded in history; injectable for tests.
        min_size: Connections the pool keeps open (one is enough: it grows on demand).
        max_size: Most connections the pool opens.
        connect_timeout_s: How long to wait for the server when opening the store.
        pool_timeout_s: How long an operation waits for a free pooled connection.

    Raises:
        PostgresUnavailable: If the server cannot be reached or the tables cannot be created.
    """

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], str] = utc_now_iso,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout_s: float = 10.0,
        pool_timeout_s: float = 30.0,
    ) -> None:
        super().__init__()
        self.label = redact_url(url)
        self._clock = clock
        # One plain connection first: it fails fast with libpq's own reason (refused, bad
        # password, no such database), where a pool would retry quietly until its timeout.
        try:
            with psycopg.connect(url, autocommit=True,
                                 connect_timeout=max(1, round(connect_timeout_s))) as conn:
                _create_schema(conn)
        except psycopg.Error as exc:
            raise PostgresUnavailable(_unavailable_message(url, exc)) from None
        # autocommit: psycopg opens no implicit transaction; _transaction() issues BEGIN.
        self._pool = ConnectionPool(
            url, min_size=min_size, max_size=max_size, timeout=pool_timeout_s, open=False,
            kwargs={"autocommit": True}, name="ticket-api",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout_s)
        except Exception as exc:
            self._pool.close()
            raise PostgresUnavailable(_unavailable_message(url, exc)) from None

    def close(self) -> None:
        """Close every pooled connection. The store cannot be used afterwards."""
        self._pool.close()

    def journal_mode(self) -> str:
        """Return ``"postgres"``: there is no SQLite journal; the server keeps its own WAL."""
        return "postgres"

    @contextmanager
    def _transaction(self, *, write: bool = True) -> Iterator[psycopg.Connection[Any]]:
        """Run a block as one transaction on a pooled connection: BEGIN, then COMMIT or ROLLBACK.

        Args:
            write: Writes run at READ COMMITTED (the compare-and-set re-checks its WHERE on
                the committed row). Read-only blocks pass False and get one REPEATABLE READ
                snapshot, so their statements agree with each other (see read_for_write).
        """
        with self._pool.connection() as conn, conn.transaction():
            if not write:
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield conn

    # -- statements (see StoreBase) -----------------------------------------------------

    def _claim_tenant(self, conn: psycopg.Connection[Any], tenant: str, now: str) -> bool:
        # Race-safe across processes: the tenant row's primary key decides who seeds. A second
        # inserter of the same tenant waits on that key until the first commits, then inserts
        # nothing (ON CONFLICT DO NOTHING) and so seeds nothing; if the first rolls back, the
        # second's insert goes through and it seeds instead.
        return conn.execute(
            "INSERT INTO ticket_tenants (tenant, seeded_at) VALUES (%s, %s) "
            "ON CONFLICT (tenant) DO NOTHING",
            (tenant, now),
        ).rowcount == 1

    def _delete_tenant(self, conn: psycopg.Connection[Any], tenant: str) -> None:
        for table in _TABLES:
            conn.execute(
                sql.SQL("DELETE FROM {} WHERE tenant = %s").format(sql.Identifier(table)),
                (tenant,),
            )

    def _select_tickets(self, conn: psycopg.Connection[Any], tenant: str) -> list[Ticket]:
        # COLLATE "C": byte order, as in SQLite, whatever the database's locale.
        rows = conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM ticket_tickets WHERE tenant = %s "
            'ORDER BY length(id), id COLLATE "C"',
            (tenant,),
        ).fetchall()
        return [_ticket_from_row(row) for row in rows]

    def _select_ticket(
        self, conn: psycopg.Connection[Any], tenant: str, ticket_id: str,
    ) -> Ticket | None:
        row = conn.execute(
            f"SELECT {TICKET_COLUMNS} FROM ticket_tickets WHERE tenant = %s AND id = %s",
            (tenant, ticket_id),
        ).fetchone()
        return None if row is None else _ticket_from_row(row)

    def _select_history(
        self, conn: psycopg.Connection[Any], tenant: str, ticket_id: str,
    ) -> list[HistoryEntry]:
        rows = conn.execute(
            "SELECT version, changes, actor, at FROM ticket_history "
            "WHERE tenant = %s AND ticket_id = %s ORDER BY version",
            (tenant, ticket_id),
        ).fetchall()
        # JSONB keeps its own key order; sorting restores the SQLite store's canonical order.
        return [HistoryEntry(v, dict(sorted(c.items())), a, at) for v, c, a, at in rows]

    def _select_idempotent(
        self, conn: psycopg.Connection[Any], tenant: str, key: str,
    ) -> StoredResponse | None:
        row = conn.execute(
            "SELECT fingerprint, status, body, etag FROM ticket_idempotency "
            "WHERE tenant = %s AND key = %s",
            (tenant, key),
        ).fetchone()
        return None if row is None else StoredResponse(*row)

    def _claim_key(
        self, conn: psycopg.Connection[Any], tenant: str, claim: IdempotencyClaim, now: str,
    ) -> StoredResponse | None:
        """Reserve an Idempotency-Key for this transaction, or return its recorded response.

        The reservation is a row that nobody else sees until COMMIT, by which time it holds
        the real response. A concurrent request with the same key blocks on the primary key
        until this transaction ends: after a COMMIT its insert does nothing and it reads the
        response recorded here; after a ROLLBACK (or a released claim) its insert goes
        through. So two requests with one key never both write.
        """
        for _ in range(_CLAIM_ATTEMPTS):
            inserted = conn.execute(
                "INSERT INTO ticket_idempotency "
                "(tenant, key, fingerprint, status, body, etag, created_at) "
                "VALUES (%s, %s, %s, 0, '', '', %s) ON CONFLICT (tenant, key) DO NOTHING",
                (tenant, claim.key, claim.fingerprint, now),
            ).rowcount
            if inserted == 1:
                return None
            # READ COMMITTED: this new statement sees the row the other transaction committed.
            stored = self._select_idempotent(conn, tenant, claim.key)
            if stored is not None:
                return stored
            # A reset deleted the record between the two statements: claim again.
        raise RuntimeError(f"Idempotency-Key {claim.key!r} kept changing; retry the request")

    def _release_key(self, conn: psycopg.Connection[Any], tenant: str, key: str) -> None:
        conn.execute(
            "DELETE FROM ticket_idempotency WHERE tenant = %s AND key = %s", (tenant, key),
        )

    def _update_if_version(
        self, conn: psycopg.Connection[Any], tenant: str, ticket_id: str,
        expected_version: int, changes: Mapping[str, Any],
    ) -> Ticket | None:
        assignments = sql.SQL(", ").join(
            sql.SQL("{} = %s").format(sql.Identifier(field)) for field in changes
        )
        row = conn.execute(
            sql.SQL(
                "UPDATE ticket_tickets SET {}, version = version + 1 "
                "WHERE tenant = %s AND id = %s AND version = %s RETURNING {}"
            ).format(assignments, sql.SQL(TICKET_COLUMNS)),
            (*changes.values(), tenant, ticket_id, expected_version),
        ).fetchone()
        return None if row is None else _ticket_from_row(row)

    def _insert_history(
        self, conn: psycopg.Connection[Any], tenant: str, ticket_id: str, version: int,
        changes: Mapping[str, Any], actor: str, now: str,
    ) -> None:
        conn.execute(
            "INSERT INTO ticket_history (tenant, ticket_id, version, changes, actor, at) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (tenant, ticket_id, version, Jsonb(dict(changes)), actor, now),
        )

    def _record_response(
        self, conn: psycopg.Connection[Any], tenant: str, key: str, stored: StoredResponse,
        now: str,
    ) -> None:
        # Fills in the row _claim_key reserved.
        conn.execute(
            "UPDATE ticket_idempotency SET status = %s, body = %s, etag = %s "
            "WHERE tenant = %s AND key = %s",
            (stored.status, stored.body, stored.etag, tenant, key),
        )

    def _insert_tickets(
        self, conn: psycopg.Connection[Any], tenant: str, tickets: Iterable[Ticket],
    ) -> None:
        with conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO ticket_tickets (tenant, {TICKET_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (tenant, t.id, t.title, t.status, t.priority, t.assignee,
                     Jsonb([{"author": c.author, "text": c.text} for c in t.comments]),
                     t.version)
                    for t in tickets
                ],
            )


def _create_schema(conn: psycopg.Connection[Any]) -> None:
    with conn.transaction():
        # Two processes running CREATE TABLE IF NOT EXISTS at once can still collide on the
        # catalog's unique index (the check and the create are not atomic): serialize them.
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK_KEY,))
        for statement in _SCHEMA:
            conn.execute(statement)


def _unavailable_message(url: str, exc: BaseException) -> str:
    detail = " ".join(str(exc).split()) or type(exc).__name__  # libpq's hints span lines
    try:
        password = urlsplit(url).password
    except ValueError:  # e.g. an unbalanced "[" in the host
        password = None
    if password:
        # libpq never echoes a password, but a parse error may quote part of the URL.
        detail = detail.replace(password, "***")
    return (f"cannot use PostgreSQL at {redact_url(url)}: {redact_url(detail)}; check that "
            "the server runs and the URL is right, or pass a SQLite file path instead")


def _ticket_from_row(row: tuple[Any, ...]) -> Ticket:
    ticket_id, title, status, priority, assignee, comments, version = row
    thread = tuple(Comment(author=c["author"], text=c["text"]) for c in comments)
    return Ticket(ticket_id, title, status, priority, assignee, thread, version)
