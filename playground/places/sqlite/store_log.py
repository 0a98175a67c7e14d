"""The log of what runs wrote to the long-term store, in the store's SQLite file."""

from __future__ import annotations

from playground.places.base import StoreLog


class SqliteStoreLog(StoreLog):
    """The change log in the store's file, on the store's own connection and lock (never
    inside one of the store's transactions)."""

    def __init__(self, store) -> None:
        self._store = store

    async def _execute_many(self, sql: str, rows: list[tuple]) -> None:
        async with self._store.lock:
            await self._store.conn.executemany(sql, rows)  # autocommit

    async def _fetch(self, sql: str, params: tuple) -> list[tuple]:
        async with self._store.lock, self._store.conn.execute(sql, params) as cursor:
            return [tuple(row) for row in await cursor.fetchall()]
