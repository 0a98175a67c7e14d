"""Bad requests over a real socket: each is refused with a JSON error and changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

MAX = 64 * 1024
IF_MATCH = {"If-Match": '"v1"'}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"colour": "red"}, "colour", id="unknown-field"),
        pytest.param({"priority": "high", "version": 5}, "version", id="read-only-field"),
        pytest.param({"priority": "critical"}, "priority", id="invalid-priority"),
        pytest.param({"status": "done"}, "status", id="invalid-status"),
        pytest.param({"title": 5}, "title", id="title-not-a-string"),
        pytest.param({"title": ""}, "title", id="empty-title"),
        pytest.param({"title": "x" * 201}, "title", id="title-too-long"),
        pytest.param({"status": None}, "status", id="null-status"),
        pytest.param({"assignee": 7}, "assignee", id="assignee-not-a-string"),
    ],
)
def test_invalid_patch_answers_422_naming_the_field_and_changes_nothing(
    client: httpx.Client, snapshot: Callable, body: dict[str, Any], field: str,
) -> None:
    before = snapshot()
    response = client.patch("/tickets/t7", json=body, headers=IF_MATCH)
    assert response.status_code == 422
    payload = response.json()
    assert f"'{field}'" in payload["error"]
    assert any(field in map(str, d["loc"]) for d in payload["detail"])
    assert snapshot() == before


def test_empty_patch_answers_422_no_changes(client: httpx.Client, snapshot: Callable) -> None:
    before = snapshot()
    response = client.patch("/tickets/t7", json={}, headers=IF_MATCH)
    assert response.status_code == 422
    assert response.json()["error"].startswith("no changes")
    assert snapshot() == before


@pytest.mark.parametrize(
    ("content", "content_type", "status"),
    [
        pytest.param(b'{"priority": "high"', "application/json", 400, id="truncated-json"),
        pytest.param(b"priority=high", "application/json", 400, id="not-json"),
        pytest.param(b'["priority", "high"]', "application/json", 422, id="json-array"),
        pytest.param(b'"high"', "application/json", 422, id="json-string"),
        pytest.param(b'{"priority": "high"}', "text/plain", 422, id="not-declared-json"),
        pytest.param(b"", "application/json", 422, id="empty-body"),
    ],
)
def test_body_that_is_not_a_json_object_is_refused_and_changes_nothing(
    client: httpx.Client, snapshot: Callable, content: bytes, content_type: str, status: int,
) -> None:
    before = snapshot()
    response = client.patch("/tickets/t7", content=content,
                            headers={**IF_MATCH, "Content-Type": content_type})
    assert response.status_code == status, response.text
    assert isinstance(response.json()["error"], str)
    assert snapshot() == before


def test_body_over_64_kib_answers_413_and_changes_nothing(client: httpx.Client,
                                                          snapshot: Callable) -> None:
    before = snapshot()
    body = b'{"title": "' + b"x" * MAX + b'"}'
    response = client.patch("/tickets/t7", content=body,
                            headers={**IF_MATCH, "Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"error": "request body is larger than 65536 bytes (64 KiB)"}
    assert snapshot() == before


def test_chunked_body_over_64_kib_answers_413_and_changes_nothing(
    client: httpx.Client, snapshot: Callable,
) -> None:
    before = snapshot()

    def chunks() -> Iterator[bytes]:
        # No Content-Length: only counting the bytes received can catch this one.
        yield b'{"title": "'
        for _ in range(5):
            yield b"y" * 16384
        yield b'"}'

    response = client.patch("/tickets/t7", content=chunks(),
                            headers={**IF_MATCH, "Content-Type": "application/json"})
    assert response.status_code == 413
    assert snapshot() == before


def test_body_of_exactly_64_kib_is_accepted(client: httpx.Client) -> None:
    body = b'{"priority": "high"}'
    body += b" " * (MAX - len(body))
    assert len(body) == MAX
    response = client.patch("/tickets/t7", content=body,
                            headers={**IF_MATCH, "Content-Type": "application/json"})
    assert response.status_code == 200
    assert response.json()["priority"] == "high"


def test_unknown_ticket_answers_404_and_changes_nothing(client: httpx.Client,
                                                        snapshot: Callable) -> None:
    before = [snapshot(f"t{i}") for i in range(1, 9)]
    response = client.patch("/tickets/t10", json={"priority": "high"}, headers=IF_MATCH)
    assert response.status_code == 404
    assert response.json() == {"error": "ticket 't10' not found"}
    assert [snapshot(f"t{i}") for i in range(1, 9)] == before


@pytest.mark.parametrize(
    ("header", "value"),
    [
        pytest.param("X-Actor", "a" * 129, id="actor-too-long"),
        pytest.param("X-Actor", "", id="actor-empty"),
        pytest.param("Idempotency-Key", "", id="key-empty"),
    ],
)
def test_invalid_header_answers_400_and_changes_nothing(
    client: httpx.Client, snapshot: Callable, header: str, value: str,
) -> None:
    before = snapshot()
    response = client.patch("/tickets/t7", json={"priority": "high"},
                            headers={**IF_MATCH, header: value})
    assert response.status_code == 400
    assert header in response.json()["error"]
    assert snapshot() == before
