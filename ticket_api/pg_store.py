"""PostgreSQL storage for tickets: the same contract as the SQLite ``TicketStore``.

Every operation is one transaction on a pooled connection, taken through
:meth:`PostgresTicketStore._transaction`, the one side-effect funnel. Writes run at READ
COMMITTED: a compare-and-set is one ``UPDATE ... WHERE version = %s`` and Postgres re-checks
that WHERE on the newest row version once a concurrent writer commits, so of two writers that
read the same version exactly one changes the row, in this process or another. Reads that need
several statements run in one REPEATABLE READ READ ONLY snapshot (read-only transactions never
fail to serialize).

The tables are prefixed ``ticket_`` so that they can share a database with LangGraph's
PostgresSaver tables (``checkpoints``, ``checkpoint_blobs``, ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from ticket_api.domain import Comment, Ticket, patch_problem, render_json
from ticket_api.records import (
    HistoryEntry,
    IdempotencyClaim,
    StoredResponse,
    WriteOutcome,
    WriteResult,
)
from ticket_api.seed import seed_tickets
from ticket_api.store import SnapshotReads, utc_now_iso

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
_TICKET_COLUMNS = "id, title, status, priority, assignee, comments, version"
# Any constant works; it only has to be the same in every process that creates the schema.
_SCHEMA_LOCK_KEY = 0x7469636B  # "tick"
_CLAIM_ATTEMPTS = 3

# Greedy up to the last "@" of the authority, so a password holding a raw "@" is all hidden.
_PASSWORD_IN_NETLOC = re.compile(r"(://[^:/@?#]*:)[^/?#]*@")
_PASSWORD_IN_QUERY = re.compile(r"(?i)([?&]password=)[^&#]*")


def is_postgres_url(target: str) -> bool:
    """Return True when a ``--db`` target is a PostgreSQL URL rather than a SQLite path."""
    return target.startswith(POSTGRES_SCHEMES)


def redact_url(url: str) -> str:
    """Return a database URL with its password replaced by ``***``, safe to print or log."""
    return _PASSWORD_IN_QUERY.sub(r"\1***", _PASSWORD_IN_NETLOC.sub(r"\1***@", url))


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server could not be reached or set up; the message is redacted."""


class PostgresTicketStore(SnapshotReads):
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
        self.label = redact_url(url)
        self._clock = clock
        self._seeded: set[str] = set()  # tenants known to be seeded; see _seed_once
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

    # -- reads ---------------------------------------------------------------------------

    def list_tickets(self, tenant: str) -> list[Ticket]:
        """Return every ticket of a tenant, ordered t1, t2, ... (seeding it on first use)."""
        self._seed_once(tenant)
        with self._transaction(write=False) as conn:
            # COLLATE "C": byte order, as in SQLite, whatever the database's locale.
            rows = conn.execute(
                f"SELECT {_TICKET_COLUMNS} FROM ticket_tickets WHERE tenant = %s "
                'ORDER BY length(id), id COLLATE "C"',
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
                "SELECT version, changes, actor, at FROM ticket_history "
                "WHERE tenant = %s AND ticket_id = %s ORDER BY version",
                (tenant, ticket_id),
            ).fetchall()
        # JSONB keeps its own key order; sorting restores the SQLite store's canonical order.
        return [HistoryEntry(v, dict(sorted(c.items())), a, at) for v, c, a, at in rows]

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
            # Field names become SQL identifiers below: only the known ones may pass.
            raise ValueError(problem)
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
            now = self._clock()
            if idempotency is not None:
                stored = self._claim_key(conn, tenant, idempotency, now)
                if stored is not None:
                    same = stored.fingerprint == idempotency.fingerprint
                    outcome = WriteOutcome.REPLAYED if same else WriteOutcome.KEY_REUSED
                    return WriteResult(outcome, stored=stored)
            # The compare-and-set itself: the row changes only if nobody moved the version
            # since the caller checked its precondition against it.
            assignments = sql.SQL(", ").join(
                sql.SQL("{} = %s").format(sql.Identifier(field)) for field in changes
            )
            cursor = conn.execute(
                sql.SQL(
                    "UPDATE ticket_tickets SET {}, version = version + 1 "
                    "WHERE tenant = %s AND id = %s AND version = %s RETURNING {}"
                ).format(assignments, sql.SQL(_TICKET_COLUMNS)),
                (*changes.values(), tenant, ticket_id, expected_version),
            )
            if cursor.rowcount != 1:
                if idempotency is not None:
                    # Only successful writes are recorded under a key: give the claim back.
                    conn.execute(
                        "DELETE FROM ticket_idempotency WHERE tenant = %s AND key = %s",
                        (tenant, idempotency.key),
                    )
                current = self._select_ticket(conn, tenant, ticket_id)
                if current is None:
                    return WriteResult(WriteOutcome.NOT_FOUND)
                # Someone else won: the caller's precondition is stale.
                return WriteResult(WriteOutcome.CONFLICT, ticket=current)
            row = cursor.fetchone()
            assert row is not None  # rowcount was 1
            new = _ticket_from_row(row)
            conn.execute(
                "INSERT INTO ticket_history (tenant, ticket_id, version, changes, actor, at) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (tenant, ticket_id, new.version, Jsonb(dict(changes)), actor, now),
            )
            stored = None
            if idempotency is not None:
                stored = StoredResponse(
                    fingerprint=idempotency.fingerprint, status=200,
                    body=render_json(new.to_body()), etag=new.etag,
                )
                conn.execute(
                    "UPDATE ticket_idempotency SET status = %s, body = %s, etag = %s "
                    "WHERE tenant = %s AND key = %s",
                    (stored.status, stored.body, stored.etag, tenant, idempotency.key),
                )
            return WriteResult(WriteOutcome.WRITTEN, ticket=new, stored=stored)

    def add_ticket(self, tenant: str, ticket: Ticket) -> None:
        """Insert a ticket for a tenant (seeding the tenant first); used by tests and demos.

        Raises:
            psycopg.errors.UniqueViolation: If the tenant already has a ticket with that id.
        """
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
            self._insert_tickets(conn, tenant, [ticket])

    def reset_tenant(self, tenant: str) -> None:
        """Restore a tenant's seed tickets and forget its history and Idempotency-Keys."""
        with self._transaction() as conn:
            for table in _TABLES:
                conn.execute(
                    sql.SQL("DELETE FROM {} WHERE tenant = %s").format(sql.Identifier(table)),
                    (tenant,),
                )
            self._ensure_seeded(conn, tenant)

    # -- helpers -------------------------------------------------------------------------

    def _seed_once(self, tenant: str) -> None:
        """Seed a tenant unless this store already knows it is seeded.

        Tenants are never unseeded (a reset re-seeds in the same transaction, in whichever
        process runs it), so once seen a tenant stays seeded and reads skip the write.
        """
        if tenant in self._seeded:
            return
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
        self._seeded.add(tenant)  # only after COMMIT: a rolled-back seed must be retried

    def _ensure_seeded(self, conn: psycopg.Connection[Any], tenant: str) -> None:
        """Insert a tenant's seed tickets if it has none yet (call inside a transaction).

        Race-safe across processes: the tenant row's primary key decides who seeds. A second
        inserter of the same tenant waits on that key until the first commits, then inserts
        nothing (ON CONFLICT DO NOTHING) and so seeds nothing; if the first rolls back, the
        second's insert goes through and it seeds instead.
        """
        claimed = conn.execute(
            "INSERT INTO ticket_tenants (tenant, seeded_at) VALUES (%s, %s) "
            "ON CONFLICT (tenant) DO NOTHING",
            (tenant, self._clock()),
        ).rowcount
        if claimed == 1:
            self._insert_tickets(conn, tenant, seed_tickets())

    @staticmethod
    def _claim_key(
        conn: psycopg.Connection[Any], tenant: str, claim: IdempotencyClaim, now: str,
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
            stored = PostgresTicketStore._select_idempotent(conn, tenant, claim.key)
            if stored is not None:
                return stored
            # A reset deleted the record between the two statements: claim again.
        raise RuntimeError(f"Idempotency-Key {claim.key!r} kept changing; retry the request")

    @staticmethod
    def _insert_tickets(
        conn: psycopg.Connection[Any], tenant: str, tickets: Iterable[Ticket],
    ) -> None:
        with conn.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO ticket_tickets (tenant, {_TICKET_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (tenant, t.id, t.title, t.status, t.priority, t.assignee,
                     Jsonb([{"author": c.author, "text": c.text} for c in t.comments]),
                     t.version)
                    for t in tickets
                ],
            )

    @staticmethod
    def _select_ticket(
        conn: psycopg.Connection[Any], tenant: str, ticket_id: str,
    ) -> Ticket | None:
        row = conn.execute(
            f"SELECT {_TICKET_COLUMNS} FROM ticket_tickets WHERE tenant = %s AND id = %s",
            (tenant, ticket_id),
        ).fetchone()
        return None if row is None else _ticket_from_row(row)

    @staticmethod
    def _select_idempotent(
        conn: psycopg.Connection[Any], tenant: str, key: str,
    ) -> StoredResponse | None:
        row = conn.execute(
            "SELECT fingerprint, status, body, etag FROM ticket_idempotency "
            "WHERE tenant = %s AND key = %s",
            (tenant, key),
        ).fetchone()
        return None if row is None else StoredResponse(*row)


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
