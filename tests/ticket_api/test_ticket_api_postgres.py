"""The ticket API on PostgreSQL over real sockets: races, retries, tenants, reset, two servers.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); the module is skipped
without it. Every test works on fresh uuid tenants and deletes their rows when it ends, so the
database can be shared with other suites and with LangGraph's checkpoint tables.

The ``tenant`` and ``client`` fixtures of conftest.py are overridden here, so conftest's
``snapshot`` reads through the Postgres-backed server.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest

from ticket_api.domain import Ticket, request_fingerprint
from ticket_api.records import IdempotencyClaim, WriteOutcome, WriteResult
from ticket_api.server import EmbeddedServer, main, start_embedded
from ticket_api.ticket_store_postgres import PostgresTicketStore

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL", "")
pytestmark = pytest.mark.skipif(
    not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"
)

TABLES = ("ticket_tickets", "ticket_history", "ticket_idempotency", "ticket_tenants")
CLIENTS = 50
ROUNDS = 3
RACERS = 12  # threads per store-level race, split over two stores
T = TypeVar("T")


# -- fixtures ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pg_api() -> Iterator[EmbeddedServer]:
    """One API served by uvicorn on a real socket, storing tickets in PostgreSQL."""
    with start_embedded(URL) as server:
        yield server


@pytest.fixture
def new_tenant() -> Iterator[Callable[[], str]]:
    """Hand out fresh tenants; delete every row they left in the ticket tables afterwards."""
    made: list[str] = []

    def make() -> str:
        made.append(f"pg-{uuid.uuid4().hex[:16]}")
        return made[-1]

    yield make
    with psycopg.connect(URL, autocommit=True) as conn:
        for table in TABLES:
            conn.execute(f"DELETE FROM {table} WHERE tenant = ANY(%s)", (made,))
        left = sum(
            conn.execute(f"SELECT count(*) FROM {table} WHERE tenant = ANY(%s)",
                         (made,)).fetchone()[0]
            for table in TABLES
        )
    assert left == 0


@pytest.fixture
def tenant(new_tenant: Callable[[], str]) -> str:
    return new_tenant()


@pytest.fixture
def client(pg_api: EmbeddedServer, tenant: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=pg_api.url, headers={"X-Tenant": tenant}, timeout=60) as c:
        yield c


@pytest.fixture
def stores() -> Iterator[tuple[PostgresTicketStore, PostgresTicketStore]]:
    """Two independent stores (two pools) on one database, as two processes would have.

    Each pool opens all its connections up front: a pool that grows on demand would hand
    its one connection from thread to thread and the races below would not be races.
    """
    one, two = (PostgresTicketStore(URL, min_size=RACERS // 2, max_size=RACERS // 2)
                for _ in range(2))
    yield one, two
    one.close()
    two.close()


# -- helpers -------------------------------------------------------------------------------

def race(count: int, action: Callable[[int], T]) -> list[T]:
    """Run ``action(n)`` in ``count`` threads released at the same moment; results by n."""
    barrier = threading.Barrier(count)
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            barrier.wait()
            results[n] = action(n)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [results[n] for n in range(count)]


def count_rows(table: str, tenant: str) -> int:
    with psycopg.connect(URL) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table} WHERE tenant = %s",
                           (tenant,)).fetchone()
    assert row is not None
    return int(row[0])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def cli_server(db: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run ``python -m ticket_api.server --db <db>`` as a second process until the block ends."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ticket_api.server", "--port", str(port), "--db", db,
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                out, err = process.communicate()
                pytest.fail(f"ticket-api exited with {process.returncode}: {out}\n{err}")
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"ticket-api did not answer /health at {url} within 30 s")
            time.sleep(0.1)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# -- concurrency -------------------------------------------------------------------------------

def test_fifty_concurrent_patches_on_postgres_yield_one_200_and_49_412_each_round(
    pg_api: EmbeddedServer, tenant: str, client: httpx.Client,
) -> None:
    clients = [httpx.Client(base_url=pg_api.url, headers={"X-Tenant": tenant}, timeout=60)
               for _ in range(CLIENTS)]
    try:
        for c in clients:
            # Open every keep-alive connection first, so the race is between requests.
            assert c.get("/health").status_code == 200
        for round_no in range(ROUNDS):
            read = client.get("/tickets/t7")
            etag, version = read.headers["etag"], read.json()["version"]
            assert etag == f'"v{round_no + 1}"'

            def send(n: int, etag: str = etag, round_no: int = round_no) -> httpx.Response:
                return clients[n].patch(
                    "/tickets/t7", json={"title": f"round {round_no} by client {n}"},
                    headers={"If-Match": etag, "X-Actor": f"client-{n}"},
                )

            responses = race(CLIENTS, send)
            codes = sorted(r.status_code for r in responses)
            assert codes == [200] + [412] * (CLIENTS - 1), codes
            winner = next(n for n, r in enumerate(responses) if r.status_code == 200)
            new_etag = f'"v{version + 1}"'
            assert responses[winner].headers["etag"] == new_etag
            for n, r in enumerate(responses):
                if n != winner:
                    assert r.json() == {"error": f"ticket is at v{version + 1}, you read {etag}"}
                    assert r.headers["etag"] == new_etag
            after = client.get("/tickets/t7").json()
            assert (after["version"], after["title"]) == (
                version + 1, f"round {round_no} by client {winner}")

        entries = client.get("/tickets/t7/history").json()["entries"]
        assert [e["version"] for e in entries] == list(range(2, ROUNDS + 2))
        for round_no, entry in enumerate(entries):
            assert entry["changes"]["title"].startswith(f"round {round_no} by client ")
            assert entry["actor"] == "client-" + entry["changes"]["title"].rsplit(" ", 1)[1]
    finally:
        for c in clients:
            c.close()


def test_first_use_of_a_tenant_raced_through_two_stores_seeds_it_once(
    stores: tuple[PostgresTicketStore, PostgresTicketStore], tenant: str,
) -> None:
    results = race(RACERS, lambda n: stores[n % 2].list_tickets(tenant))
    for tickets in results:
        assert [t.id for t in tickets] == [f"t{i}" for i in range(1, 9)]
    assert count_rows("ticket_tenants", tenant) == 1
    assert count_rows("ticket_tickets", tenant) == 8


# -- idempotency -----------------------------------------------------------------------------

def test_retry_with_same_key_on_postgres_returns_original_response_and_writes_once(
    client: httpx.Client, snapshot: Callable,
) -> None:
    headers = {"If-Match": '"v1"', "Idempotency-Key": "retry-1"}
    first = client.patch("/tickets/t7", json={"priority": "high"}, headers=headers)
    assert first.status_code == 200
    after_first = snapshot()
    retry = client.patch("/tickets/t7", json={"priority": "high"}, headers=headers)
    assert retry.status_code == 200
    assert retry.content == first.content
    assert retry.headers["etag"] == first.headers["etag"] == '"v2"'
    assert retry.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert snapshot() == after_first
    assert len(after_first["history"]) == 1


def test_concurrent_requests_with_one_key_on_postgres_write_once_and_all_get_that_response(
    pg_api: EmbeddedServer, tenant: str, client: httpx.Client,
) -> None:
    clients = [httpx.Client(base_url=pg_api.url, headers={"X-Tenant": tenant}, timeout=60)
               for _ in range(10)]
    try:
        for c in clients:
            assert c.get("/health").status_code == 200
        responses = race(10, lambda n: clients[n].patch(
            "/tickets/t7", json={"status": "closed"},
            headers={"If-Match": '"v1"', "Idempotency-Key": "same-key"},
        ))
    finally:
        for c in clients:
            c.close()
    assert [r.status_code for r in responses] == [200] * 10
    assert len({r.content for r in responses}) == 1
    assert sum("idempotent-replayed" not in r.headers for r in responses) == 1
    assert [e["version"] for e in client.get("/tickets/t7/history").json()["entries"]] == [2]


def test_same_key_raced_through_two_stores_at_one_version_writes_once_and_replays_the_rest(
    stores: tuple[PostgresTicketStore, PostgresTicketStore], tenant: str,
) -> None:
    # Straight to compare_and_set, skipping the API's read of the key: every thread reaches
    # the write with the same expected version, so only the key's claim can stop a second
    # write (without it, the losers would answer CONFLICT, a false 412).
    claim = IdempotencyClaim("k-race", request_fingerprint("t7", {"status": "closed"}))
    stores[0].list_tickets(tenant)  # seed first: the race is about the key alone
    results = race(RACERS, lambda n: stores[n % 2].compare_and_set(
        tenant, "t7", 1, {"status": "closed"}, actor=f"a{n}", idempotency=claim,
    ))
    outcomes = sorted(r.outcome.value for r in results)
    assert outcomes == ["replayed"] * (RACERS - 1) + ["written"]
    written = next(r for r in results if r.outcome is WriteOutcome.WRITTEN)
    assert {r.stored for r in results} == {written.stored}
    assert [h.version for h in stores[0].history(tenant, "t7") or []] == [2]


def test_same_key_raced_on_different_tickets_writes_one_ticket_and_refuses_the_rest(
    stores: tuple[PostgresTicketStore, PostgresTicketStore], tenant: str,
) -> None:
    def write(n: int) -> WriteResult:
        ticket_id = f"t{n + 1}"
        claim = IdempotencyClaim("k-many", request_fingerprint(ticket_id, {"priority": "low"}))
        return stores[n % 2].compare_and_set(
            tenant, ticket_id, 1, {"priority": "low"}, actor="a", idempotency=claim,
        )

    stores[0].list_tickets(tenant)
    results = race(8, write)
    outcomes = sorted(r.outcome.value for r in results)
    assert outcomes == ["key_reused"] * 7 + ["written"]
    versions = [t.version for t in stores[0].list_tickets(tenant)]
    assert sorted(versions) == [1] * 7 + [2]
    assert count_rows("ticket_history", tenant) == 1
    assert count_rows("ticket_idempotency", tenant) == 1


def test_keyed_write_that_loses_its_compare_and_set_records_nothing_under_the_key(
    stores: tuple[PostgresTicketStore, PostgresTicketStore], tenant: str,
) -> None:
    store = stores[0]
    claim = IdempotencyClaim("k-lost", request_fingerprint("t7", {"priority": "low"}))
    assert store.compare_and_set(tenant, "t7", 1, {"title": "moved"},
                                 actor="a").outcome is WriteOutcome.WRITTEN
    lost = store.compare_and_set(tenant, "t7", 1, {"priority": "low"}, actor="b",
                                 idempotency=claim)
    assert lost.outcome is WriteOutcome.CONFLICT
    assert store.find_idempotent(tenant, "k-lost") is None
    retried = store.compare_and_set(tenant, "t7", 2, {"priority": "low"}, actor="b",
                                    idempotency=claim)
    assert retried.outcome is WriteOutcome.WRITTEN
    assert store.find_idempotent(tenant, "k-lost") == retried.stored


# -- preconditions, tenants, reset ---------------------------------------------------------------

def test_patch_with_stale_etag_on_postgres_answers_412_with_message_and_current_etag(
    client: httpx.Client, snapshot: Callable,
) -> None:
    assert client.patch("/tickets/t7", json={"priority": "high"},
                        headers={"If-Match": '"v1"'}).status_code == 200
    before = snapshot()
    stale = client.patch("/tickets/t7", json={"priority": "low"}, headers={"If-Match": '"v1"'})
    assert stale.status_code == 412
    assert stale.json() == {"error": 'ticket is at v2, you read "v1"'}
    assert stale.headers["etag"] == '"v2"'
    assert snapshot() == before


def test_refused_patches_on_postgres_change_nothing(client: httpx.Client,
                                                   snapshot: Callable) -> None:
    assert client.patch("/tickets/t7", json={"title": "keyed"},
                        headers={"If-Match": '"v1"', "Idempotency-Key": "used"}).status_code == 200
    before = snapshot()
    refused = [
        client.patch("/tickets/t7", json={"priority": "low"}),  # no If-Match
        client.patch("/tickets/t7", json={"priority": "low"}, headers={"If-Match": '"v1"'}),
        client.patch("/tickets/t7", json={"status": "done"}, headers={"If-Match": '"v2"'}),
        client.patch("/tickets/t7", json={"title": "other"},
                     headers={"If-Match": '"v2"', "Idempotency-Key": "used"}),
        client.patch("/tickets/t99", json={"priority": "low"}, headers={"If-Match": '"v1"'}),
    ]
    assert [r.status_code for r in refused] == [428, 412, 422, 422, 404]
    assert snapshot() == before


def test_ticket_of_one_tenant_is_404_for_another_and_writes_stay_in_their_tenant(
    pg_api: EmbeddedServer, new_tenant: Callable[[], str],
) -> None:
    a, b = new_tenant(), new_tenant()
    pg_api.store.add_ticket(a, Ticket("t99", "Only in A", "open", "low", None, (), 1))
    with (httpx.Client(base_url=pg_api.url, headers={"X-Tenant": a}) as in_a,
          httpx.Client(base_url=pg_api.url, headers={"X-Tenant": b}) as in_b):
        assert in_a.get("/tickets/t99").status_code == 200
        assert in_b.get("/tickets/t99").status_code == 404
        assert in_b.get("/tickets/t99/history").status_code == 404
        patched = in_b.patch("/tickets/t99", json={"priority": "high"},
                             headers={"If-Match": '"v1"'})
        assert patched.status_code == 404
        assert in_a.patch("/tickets/t7", json={"status": "closed"},
                          headers={"If-Match": '"v1"'}).status_code == 200
        assert in_b.get("/tickets/t7").headers["etag"] == '"v1"'
        assert in_b.get("/tickets/t7/history").json()["entries"] == []
        assert [t["id"] for t in in_b.get("/tickets").json()["tickets"]] == [
            f"t{i}" for i in range(1, 9)]


def test_reset_on_postgres_restores_seed_and_forgets_history_and_keys(
    client: httpx.Client, tenant: str,
) -> None:
    headers = {"If-Match": '"v1"', "Idempotency-Key": "before-reset"}
    assert client.patch("/tickets/t7", json={"status": "closed"},
                        headers=headers).status_code == 200
    reset = client.post("/admin/reset")
    assert reset.status_code == 200
    assert reset.json() == {"status": "reset", "tenant": tenant}
    ticket = client.get("/tickets/t7")
    assert (ticket.headers["etag"], ticket.json()["status"]) == ('"v1"', "in_progress")
    assert client.get("/tickets/t7/history").json()["entries"] == []
    # The key is forgotten: the same request now writes afresh instead of replaying.
    again = client.patch("/tickets/t7", json={"status": "closed"}, headers=headers)
    assert again.status_code == 200
    assert "idempotent-replayed" not in again.headers
    assert count_rows("ticket_tenants", tenant) == 1
    assert count_rows("ticket_tickets", tenant) == 8


# -- two processes -------------------------------------------------------------------------------

def test_two_api_processes_on_one_database_see_each_others_writes(
    pg_api: EmbeddedServer, tenant: str,
) -> None:
    with cli_server(URL) as (other_url, process):
        a = httpx.Client(base_url=pg_api.url, headers={"X-Tenant": tenant}, timeout=30)
        b = httpx.Client(base_url=other_url, headers={"X-Tenant": tenant}, timeout=30)
        with a, b:
            assert b.get("/tickets/t7").headers["etag"] == '"v1"'
            written = a.patch("/tickets/t7", json={"priority": "urgent"},
                              headers={"If-Match": '"v1"', "X-Actor": "via-a"})
            assert written.status_code == 200
            stale = b.patch("/tickets/t7", json={"priority": "low"},
                            headers={"If-Match": '"v1"', "X-Actor": "via-b"})
            assert stale.status_code == 412
            assert stale.headers["etag"] == '"v2"'
            assert stale.json() == {"error": 'ticket is at v2, you read "v1"'}
            assert b.get("/tickets/t7").json()["priority"] == "urgent"
            assert b.patch("/tickets/t7", json={"priority": "low"},
                           headers={"If-Match": '"v2"', "X-Actor": "via-b"}).status_code == 200
            assert a.get("/tickets/t7").headers["etag"] == '"v3"'
            entries = a.get("/tickets/t7/history").json()["entries"]
            assert [(e["version"], e["actor"]) for e in entries] == [(2, "via-a"), (3, "via-b")]
    out, err = process.communicate()
    assert process.returncode == 0, err
    assert "(db postgresql://" in out or "(db postgres://" in out
    password = urlsplit(URL).password
    if password:
        assert password not in out + err


def test_cli_with_unreachable_postgres_exits_1_and_never_prints_the_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["--port", "0", "--db", "postgresql://ticket:hunter2@127.0.0.1:1/nowhere"])
    assert status == 1
    captured = capsys.readouterr()
    assert "postgresql://ticket:***@127.0.0.1:1/nowhere" in captured.err
    assert "hunter2" not in captured.out + captured.err


def test_store_tables_are_prefixed_ticket_beside_other_tables(pg_api: EmbeddedServer) -> None:
    assert pg_api.store.journal_mode() == "postgres"
    with psycopg.connect(URL) as conn:
        found = {row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_name LIKE 'ticket\\_%'")}
    assert found >= set(TABLES)
