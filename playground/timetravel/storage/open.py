"""The engine's one way into a checkpoint database: :func:`open_storage` picks the backend.

Every caller (the CLI, the pages, the lessons) opens a database here and gets a
:class:`~playground.timetravel.storage.base.Storage`; none of them branches on the kind of
database. The URL helpers every caller also needs (which targets are Postgres, the one
redactor) are named here too, from :mod:`playground.timetravel.storage.urls`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from playground.timetravel.storage.urls import (
    UrlRefused,
    is_postgres_url,
    redact_url,
    typed_connection,
)

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from playground.timetravel.storage.base import Storage

__all__ = ["UrlRefused", "database_errors", "is_postgres_url", "open_storage", "redact_url",
           "typed_connection"]


def open_storage(
    target: str | Path | BaseCheckpointSaver, writable: bool = False, typed: bool = False,
    create: bool = False, shared: bool = False,
) -> Storage:
    """Open a checkpoint database for the engine.

    Args:
        target: a SQLite file path, a Postgres URL, or any ``BaseCheckpointSaver``.
        writable: allow writes (edit, fork, prune, migrate, import).
        typed: a Postgres URL someone typed into a page: connect with only what it says
            (:func:`playground.timetravel.storage.open.typed_connection`).
        create: with ``writable``, open an import's target even when it is new: a SQLite file
            that does not exist yet (made empty), a Postgres database without the saver's
            tables. ``import_thread`` makes the tables once the export has been checked.
        shared: read a Postgres database through this process's small pool, one borrowed
            connection per query, for callers that open a storage on every page run (a SQLite
            file costs nothing to open, so it is opened as usual).

    Raises:
        CheckpointDbError: the target is not a readable LangGraph checkpoint database.
    """
    if not isinstance(target, (str, Path)):  # a saver object: no LangGraph import otherwise
        from playground.timetravel.storage.saver import SaverStorage

        return SaverStorage(target)
    text = str(target)
    if is_postgres_url(text):
        from playground.timetravel.storage.postgres import PostgresStorage

        if shared and not writable:
            return PostgresStorage.shared(text)
        return PostgresStorage(text, writable=writable, typed=typed, create=create)
    from playground.timetravel.storage.sqlite import SqliteStorage

    return SqliteStorage(text, writable=writable, create=create)


def database_errors() -> tuple[type[Exception], ...]:
    """What opening or reading a checkpoint database can raise besides a refusal: a file that
    is not one, a lock held too long, a Postgres server that is down, full or too slow."""
    import sqlite3

    from playground.timetravel.errors import CheckpointDbError

    errors: tuple[type[Exception], ...] = (CheckpointDbError, sqlite3.Error)
    try:
        import psycopg
        import psycopg_pool

        errors += (psycopg.Error, psycopg_pool.PoolTimeout)
    except ImportError:  # pragma: no cover - both are dependencies; Postgres stays optional
        pass
    return errors
