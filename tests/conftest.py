"""Session set-up every test shares: a PostgreSQL database for the Postgres tests.

``PLAYGROUND_TEST_DATABASE_URL`` names the database to use (``bash .ci/run`` sets it). When it
is not set, a server on 127.0.0.1:5432 that lets the ``postgres`` user in without a password (a
developer machine's usual trust setup) gets a throwaway database for the session, dropped at
the end, so a newcomer's ``make test`` runs the Postgres tests without exporting anything. The
summary says which groups were skipped, and how to turn them on.
"""

from __future__ import annotations

import os
import uuid

import pytest

URL_ENV = "PLAYGROUND_TEST_DATABASE_URL"
LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
_made: dict[str, str] = {}


def _local_throwaway() -> str | None:
    try:
        import psycopg

        with psycopg.connect(LOCAL_SERVER, autocommit=True, connect_timeout=2) as admin:
            name = f"playground_test_{uuid.uuid4().hex[:8]}"
            admin.execute(f'CREATE DATABASE "{name}"')
    except Exception:  # no server, or it wants a password: the Postgres tests skip
        return None
    _made["name"] = name
    return LOCAL_SERVER.rsplit("/", 1)[0] + f"/{name}"


def _scan_installed_components_once() -> None:
    """Streamlit scans every installed distribution's metadata for v2 components each time an
    AppTest starts (0.3 s of CPU, more than most page runs): a server does it once per process,
    and nothing is installed while the tests run, so the tests' process does it once too. The
    list is the real scan's."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(
        manifest_scanner.scan_component_manifests)


def pytest_configure(config: pytest.Config) -> None:
    _scan_installed_components_once()
    if not os.environ.get(URL_ENV):
        url = _local_throwaway()
        if url:
            os.environ[URL_ENV] = url  # read at import by the Postgres test modules


# The slow kinds of test, each a pytest marker (pyproject.toml registers them): what `make check`
# leaves out. A test is marked by what it uses, so a new one is marked without anyone
# remembering to: the Playwright browser, a real Agent Server (langgraph dev, Aegra), Node
# (LangGraph.js), or nginx in front of replicas (marked by its module).
SLOW_BY_FIXTURE = {"browser": "browser", "agent_server": "server", "aegra": "server"}


# Tests that share a real Agent Server (a session fixture that takes 10-20 s to start) run on
# one worker when the suite is spread over cores (pytest-xdist's loadgroup); every other test
# runs on the worker its module went to, so a module's fixtures are made once.
SHARED_SERVERS = {"agent_server", "aegra"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, marker in SLOW_BY_FIXTURE.items():
            if fixture in used:
                item.add_marker(marker)
        group = "agent-servers" if used & SHARED_SERVERS else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_unconfigure(config: pytest.Config) -> None:
    name = _made.pop("name", None)
    if name:
        import psycopg

        with psycopg.connect(LOCAL_SERVER, autocommit=True, connect_timeout=5) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    reasons: dict[str, int] = {}
    for report in skipped:
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else ""
        reasons[reason.removeprefix("Skipped: ")] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    terminalreporter.section("skipped groups")
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{count:4} skipped: {reason}")
    if any(URL_ENV in reason for reason in reasons):
        terminalreporter.write_line(
            f"To run the Postgres tests, start PostgreSQL on 127.0.0.1:5432 with trust auth for "
            f"user postgres, or set {URL_ENV}=postgresql://USER:PASS@HOST:PORT/DB."
        )
