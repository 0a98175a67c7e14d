"""PATCH over a real socket: preconditions (RFC 9110 13.1.1, RFC 6585 3) and history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest


def patch(client: httpx.Client, changes: dict[str, Any], if_match: str | None = '"v1"',
          ticket_id: str = "t7", **headers: str) -> httpx.Response:
    if if_match is not None:
        headers["If-Match"] = if_match
    return client.patch(f"/tickets/{ticket_id}", json=changes, headers=headers)


def test_patch_with_current_etag_answers_200_with_new_body_and_etag(
    client: httpx.Client,
) -> None:
    response = patch(client, {"priority": "high"})
    assert response.status_code == 200
    assert response.headers["etag"] == '"v2"'
    body = response.json()
    assert (body["priority"], body["version"], len(body["comments"])) == ("high", 2, 40)
    reread = client.get("/tickets/t7")
    assert reread.json() == body
    assert reread.headers["etag"] == '"v2"'


def test_patch_answers_428_without_if_match(client: httpx.Client, snapshot: Callable) -> None:
    before = snapshot()
    response = patch(client, {"priority": "high"}, if_match=None)
    assert response.status_code == 428
    assert response.json() == {"error": "If-Match required: read the ticket and send its ETag"}
    assert snapshot() == before


def test_patch_answers_412_when_etag_is_stale(client: httpx.Client, snapshot: Callable) -> None:
    assert patch(client, {"priority": "high"}).status_code == 200
    before = snapshot()
    response = patch(client, {"priority": "low"}, if_match='"v1"')
    assert response.status_code == 412
    assert response.json() == {"error": 'ticket is at v2, you read "v1"'}
    assert response.headers["etag"] == '"v2"'
    assert snapshot() == before


@pytest.mark.parametrize(
    ("if_match", "expected"),
    [
        pytest.param('"v1"', 200, id="current-tag"),
        pytest.param("*", 200, id="star"),
        pytest.param('"v7", "v1"', 200, id="list-containing-current"),
        pytest.param('"v1", , "v9"', 200, id="list-with-empty-element"),
        pytest.param('"v2"', 412, id="other-version"),
        pytest.param('W/"v1"', 412, id="weak-tag"),
        pytest.param('"v7", W/"v1"', 412, id="list-with-weak-current"),
        pytest.param("v1", 412, id="unquoted"),
        pytest.param('"v1', 412, id="unterminated"),
        pytest.param('w/"v1"', 412, id="lowercase-weak-prefix"),
        pytest.param('"v1", junk', 412, id="malformed-list"),
        pytest.param('*, "v1"', 412, id="star-in-list"),
        pytest.param("", 412, id="empty-value"),
    ],
)
def test_patch_precondition_table(client: httpx.Client, snapshot: Callable, if_match: str,
                                  expected: int) -> None:
    before = snapshot()
    response = patch(client, {"status": "closed"}, if_match=if_match)
    assert response.status_code == expected, response.text
    if expected == 200:
        assert response.headers["etag"] == '"v2"'
        after = snapshot()
        assert after["ticket"]["status"] == "closed"
        assert [e["version"] for e in after["history"]] == [2]
    else:
        assert response.json() == {"error": f"ticket is at v1, you read {if_match.strip()}"}
        assert response.headers["etag"] == '"v1"'
        assert snapshot() == before


def test_weak_etag_never_matches(client: httpx.Client, snapshot: Callable) -> None:
    before = snapshot()
    response = patch(client, {"priority": "urgent"}, if_match='W/"v1"')
    assert response.status_code == 412
    assert response.json() == {"error": 'ticket is at v1, you read W/"v1"'}
    assert snapshot() == before


def test_if_match_sent_as_repeated_header_lines_is_one_list(client: httpx.Client) -> None:
    headers = [("If-Match", '"v8"'), ("If-Match", '"v1"')]
    response = client.patch("/tickets/t7", json={"priority": "low"}, headers=headers)
    assert response.status_code == 200
    assert response.json()["version"] == 2


def test_patch_on_unknown_ticket_answers_404_before_preconditions(client: httpx.Client) -> None:
    # RFC 9110 13.2.1: preconditions are ignored when the answer would not be 2xx anyway.
    response = patch(client, {"priority": "low"}, if_match=None, ticket_id="t404")
    assert response.status_code == 404
    assert response.json() == {"error": "ticket 't404' not found"}


def test_each_accepted_write_adds_one_history_entry_oldest_first(client: httpx.Client) -> None:
    assert patch(client, {"priority": "high"}, **{"X-Actor": "ana"}).status_code == 200
    assert patch(client, {"assignee": None, "status": "closed"}, if_match='"v2"').status_code \
        == 200
    assert patch(client, {"title": "Checkout timeouts"}, if_match='"v3"',
                 **{"X-Actor": "bo"}).status_code == 200
    response = client.get("/tickets/t7/history")
    assert response.status_code == 200
    body = response.json()
    assert body["ticket_id"] == "t7"
    entries = body["entries"]
    assert [(e["version"], e["changes"], e["actor"]) for e in entries] == [
        (2, {"priority": "high"}, "ana"),
        (3, {"status": "closed", "assignee": None}, "anonymous"),
        (4, {"title": "Checkout timeouts"}, "bo"),
    ]
    times = [datetime.fromisoformat(e["at"]) for e in entries]
    assert all(t.utcoffset() == UTC.utcoffset(None) for t in times)
    assert all(e["at"].endswith("Z") for e in entries)
    assert times == sorted(times)
    ticket = client.get("/tickets/t7").json()
    assert (ticket["version"], ticket["assignee"]) == (4, None)
    assert ticket["title"] == "Checkout timeouts"


def test_assignee_can_be_set_and_cleared(client: httpx.Client) -> None:
    assert patch(client, {"assignee": "lin"}, ticket_id="t4").json()["assignee"] == "lin"
    cleared = patch(client, {"assignee": None}, if_match='"v2"', ticket_id="t4")
    assert cleared.status_code == 200
    assert cleared.json()["assignee"] is None


def test_list_shows_the_new_version_after_a_write(client: httpx.Client) -> None:
    assert patch(client, {"priority": "low"}, ticket_id="t5").status_code == 200
    summaries = {t["id"]: t for t in client.get("/tickets").json()["tickets"]}
    assert (summaries["t5"]["version"], summaries["t5"]["priority"]) == (2, "low")
    assert summaries["t7"]["version"] == 1
