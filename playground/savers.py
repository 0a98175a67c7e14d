"""Checkpoint savers: the one adapter between the playground and where checkpoints live."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

DEFAULT_CHECKPOINTS = Path(".playground") / "checkpoints.sqlite"
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


@contextmanager
def open_sqlite_saver(path: str | Path = DEFAULT_CHECKPOINTS) -> Iterator[SqliteSaver]:
    """Open (creating if needed) a SqliteSaver on a file, and close it afterwards.

    The connection allows other threads because one SqliteSaver serializes every call through its
    own lock, which is what a Streamlit server with many sessions needs. A write waits up to
    :func:`sqlite_timeout` seconds for another writer's lock, then raises
    ``sqlite3.OperationalError`` ("database is locked").
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=sqlite_timeout())
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()
