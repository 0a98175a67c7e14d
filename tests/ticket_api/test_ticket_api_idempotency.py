"""Idempotency-Key over a real socket: replays, reuse with another body, scope, races."""

from __future__ import annotations

import threading
from collections.abc import Callable

import httpx

from ticket_api.server import EmbeddedServer


def keyed_patch(client: httpx.Client, key: str, changes: dict[str, object],
                if_match: str = '"v1"', ticket_id: str = "t7") -> httpx.Response:
    return client.patch(f"/tickets/{ticket_id}", json=changes,
                        headers={"If-Match": if_match, "Idempotency-Key": key})


def test_retry_with_same_idempotency_key_returns_original_response_without_writing(
    client: httpx.Client, snapshot: Callable,
) -> None:
    first = keyed_patch(client, "retry-1", {"priority": "high"})
    assert first.status_code == 200
    after_first = snapshot()
    retry = keyed_patch(client, "retry-1", {"priority": "high"})
    assert retry.status_code == 200
    assert retry.content == first.content
    assert retry.headers["etag"] == first.headers["etag"] == '"v2"'
    assert retry.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert snapshot() == after_first
    assert len(after_first["history"]) == 1


def test_retry_replays_even_when_its_if_match_has_gone_stale(
    client: httpx.Client, snapshot: Callable,
) -> None:
    first = keyed_patch(client, "k", {"status": "closed"})
    assert first.status_code == 200
    other = client.patch("/tickets/t7", json={"priority": "low"}, headers={"If-Match": '"v2"'})
    assert other.status_code == 200
    before = snapshot()
    retry = keyed_patch(client, "k", {"status": "closed"}, if_match='"v1"')
    assert retry.status_code == 200
    assert retry.json() == first.json()
    assert retry.headers["etag"] == '"v2"'
    assert snapshot() == before
    assert before["etag"] == '"v3"'


def test_same_key_with_different_body_answers_422_and_changes_nothing(
    client: httpx.Client, snapshot: Callable,
) -> None:
    assert keyed_patch(client, "k-body", {"priority": "high"}).status_code == 200
    before = snapshot()
    response = keyed_patch(client, "k-body", {"priority": "low"}, if_match='"v2"')
    assert response.status_code == 422
    error = response.json()["error"]
    assert "Idempotency-Key 'k-body' was used with a different body" in error
    assert snapshot() == before


def test_same_key_on_another_ticket_answers_422(client: httpx.Client,
                                                snapshot: Callable) -> None:
    assert keyed_patch(client, "k-ticket", {"priority": "high"}).status_code == 200
    before = snapshot("t6")
    response = keyed_patch(client, "k-ticket", {"priority": "high"}, ticket_id="t6")
    assert response.status_code == 422
    assert "k-ticket" in response.json()["error"]
    assert snapshot("t6") == before


def test_replay_ignores_json_key_order_and_whitespace(client: httpx.Client,
                                                      snapshot: Callable) -> None:
    headers = {"If-Match": '"v1"', "Idempotency-Key": "k-order",
               "Content-Type": "application/json"}
    first = client.patch("/tickets/t7", content=b'{"priority":"high","status":"open"}',
                         headers=headers)
    assert first.status_code == 200
    before = snapshot()
    retry = client.patch("/tickets/t7", content=b'{ "status": "open",\n "priority": "high" }',
                         headers=headers)
    assert retry.status_code == 200
    assert retry.content == first.content
    assert snapshot() == before


def test_refused_request_is_not_recorded_so_its_corrected_retry_writes(
    client: httpx.Client,
) -> None:
    stale = keyed_patch(client, "k-fix", {"priority": "high"}, if_match='"v9"')
    assert stale.status_code == 412
    missing = client.patch("/tickets/t7", json={"priority": "high"},
                           headers={"Idempotency-Key": "k-fix"})
    assert missing.status_code == 428
    fixed = keyed_patch(client, "k-fix", {"priority": "high"}, if_match='"v1"')
    assert fixed.status_code == 200
    assert fixed.json()["version"] == 2
    assert "idempotent-replayed" not in fixed.headers


def test_keys_are_scoped_per_tenant(api: EmbeddedServer, client: httpx.Client,
                                    tenant: str) -> None:
    assert keyed_patch(client, "shared-key", {"priority": "high"}).status_code == 200
    with httpx.Client(base_url=api.url, headers={"X-Tenant": f"{tenant}-other"}) as other:
        response = keyed_patch(other, "shared-key", {"priority": "low"})
        assert response.status_code == 200
        assert "idempotent-replayed" not in response.headers
        assert response.json()["priority"] == "low"
        assert len(other.get("/tickets/t7/history").json()["entries"]) == 1
    assert client.get("/tickets/t7").json()["priority"] == "high"


def test_invalid_idempotency_key_answers_400_and_changes_nothing(
    client: httpx.Client, snapshot: Callable,
) -> None:
    before = snapshot()
    response = keyed_patch(client, "k" * 256, {"priority": "high"})
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["error"]
    assert snapshot() == before


def test_concurrent_retries_with_one_key_write_once_and_all_get_the_same_answer(
    api: EmbeddedServer, tenant: str, snapshot: Callable,
) -> None:
    count = 12
    clients = [httpx.Client(base_url=api.url, headers={"X-Tenant": tenant}, timeout=30)
               for _ in range(count)]
    for c in clients:
        assert c.get("/health").status_code == 200  # open the connections before the race
    barrier = threading.Barrier(count)
    responses: list[httpx.Response] = []

    def send(c: httpx.Client) -> None:
        barrier.wait()
        responses.append(keyed_patch(c, "burst", {"priority": "urgent"}))

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in clients:
        c.close()
    assert [r.status_code for r in responses] == [200] * count
    assert {r.content for r in responses} == {responses[0].content}
    assert {r.headers["etag"] for r in responses} == {'"v2"'}
    state = snapshot()
    assert state["ticket"]["version"] == 2
    assert len(state["history"]) == 1
