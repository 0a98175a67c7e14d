"""A throwaway PostgreSQL database per test that needs one, on the server the tests are given.

``PLAYGROUND_TEST_DATABASE_URL`` names a database on a server where the user may create
databases (``bash .ci/run`` sets it). A test that must see a database of its own, with nothing
another test wrote in it, gets a fresh one that is dropped afterwards.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

SKIP_REASON = "PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"


def database_url() -> str:
    """The test server's URL, read when asked: tests/conftest.py may set it at start-up."""
    return os.environ.get("PLAYGROUND_TEST_DATABASE_URL", "")


@contextmanager
def throwaway_database(url: str | None = None) -> Iterator[str]:
    """Create an empty database beside the one ``url`` names; yield its URL; drop it after.

    The database is made ahead and dropped afterwards by a thread of this process
    (:class:`_Spares`): a test waits for neither, and gets a database no test used before.
    """
    url = url or database_url()
    spares = _spares.get(url)
    if spares is None:
        spares = _spares[url] = _Spares(url)
    name = spares.take()
    try:
        yield _with_dbname(_params(url), name)
    finally:
        spares.give_back(name)


class _Spares:
    """Empty databases made ahead of the tests that ask for one, and dropped behind them, on a
    thread of their own: CREATE DATABASE copies a template (0.15 s here) and a test needs
    none of that time. At most ``AHEAD`` wait unused; every one left is dropped at exit."""

    AHEAD = 2

    def __init__(self, url: str) -> None:
        self.url = url
        self._ready: queue.Queue[str] = queue.Queue()
        self._work: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._made: set[str] = set()
        for _ in range(self.AHEAD):
            self._work.put(("create", f"pgtest_{uuid.uuid4().hex[:12]}"))
        self._thread = threading.Thread(target=self._run, daemon=True, name="pg-spares")
        self._thread.start()
        atexit.register(self.close)

    def take(self) -> str:
        """A fresh empty database's name (and one more is made ahead)."""
        self._work.put(("create", f"pgtest_{uuid.uuid4().hex[:12]}"))
        found = self._ready.get(timeout=60)
        if isinstance(found, BaseException):
            raise found
        return found

    def give_back(self, name: str) -> None:
        """Drop a database a test is done with (its connections are ended)."""
        self._work.put(("drop", name))

    def _run(self) -> None:
        import psycopg

        while (job := self._work.get()) is not None:
            action, name = job
            try:
                with psycopg.connect(self.url, autocommit=True) as admin:
                    if action == "create":
                        admin.execute(f'CREATE DATABASE "{name}"')
                        self._made.add(name)
                        self._ready.put(name)
                    else:
                        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                        self._made.discard(name)
            except Exception as exc:  # the waiting test raises it
                if action == "create":
                    self._ready.put(exc)  # type: ignore[arg-type]
            finally:
                self._work.task_done()

    def close(self) -> None:
        """Drop what is left: the spares made ahead, and any not yet dropped."""
        import psycopg

        self._work.put(None)
        self._thread.join(timeout=60)  # the drops queued before it run first
        try:
            with psycopg.connect(self.url, autocommit=True) as admin:
                for name in list(self._made):
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except psycopg.Error:
            pass  # the server went first: nothing left to drop on it


_spares: dict[str, _Spares] = {}


def _params(url: str) -> dict:
    from psycopg.conninfo import conninfo_to_dict

    return conninfo_to_dict(url)


def _with_dbname(params: dict, dbname: str) -> str:
    """A postgresql:// URL for the same server and user, and another database."""
    user, password = params.get("user", ""), params.get("password")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host, port = params.get("host", "127.0.0.1"), params.get("port", "5432")
    return f"postgresql://{auth}{host}:{port}/{dbname}"
