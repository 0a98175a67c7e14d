"""Checkpoint savers: the one adapter between the playground and where checkpoints live."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

DEFAULT_CHECKPOINTS = Path(".playground") / "checkpoints.sqlite"


@contextmanager
def open_sqlite_saver(path: str | Path = DEFAULT_CHECKPOINTS) -> Iterator[SqliteSaver]:
    """Open (creating if needed) a SqliteSaver on a file, and close it afterwards.

    The connection allows other threads because one SqliteSaver serializes every call through its
    own lock, which is what a Streamlit server with many sessions needs.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()
