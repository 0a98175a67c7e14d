"""How every checkpoint connection is opened: the one place its options and timeouts are read.

The engine's storages, the savers that run graphs, the stores beside them and the lessons all
take their settings from here, so a timeout set for one applies to all.
"""

from __future__ import annotations

import os

DEFAULT_SQLITE_TIMEOUT = 30.0
SQLITE_TIMEOUT_ENV = "PLAYGROUND_SQLITE_TIMEOUT"


def sqlite_timeout() -> float:
    """Seconds a checkpoint connection waits for another writer's lock before giving up.

    ``PLAYGROUND_SQLITE_TIMEOUT`` overrides the 30 s default.

    Raises:
        ValueError: when the variable is set to something other than a non-negative number.
    """
    raw = os.environ.get(SQLITE_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_SQLITE_TIMEOUT
    try:
        seconds = float(raw)
        if not seconds >= 0:  # refuses negatives and nan
            raise ValueError(raw)
    except ValueError:
        raise ValueError(
            f"{SQLITE_TIMEOUT_ENV} must be a number of seconds >= 0, got {raw!r}"
        ) from None
    return seconds


def postgres_options() -> dict:
    """Options of every Postgres checkpoint connection and pool, sync or async.

    PostgresSaver needs autocommit and dict rows; prepared statements break behind poolers.
    """
    from psycopg.rows import dict_row

    return {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}


def read_options(seconds: float) -> str:
    """libpq ``options`` that make the server stop any one statement after ``seconds``."""
    return f"-c statement_timeout={int(seconds * 1000)}"
