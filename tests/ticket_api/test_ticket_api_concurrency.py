"""No lost update: many clients PATCH one ticket with the same If-Match at the same moment."""

from __future__ import annotations

import threading

import httpx

from ticket_api.server import EmbeddedServer

CLIENTS = 50
ROUNDS = 5


def race(clients: list[httpx.Client], etag: str, round_no: int) -> dict[int, httpx.Response]:
    """Release one PATCH per client at the same moment, all sending the same If-Match."""
    barrier = threading.Barrier(len(clients))
    results: dict[int, httpx.Response] = {}

    def send(n: int, c: httpx.Client) -> None:
        barrier.wait()
        results[n] = c.patch(
            "/tickets/t7",
            json={"title": f"round {round_no} by client {n}"},
            headers={"If-Match": etag, "X-Actor": f"client-{n}"},
        )

    threads = [threading.Thread(target=send, args=(n, c)) for n, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == len(clients), "a client thread failed before answering"
    return results


def test_fifty_concurrent_patches_with_same_etag_yield_exactly_one_winner(
    api: EmbeddedServer, tenant: str, client: httpx.Client,
) -> None:
    clients = [httpx.Client(base_url=api.url, headers={"X-Tenant": tenant}, timeout=60)
               for _ in range(CLIENTS)]
    try:
        for c in clients:
            # Open every keep-alive connection first, so the race is between requests.
            assert c.get("/health").status_code == 200
        for round_no in range(ROUNDS):
            read = client.get("/tickets/t7")
            etag = read.headers["etag"]
            version = read.json()["version"]
            assert etag == f'"v{round_no + 1}"'
            results = race(clients, etag, round_no)

            codes = sorted(r.status_code for r in results.values())
            assert codes == [200] + [412] * (CLIENTS - 1), codes
            winner = next(n for n, r in results.items() if r.status_code == 200)
            new_etag = f'"v{version + 1}"'
            assert results[winner].headers["etag"] == new_etag
            for n, r in results.items():
                if n != winner:
                    assert r.json() == {"error": f"ticket is at v{version + 1}, you read {etag}"}
                    assert r.headers["etag"] == new_etag
            after = client.get("/tickets/t7").json()
            assert after["version"] == version + 1
            assert after["title"] == f"round {round_no} by client {winner}"

        entries = client.get("/tickets/t7/history").json()["entries"]
        assert [e["version"] for e in entries] == list(range(2, ROUNDS + 2))
        for round_no, entry in enumerate(entries):
            assert entry["changes"]["title"].startswith(f"round {round_no} by client ")
            assert entry["actor"] == "client-" + entry["changes"]["title"].rsplit(" ", 1)[1]
    finally:
        for c in clients:
            c.close()
