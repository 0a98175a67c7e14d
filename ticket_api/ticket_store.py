"""What the SQLite and Postgres ticket stores do the same way, written once.

``StoreBase`` holds the order of operations: seed a tenant before its first read, read an
Idempotency-Key record and the ticket in one snapshot, and the compare-and-set write (claim the
key, move the version only if it is still the expected one, record history and the response,
all in one transaction). A subclass supplies the database: ``_transaction`` and the small
``_select_*`` / ``_insert_*`` / ``_update_*`` statements, each of which runs inside a
transaction the base class opened.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from ticket_api.domain import Ticket, patch_problem, render_json
from ticket_api.records import (
    HistoryEntry,
    IdempotencyClaim,
    StoredResponse,
    WriteOutcome,
    WriteResult,
)
from ticket_api.seed import seed_tickets

TICKET_COLUMNS = "id, title, status, priority, assignee, comments, version"


def utc_now_iso() -> str:
    """Return the current UTC time as ISO-8601 with milliseconds and a ``Z`` suffix."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class StoreBase:
    """Tickets per tenant: the operations, in terms of a subclass's SQL statements.

    Each tenant is seeded lazily, inside the first transaction that touches it.
    """

    _clock: Any  # Callable[[], str], set by the subclass

    def __init__(self) -> None:
        self._seeded: set[str] = set()  # tenants known to be seeded; see _seed_once

    # -- reads ---------------------------------------------------------------------------

    def list_tickets(self, tenant: str) -> list[Ticket]:
        """Return every ticket of a tenant, ordered t1, t2, ... (seeding it on first use)."""
        self._seed_once(tenant)
        with self._transaction(write=False) as conn:
            return self._select_tickets(conn, tenant)

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
            return self._select_history(conn, tenant, ticket_id)

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
            # Field names become SQL column names: only the known ones may pass.
            raise ValueError(problem)
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
            now = self._clock()
            if idempotency is not None:
                # Inside the write transaction: two concurrent retries with the same key must
                # not both write.
                stored = self._claim_key(conn, tenant, idempotency, now)
                if stored is not None:
                    same = stored.fingerprint == idempotency.fingerprint
                    outcome = WriteOutcome.REPLAYED if same else WriteOutcome.KEY_REUSED
                    return WriteResult(outcome, stored=stored)
            # The compare-and-set itself: the row changes only if nobody moved the version
            # since the caller checked its precondition against it.
            new = self._update_if_version(conn, tenant, ticket_id, expected_version, changes)
            if new is None:
                if idempotency is not None:
                    # Only successful writes are recorded under a key: give the claim back.
                    self._release_key(conn, tenant, idempotency.key)
                current = self._select_ticket(conn, tenant, ticket_id)
                if current is None:
                    return WriteResult(WriteOutcome.NOT_FOUND)
                # Someone else won: the caller's precondition is stale.
                return WriteResult(WriteOutcome.CONFLICT, ticket=current)
            self._insert_history(conn, tenant, ticket_id, new.version, changes, actor, now)
            stored = None
            if idempotency is not None:
                stored = StoredResponse(
                    fingerprint=idempotency.fingerprint, status=200,
                    body=render_json(new.to_body()), etag=new.etag,
                )
                self._record_response(conn, tenant, idempotency.key, stored, now)
            return WriteResult(WriteOutcome.WRITTEN, ticket=new, stored=stored)

    def add_ticket(self, tenant: str, ticket: Ticket) -> None:
        """Insert a ticket for a tenant (seeding the tenant first); used by tests and demos.

        Raises:
            The database's integrity error if the tenant already has a ticket with that id.
        """
        with self._transaction() as conn:
            self._ensure_seeded(conn, tenant)
            self._insert_tickets(conn, tenant, [ticket])

    def reset_tenant(self, tenant: str) -> None:
        """Restore a tenant's seed tickets and forget its history and Idempotency-Keys."""
        with self._transaction() as conn:
            self._delete_tenant(conn, tenant)
            self._ensure_seeded(conn, tenant)

    # -- seeding -------------------------------------------------------------------------

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

    def _ensure_seeded(self, conn: Any, tenant: str) -> None:
        """Insert a tenant's seed tickets unless it was seeded (call inside a transaction)."""
        if self._claim_tenant(conn, tenant, self._clock()):
            self._insert_tickets(conn, tenant, seed_tickets())

    # -- what a subclass supplies ---------------------------------------------------------

    def close(self) -> None:
        """Release the database connection(s). The store cannot be used afterwards."""
        raise NotImplementedError

    def journal_mode(self) -> str:
        """How the database journals writes: ``wal`` for a SQLite file, ``postgres`` on Postgres."""
        raise NotImplementedError

    # The statements below each run inside a transaction the caller opened.

    def _transaction(self, *, write: bool = True) -> AbstractContextManager[Any]:
        """One transaction; read-only ones (``write=False``) see one snapshot."""
        raise NotImplementedError

    def _claim_tenant(self, conn: Any, tenant: str, now: str) -> bool:
        """Record the tenant as seeded; True if this call did it (so it must seed)."""
        raise NotImplementedError

    def _delete_tenant(self, conn: Any, tenant: str) -> None:
        """Delete every row of a tenant, its seeded mark included."""
        raise NotImplementedError

    def _select_tickets(self, conn: Any, tenant: str) -> list[Ticket]:
        """Every ticket of a tenant, ordered by id length then id (t1, t2, ..., t10)."""
        raise NotImplementedError

    def _select_ticket(self, conn: Any, tenant: str, ticket_id: str) -> Ticket | None:
        raise NotImplementedError

    def _select_history(self, conn: Any, tenant: str, ticket_id: str) -> list[HistoryEntry]:
        """History rows oldest first, each entry's changes in sorted key order."""
        raise NotImplementedError

    def _select_idempotent(self, conn: Any, tenant: str, key: str) -> StoredResponse | None:
        raise NotImplementedError

    def _claim_key(
        self, conn: Any, tenant: str, claim: IdempotencyClaim, now: str,
    ) -> StoredResponse | None:
        """Make sure no concurrent request with this key writes too; return its recorded
        response when one is already recorded."""
        raise NotImplementedError

    def _release_key(self, conn: Any, tenant: str, key: str) -> None:
        """Undo what ``_claim_key`` reserved when the write does not happen."""
        raise NotImplementedError

    def _update_if_version(
        self, conn: Any, tenant: str, ticket_id: str, expected_version: int,
        changes: Mapping[str, Any],
    ) -> Ticket | None:
        """Apply the changes and bump the version if it is ``expected_version``; return the
        new ticket, or None when no row matched."""
        raise NotImplementedError

    def _insert_history(
        self, conn: Any, tenant: str, ticket_id: str, version: int,
        changes: Mapping[str, Any], actor: str, now: str,
    ) -> None:
        raise NotImplementedError

    def _record_response(
        self, conn: Any, tenant: str, key: str, stored: StoredResponse, now: str,
    ) -> None:
        """Keep a successful write's response under its Idempotency-Key."""
        raise NotImplementedError

    def _insert_tickets(self, conn: Any, tenant: str, tickets: Iterable[Ticket]) -> None:
        raise NotImplementedError
