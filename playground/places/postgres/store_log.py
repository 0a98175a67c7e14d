"""The log of what runs wrote to the long-term store, in the store's Postgres database."""

from __future__ import annotations

from playground.places.base import StoreLog


class PostgresStoreLog(StoreLog):
    """The change log in the store's database, on the store's pool."""

    mark = "%s"

    def __init__(self, pool) -> None:
        self._pool = pool

    async def _execute_many(self, sql: str, rows: list[tuple]) -> None:
        async with self._pool.connection() as conn, conn.cursor() as cursor:
            await cursor.executemany(sql, rows)

    async def _fetch(self, sql: str, params: tuple) -> list[tuple]:
        async with self._pool.connection() as conn:
            cursor = await conn.execute(sql, params)
            # The store's pool hands out dict rows.
            return [tuple(row.values()) if isinstance(row, dict) else tuple(row)
                    for row in await cursor.fetchall()]
