"""The playground's own tables in a Postgres database: tables of their own in the database
replicas share, so every replica reads and writes the same; statements go through the
process's pool for the database (:func:`~playground.places.postgres.connections.process_pool`)
and stop at its read deadline."""

from __future__ import annotations

from playground.places.base import OwnTables, OwnTablesError
from playground.places.postgres.connections import one_line, process_pool


class PostgresOwnTables(OwnTables):
    """Statements on a connection borrowed from the process's pool and given back at once.

    Args:
        url: the database's URL (never shown: errors name only what failed).
    """

    def __init__(self, url: str) -> None:
        self._url = url

    def run(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement in autocommit (``?`` marks as ``%s``)."""
        import psycopg
        import psycopg_pool

        try:
            with process_pool(self._url).connection() as conn:
                cursor = conn.execute(sql.replace("?", "%s"), params)
                # The pool hands out dict rows (postgres_options).
                return ([tuple(row.values()) for row in cursor.fetchall()]
                        if cursor.description else [])
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            raise OwnTablesError(one_line(str(exc))) from None
