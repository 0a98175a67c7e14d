"""Fixtures for the playground's tests: a real ticket API under uvicorn and real SQLite savers."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.savers import open_sqlite_saver
from ticket_api.server import start_embedded


@pytest.fixture(scope="session")
def api_url() -> Iterator[str]:
    """One real ticket API (uvicorn on a loopback port) for the session; tests isolate by tenant."""
    server = start_embedded(None)
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def tenant() -> str:
    """A tenant of the test's own, so its tickets start from the seed data."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def client(api_url: str, tenant: str) -> Iterator[TicketClient]:
    """The agent's client for the test's tenant."""
    agent_client = TicketClient(api_url, tenant=tenant, actor="agent")
    try:
        yield agent_client
    finally:
        agent_client.close()


@pytest.fixture
def colleague(api_url: str, tenant: str) -> Iterator[TicketClient]:
    """Someone else editing the same tenant's tickets."""
    other = TicketClient(api_url, tenant=tenant, actor="colleague")
    try:
        yield other
    finally:
        other.close()


@pytest.fixture
def checkpoints(tmp_path: Path) -> Path:
    """Path of a checkpoint file that does not exist yet."""
    return tmp_path / "checkpoints.sqlite"


@pytest.fixture
def agent(client: TicketClient, checkpoints: Path):
    """A factory: ``agent(schema)`` compiles the ticket agent on the test's checkpoint file."""
    savers = []

    def make(schema: str = "etag"):
        context = open_sqlite_saver(checkpoints)
        savers.append(context)
        return build_agent(client, context.__enter__(), schema=schema)

    yield make
    for context in savers:
        context.__exit__(None, None, None)
