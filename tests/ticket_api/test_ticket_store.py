"""The SQLite store on its own: compare-and-set, history, idempotency records, tenants, WAL."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ticket_api.domain import Ticket, request_fingerprint
from ticket_api.records import IdempotencyClaim, WriteOutcome
from ticket_api.ticket_store_sqlite import TicketStore


@pytest.fixture
def store() -> Iterator[TicketStore]:
    s = TicketStore(clock=lambda: "2030-01-02T03:04:05.000Z")
    yield s
    s.close()


def test_each_tenant_is_seeded_on_first_use(store: TicketStore) -> None:
    assert [t.id for t in store.list_tickets("a")] == [f"t{i}" for i in range(1, 9)]
    t7 = store.get_ticket("b", "t7")
    assert t7 is not None
    assert (t7.version, t7.priority, len(t7.comments)) == (1, "normal", 40)


def test_compare_and_set_writes_once_and_records_history(store: TicketStore) -> None:
    result = store.compare_and_set("a", "t7", 1, {"priority": "high"}, actor="ana")
    assert result.outcome is WriteOutcome.WRITTEN
    assert result.ticket is not None
    assert (result.ticket.version, result.ticket.priority) == (2, "high")
    history = store.history("a", "t7")
    assert history is not None
    assert [(h.version, h.changes, h.actor, h.at) for h in history] == [
        (2, {"priority": "high"}, "ana", "2030-01-02T03:04:05.000Z")
    ]


def test_compare_and_set_with_stale_version_is_a_conflict_and_changes_nothing(
    store: TicketStore,
) -> None:
    store.compare_and_set("a", "t7", 1, {"priority": "high"}, actor="ana")
    result = store.compare_and_set("a", "t7", 1, {"priority": "low"}, actor="bo")
    assert result.outcome is WriteOutcome.CONFLICT
    assert result.ticket is not None
    assert (result.ticket.version, result.ticket.priority) == (2, "high")
    assert len(store.history("a", "t7") or []) == 1


def test_compare_and_set_on_unknown_ticket_is_not_found(store: TicketStore) -> None:
    result = store.compare_and_set("a", "t99", 1, {"priority": "high"}, actor="ana")
    assert result.outcome is WriteOutcome.NOT_FOUND
    assert store.history("a", "t99") is None


def test_compare_and_set_refuses_unknown_fields_before_touching_sql(store: TicketStore) -> None:
    with pytest.raises(ValueError, match="unknown field 'version'"):
        store.compare_and_set("a", "t7", 1, {"version": 9}, actor="ana")
    ticket = store.get_ticket("a", "t7")
    assert ticket is not None and ticket.version == 1


def test_idempotency_claim_is_recorded_with_the_write_and_replayed(store: TicketStore) -> None:
    claim = IdempotencyClaim("k1", request_fingerprint("t7", {"priority": "high"}))
    first = store.compare_and_set("a", "t7", 1, {"priority": "high"}, actor="ana",
                                  idempotency=claim)
    assert first.outcome is WriteOutcome.WRITTEN
    stored = store.find_idempotent("a", "k1")
    assert stored == first.stored
    assert stored is not None and (stored.status, stored.etag) == (200, '"v2"')
    # A concurrent retry that passed its precondition before the first committed:
    again = store.compare_and_set("a", "t7", 1, {"priority": "high"}, actor="ana",
                                  idempotency=claim)
    assert again.outcome is WriteOutcome.REPLAYED
    other = IdempotencyClaim("k1", request_fingerprint("t7", {"priority": "low"}))
    reused = store.compare_and_set("a", "t7", 2, {"priority": "low"}, actor="ana",
                                   idempotency=other)
    assert reused.outcome is WriteOutcome.KEY_REUSED
    assert len(store.history("a", "t7") or []) == 1
    assert store.find_idempotent("b", "k1") is None


def test_reset_restores_only_that_tenant(store: TicketStore) -> None:
    claim = IdempotencyClaim("k", request_fingerprint("t1", {"status": "closed"}))
    for tenant in ("a", "b"):
        store.compare_and_set(tenant, "t1", 1, {"status": "closed"}, actor="x",
                              idempotency=claim)
    store.reset_tenant("a")
    a1, b1 = store.get_ticket("a", "t1"), store.get_ticket("b", "t1")
    assert a1 is not None and (a1.version, a1.status) == (1, "open")
    assert b1 is not None and (b1.version, b1.status) == (2, "closed")
    assert store.history("a", "t1") == []
    assert len(store.history("b", "t1") or []) == 1
    assert store.find_idempotent("a", "k") is None
    assert store.find_idempotent("b", "k") is not None


def test_added_ticket_belongs_to_one_tenant(store: TicketStore) -> None:
    store.add_ticket("a", Ticket("t99", "Only in a", "open", "low", None, (), 1))
    assert store.get_ticket("a", "t99") is not None
    assert store.get_ticket("b", "t99") is None
    assert [t.id for t in store.list_tickets("a")][-1] == "t99"
    with pytest.raises(sqlite3.IntegrityError):
        store.add_ticket("a", Ticket("t99", "Twice", "open", "low", None, (), 1))


def test_file_database_uses_wal_and_survives_reopening(tmp_path: Path) -> None:
    path = str(tmp_path / "tickets.sqlite")
    first = TicketStore(path)
    assert first.journal_mode() == "wal"
    first.compare_and_set("a", "t7", 1, {"assignee": None}, actor="ana")
    first.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    second = TicketStore(path)
    try:
        t7 = second.get_ticket("a", "t7")
        assert t7 is not None and (t7.version, t7.assignee) == (2, None)
    finally:
        second.close()


def test_memory_database_is_not_shared_between_stores() -> None:
    one, two = TicketStore(), TicketStore()
    try:
        one.compare_and_set("a", "t1", 1, {"priority": "low"}, actor="x")
        t1 = two.get_ticket("a", "t1")
        assert t1 is not None and t1.version == 1
    finally:
        one.close()
        two.close()


def test_threads_racing_on_one_version_yield_exactly_one_write(store: TicketStore) -> None:
    barrier = threading.Barrier(20)
    outcomes: list[WriteOutcome] = []

    def write(n: int) -> None:
        barrier.wait()
        outcomes.append(
            store.compare_and_set("a", "t2", 1, {"title": f"by {n}"}, actor=str(n)).outcome
        )

    threads = [threading.Thread(target=write, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(WriteOutcome.WRITTEN) == 1
    assert outcomes.count(WriteOutcome.CONFLICT) == 19
    history = store.history("a", "t2") or []
    ticket = store.get_ticket("a", "t2")
    assert len(history) == 1 and ticket is not None
    assert ticket.title == history[0].changes["title"]
