"""The playground's own tables beside a SQLite file: a sibling file of their own (``rooms``
beside ``checkpoints.sqlite`` is ``rooms.sqlite``), so they never add a table to a checkpoint
file, and a write to them never waits on a saver's lock."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from playground.places.base import OwnTables, OwnTablesError
from playground.places.settings import sqlite_timeout


class SqliteOwnTables(OwnTables):
    """One connection for the process (its statements serialized by a lock), in WAL mode so
    the pages' reads never wait on a write.

    Args:
        path: the file (made, with its folder, on first use).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def run(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement in autocommit; the place's lock timeout (``sqlite_timeout()``)."""
        with self._lock:
            try:
                if self._conn is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    self._conn = sqlite3.connect(self.path, check_same_thread=False,
                                                 timeout=sqlite_timeout(),
                                                 isolation_level=None)
                    self._conn.execute("PRAGMA journal_mode=WAL")
                return self._conn.execute(sql, params).fetchall()
            except (sqlite3.Error, OSError) as exc:
                raise OwnTablesError(f"{self.path.name}: {exc}") from None

    def close(self) -> None:
        """Close the connection (the next statement opens a new one)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
