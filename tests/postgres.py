"""A throwaway PostgreSQL database per test that needs one, on the server the tests are given.

``PLAYGROUND_TEST_DATABASE_URL`` names a database on a server where the user may create
databases (``bash .ci/run`` sets it). A test that must see a database of its own, with nothing
another test wrote in it, gets a fresh one that is dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

SKIP_REASON = "PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"


def database_url() -> str:
    """The test server's URL, read when asked: tests/conftest.py may set it at start-up."""
    return os.environ.get("PLAYGROUND_TEST_DATABASE_URL", "")


@contextmanager
def throwaway_database(url: str | None = None) -> Iterator[str]:
    """Create an empty database beside the one ``url`` names; yield its URL; drop it after."""
    import psycopg

    url = url or database_url()
    from psycopg.conninfo import conninfo_to_dict

    name = f"pgtest_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_dbname(conninfo_to_dict(url), name)
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _with_dbname(params: dict, dbname: str) -> str:
    """A postgresql:// URL for the same server and user, and another database."""
    user, password = params.get("user", ""), params.get("password")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host, port = params.get("host", "127.0.0.1"), params.get("port", "5432")
    return f"postgresql://{auth}{host}:{port}/{dbname}"
