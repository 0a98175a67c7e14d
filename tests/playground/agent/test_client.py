"""The ticket API client against the real API under uvicorn: answers, refusals, failures."""

from __future__ import annotations

import socket
import threading

import pytest

from playground.agent.client import ApiUnavailable, TicketClient


def test_get_returns_the_ticket_with_its_etag_and_size(client):
    ticket = client.get_ticket("t7")

    assert ticket.status == 200 and ticket.etag == '"v1"'
    assert ticket.body["id"] == "t7" and len(ticket.body["comments"]) == 40
    assert ticket.size > 5000


def test_patch_with_the_etag_it_read_writes_and_the_history_names_the_actor(client):
    written = client.patch_ticket("t7", {"priority": "high"}, '"v1"')

    assert written.status == 200 and written.etag == '"v2"'
    assert client.get_ticket("t7").body["priority"] == "high"
    assert client.history("t7")[-1]["actor"] == "agent"


def test_patch_answers_412_when_the_etag_is_stale_and_the_ticket_keeps_the_other_write(
        client, colleague):
    colleague.patch_ticket("t7", {"priority": "low"}, '"v1"')

    refused = client.patch_ticket("t7", {"priority": "high"}, '"v1"')

    assert refused.status == 412 and "v2" in refused.error
    assert client.get_ticket("t7").body["priority"] == "low"


def test_patch_without_if_match_is_refused_with_428(client):
    refused = client.patch_ticket("t7", {"priority": "high"}, None)

    assert refused.status == 428
    assert client.get_ticket("t7").etag == '"v1"'


def test_a_missing_ticket_is_a_404_answer_not_an_exception(client):
    missing = client.get_ticket("t999")

    assert missing.status == 404 and missing.etag is None and missing.error


def test_an_api_that_does_not_listen_raises_api_unavailable_with_its_url():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    client = TicketClient(f"http://127.0.0.1:{port}", tenant="x", timeout=2)

    with pytest.raises(ApiUnavailable, match=f"127.0.0.1:{port}"):
        client.get_ticket("t7")


def test_one_client_shared_by_many_threads_gives_each_its_own_answer(api_url, tenant):
    shared = TicketClient(api_url, tenant=tenant)
    seen: list[tuple[str, int]] = []

    def read(ticket_id: str) -> None:
        for _ in range(15):
            answer = shared.get_ticket(ticket_id)
            seen.append((ticket_id, answer.status) if answer.body.get("id") == ticket_id
                        else ("mixed up", answer.status))

    threads = [threading.Thread(target=read, args=(f"t{n}",)) for n in range(1, 9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    shared.close()

    assert len(seen) == 120 and all(status == 200 and tid != "mixed up" for tid, status in seen)
