"""Connecting to a Postgres place, and its tables' set-up: what every connection of the kind
goes through, for reads (``reads.py``), the saver graphs run on, the playground's own tables
(``own_tables.py``) and the server processes.

- :func:`connect_within`: one connect deadline over every host a URL names;
- :func:`process_pool`: the process's small pool per database, with the read deadline on
  every statement: the pages' shared reads and the playground's own tables;
- :func:`bounded`: JSONB decoded with the bounded loader;
- :func:`has_postgres_saver_tables`, :func:`setup_postgres_tables`: the saver's three tables,
  made or migrated one process at a time under an advisory lock (:func:`setup_lock`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from playground.places.settings import postgres_options, read_options
from playground.timetravel.decode import bounded_json_loads
from playground.timetravel.limits import limits

# Opening: the saver's tables (BASE TABLE only: information_schema lists views too, and a view
# can run any query), and a session that refuses writes.
_COUNT_SAVER_TABLES = (
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
    "current_schema() AND table_type = 'BASE TABLE' AND table_name IN ('checkpoints', "
    "'checkpoint_blobs', 'checkpoint_writes')")
# The tables' set-up lock (the write primitives' SQL is in writes.py).
_TRY_SETUP_LOCK = "SELECT pg_try_advisory_lock(%s) AS taken"
_SETUP_UNLOCK = "SELECT pg_advisory_unlock(%s)"


def bounded(conn) -> None:
    """Decode the connection's JSONB with the bounded loader: JSONB written by someone else
    may nest beyond Python's recursion limit, and the loader gives a marker instead."""
    from psycopg.types.json import set_json_loads

    set_json_loads(bounded_json_loads, conn)


def has_postgres_saver_tables(conn) -> bool:
    """True when the database (current schema) has all three PostgresSaver tables.

    Args:
        conn: a psycopg connection with dict rows.
    """
    row = conn.execute(_COUNT_SAVER_TABLES).fetchone()
    return row["n"] == 3


def one_line(text: str) -> str:
    """A libpq message as one line that names no file of the server: its messages span lines
    and may name files (the pgpass); the first line says what failed."""
    first = text.strip().splitlines()[0] if text.strip() else "no answer"
    return re.sub(r"password retrieved from file \S+", "password from the server's files",
                  first)


_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()


def process_pool(url: str):
    """The process's small pool for a database, made on first use and kept for the process:
    every statement on it stops at the read deadline (``PLAYGROUND_READ_TIMEOUT``)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(url)
        if pool is None:
            from psycopg_pool import ConnectionPool

            bounds = limits()
            pool = _POOLS[url] = ConnectionPool(
                url, min_size=1, max_size=4, open=True,
                kwargs={**postgres_options(), "options": read_options(bounds.read_seconds),
                        "connect_timeout": max(int(bounds.connect_seconds), 1)})
        return pool


# Any 64-bit number no other application on the database uses for an advisory lock.
SETUP_LOCK_KEY = 0x706C_6179_6772_6E64  # "playgrnd"
_SETUP_LOCK_POLL = 0.05


@contextmanager
def setup_lock(conn, timeout: float = 120.0) -> Iterator[None]:
    """Hold the database's setup lock: no other process migrates the tables meanwhile.

    Taken by polling ``pg_try_advisory_lock``: a process blocked inside ``pg_advisory_lock``
    would hold a snapshot that another one's index build waits for.

    Raises:
        TimeoutError: another process held the lock for ``timeout`` seconds.
    """
    import time

    deadline = time.monotonic() + timeout
    while not conn.execute(_TRY_SETUP_LOCK, (SETUP_LOCK_KEY,)).fetchone()["taken"]:
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"another process has been setting up the checkpoint tables for {timeout:.0f} s"
            )
        time.sleep(_SETUP_LOCK_POLL)
    try:
        yield
    finally:
        conn.execute(_SETUP_UNLOCK, (SETUP_LOCK_KEY,))


def setup_postgres_tables(conn, timeout: float = 120.0,
                          check: Callable[[], None] | None = None) -> None:
    """Create or migrate PostgresSaver's tables, one process at a time per database.

    PostgresSaver's migrations build indexes ``CONCURRENTLY``; two processes doing that at once
    (replicas of a workshop starting together on an empty database) deadlock, and Postgres
    kills one of them. The setup lock (:func:`setup_lock`) serializes them, so the second finds
    the migrations done. ``check`` runs under the lock too, before the migrations: a check made
    while another process is halfway through them (tables made, ``task_path`` not yet added)
    took the database for an older LangGraph's and refused it.

    ``conn`` is an autocommit psycopg connection with dict rows, as PostgresSaver needs.

    Raises:
        TimeoutError: another process held the lock for ``timeout`` seconds.
        CheckpointDbError: ``check`` refused the database; nothing was migrated.
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    with setup_lock(conn, timeout):
        if check is not None:
            check()
        PostgresSaver(conn).setup()


def connect_within(seconds: float, *args, **kwargs):
    """``psycopg.connect`` with one deadline over every host a URL names.

    libpq applies ``connect_timeout`` to each host in turn, so a URL naming four hosts that
    never answer took four times the timeout. Here each host (with its own port and hostaddr,
    where the URL gives lists of them) gets what is left of ``seconds``; a server that answered
    and refused (a wrong password, no such database) ends the attempt at once, as libpq's own
    loop does; the last host's error is raised once none answered. A URL naming one host, or
    options this loop cannot split per host (``load_balance_hosts``, ``target_session_attrs``
    other than ``any``), connects as libpq does.

    Raises:
        psycopg.OperationalError: no host answered in time, or one refused.
    """
    import math
    import time

    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    # What psycopg.connect takes besides libpq's parameters.
    own = {key: kwargs.pop(key) for key in ("autocommit", "prepare_threshold", "row_factory",
                                            "cursor_factory", "context") if key in kwargs}
    params = conninfo_to_dict(*args, **kwargs)
    hosts = str(params.get("host") or "").split(",")
    per_host = {key: str(params[key]).split(",") for key in ("port", "hostaddr")
                if params.get(key) not in (None, "")}
    if (len(hosts) < 2 or params.get("load_balance_hosts") not in (None, "disable")
            or params.get("target_session_attrs") not in (None, "any")
            or any(len(values) not in (1, len(hosts)) for values in per_host.values())):
        return psycopg.connect(*args, **own, **kwargs)
    deadline = time.monotonic() + seconds
    failure: psycopg.OperationalError | None = None
    for index, host in enumerate(hosts):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        one = {**params, "host": host, "connect_timeout": max(math.ceil(left), 1)}
        for key, values in per_host.items():
            value = values[index] if len(values) == len(hosts) else values[0]
            if value:
                one[key] = value
            else:
                one.pop(key, None)
        try:
            return psycopg.connect(**own, **one)
        except psycopg.OperationalError as exc:
            if exc.sqlstate is not None:  # the server answered: a refusal, not a silent host
                raise
            failure = exc
    raise failure or psycopg.OperationalError(f"no host answered within {seconds:g} s")


def close_process_pool(url: str) -> None:
    """Close this process's pool of a database, if it made one."""
    with _POOLS_LOCK:
        pool = _POOLS.pop(url, None)
    if pool is not None:
        pool.close()
