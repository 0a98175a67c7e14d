"""Fixtures for the playground's tests: a real ticket API under uvicorn and real SQLite savers."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.savers import open_saver
from tests import postgres
from tests.playground import databases, hostile_db
from tests.playground.timetravel import sample_graphs
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
        context = open_saver(checkpoints)
        savers.append(context)
        return build_agent(client, context.__enter__(), schema=schema)

    yield make
    for context in savers:
        context.__exit__(None, None, None)


@pytest.fixture
def saver(tmp_path: Path) -> Iterator[SqliteSaver]:
    """A stock SqliteSaver on a fresh file (what a script or a test compiles a graph with)."""
    conn = sqlite3.connect(tmp_path / "checkpoints.db", check_same_thread=False)
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


@pytest.fixture(params=databases.KINDS)
def database(request, tmp_path: Path) -> Iterator[databases.Database]:
    """A fresh checkpoint database of each kind with a backend: a SQLite file, and a throwaway
    Postgres database where a server answers (skipped otherwise). The storage conformance
    suite runs every test on both."""
    folder = tmp_path / "database"
    folder.mkdir()
    with databases.database(request.param, folder) as made:
        yield made


@pytest.fixture
def empty_target(database: databases.Database, tmp_path: Path) -> Iterator[str]:
    """Where an import into a new database of the same kind as ``database`` goes."""
    with databases.empty_target(database.kind, tmp_path) as target:
        yield target


@pytest.fixture
def samples():
    """The sample_graphs module (graph builders and thread makers of several shapes)."""
    return sample_graphs


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> tuple[Path, dict]:
    """A SqliteSaver file with one thread per sample shape; returns (path, thread -> graph).

    The graphs returned are compiled on a fresh connection, so tests read the file as written.
    """
    path = tmp_path_factory.mktemp("samples") / "checkpoints.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    sample_graphs.make_loop(saver)
    sample_graphs.make_fan(saver)
    sample_graphs.make_nested(saver)
    sample_graphs.make_forked(saver)
    sample_graphs.make_long(saver)
    conn.close()
    fresh = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    builders = {
        "loop": sample_graphs.loop_graph,
        "fan": sample_graphs.fan_graph,
        "nested": sample_graphs.nested_graph,
        "forked": sample_graphs.pause_graph,
        "long": sample_graphs.pause_graph,
    }
    return path, {thread: build(fresh) for thread, build in builders.items()}


@pytest.fixture
def hostile_sqlite(tmp_path: Path) -> tuple[Path, Path]:
    """A SqliteSaver file whose values name commands (see hostile_db); returns (file, canaries).

    The file sits in a folder of its own, so it can serve as the Inspect page's folder too.
    """
    folder = tmp_path / "inspect"
    folder.mkdir()
    return hostile_db.write_sqlite(folder / "hostile.sqlite", tmp_path), tmp_path


@pytest.fixture
def hostile_postgres(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The same values as PostgresSaver rows in a throwaway database; returns (URL, canaries)."""
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        hostile_db.write_postgres(url, tmp_path)
        yield url, tmp_path


@pytest.fixture(scope="session")
def aegra(tmp_path_factory) -> Iterator[tuple[str, dict[str, str], str]]:
    """A real Aegra 0.11 (``aegra serve``) on a free port and a PostgreSQL database of its own,
    serving examples/, and the same threads :func:`agent_server` makes, made the same way:
    (url, threads, the database's URL)."""
    from playground.testing.agent_server import (
        AEGRA_SKIP_REASON,
        aegra_missing,
        aegra_serve,
        refund_threads,
    )

    if aegra_missing():
        pytest.skip(AEGRA_SKIP_REASON)
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as database, \
            aegra_serve(tmp_path_factory.mktemp("aegra"), database,
                        env={"EXAMPLES_WORD_DELAY_S": "0.05"}) as url:
        yield url, refund_threads(url), database


@pytest.fixture(scope="session")
def agent_server(tmp_path_factory) -> Iterator[tuple[str, dict[str, str]]]:
    """A real ``langgraph dev`` on a free port serving examples/, and the threads made on it
    through the SDK (:func:`playground.testing.agent_server.refund_threads`): (url, threads)."""
    from playground.testing.agent_server import (
        SKIP_REASON,
        agent_server_missing,
        langgraph_dev,
        refund_threads,
    )

    if agent_server_missing():
        pytest.skip(SKIP_REASON)
    # Words streamed at a hosted model's pace, so a run lasts long enough for a second one
    # (the multitask lesson, Stop) to meet it.
    with langgraph_dev(tmp_path_factory.mktemp("agent-server"),
                       env={"EXAMPLES_WORD_DELAY_S": "0.05"}) as url:
        yield url, refund_threads(url)
