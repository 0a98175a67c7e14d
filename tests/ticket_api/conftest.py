"""Fixtures for the ticket API tests: one real server per session, one tenant per test."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from ticket_api.server import EmbeddedServer, start_embedded

Snapshot = dict[str, Any]


@pytest.fixture(scope="session")
def api() -> Iterator[EmbeddedServer]:
    """The API served by uvicorn over a real loopback socket, in-memory store."""
    with start_embedded() as server:
        yield server


@pytest.fixture
def tenant() -> str:
    """A fresh tenant, so each test starts from the seed data without restarting the API."""
    return f"test-{uuid.uuid4().hex[:16]}"


@pytest.fixture
def client(api: EmbeddedServer, tenant: str) -> Iterator[httpx.Client]:
    """An HTTP client scoped to this test's tenant."""
    with httpx.Client(base_url=api.url, headers={"X-Tenant": tenant}, timeout=30) as c:
        yield c


@pytest.fixture
def snapshot(client: httpx.Client) -> Callable[..., Snapshot]:
    """Read a ticket, its ETag and its history, to prove a refused request changed nothing."""

    def read(ticket_id: str = "t7") -> Snapshot:
        ticket = client.get(f"/tickets/{ticket_id}")
        history = client.get(f"/tickets/{ticket_id}/history")
        assert ticket.status_code == 200, ticket.text
        assert history.status_code == 200, history.text
        return {"ticket": ticket.json(), "etag": ticket.headers["etag"],
                "history": history.json()["entries"]}

    return read
