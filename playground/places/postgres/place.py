"""A Postgres database as a place threads live: what it is (a ``postgresql://`` URL), how it is
opened for the engine's reads (:class:`~playground.places.postgres.reads.PostgresStorage`), and
the savers, pools and store graphs run on in it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from playground.places.base import (
    STORE_LOG_DDL,
    OpenedStore,
    Place,
)
from playground.places.postgres.connections import (
    close_process_pool,
    setup_lock,
    setup_postgres_tables,
)
from playground.places.postgres.own_tables import PostgresOwnTables
from playground.places.postgres.reads import PostgresStorage
from playground.places.postgres.store_log import PostgresStoreLog
from playground.places.settings import postgres_options
from playground.places.urls import is_postgres_url, redact_url, typed_connection
from playground.timetravel.limits import limits


class PostgresDatabase(Place):
    """A Postgres database: PostgresSaver's tables, the store's, and the ticket API's.

    Claims ``postgresql://`` and ``postgres://`` URLs. It is the database replicas share, so a
    process restart keeps its pool (:meth:`restart` does nothing): the pool, never closed under
    sessions that may use it, would otherwise keep its connections.
    """

    kind = "postgres"
    typeable = True

    def __init__(self, target: str, typed: bool = False, label: str | None = None) -> None:
        super().__init__(str(target).strip(), typed, label)
        self.url = str(target).strip()
        self.label = redact_url(label or self.url)

    def check_typed(self) -> None:
        """Only host, port, user, password, database, sslmode and connect_timeout (up to the
        cap): :func:`playground.places.urls.typed_connection` says why not."""
        bounds = limits()
        typed_connection(self.url, connect_cap=bounds.connect_seconds,
                         statement_timeout=bounds.read_seconds)

    @classmethod
    def claims(cls, target: object) -> bool:
        """A ``postgresql://`` or ``postgres://`` URL."""
        return isinstance(target, str) and is_postgres_url(target)

    @classmethod
    def errors(cls) -> tuple[type[Exception], ...]:
        """psycopg's errors and a pool that had no connection in time."""
        import psycopg
        import psycopg_pool

        return (psycopg.Error, psycopg_pool.PoolTimeout)

    @property
    def shared_database(self) -> str:
        """The URL: replicas and the bundled ticket API share this database."""
        return self.url

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> PostgresStorage:
        """A connection of its own, or with ``shared`` (read-only) one borrowed from the
        process's small pool for each query."""
        if shared and not writable and not self.typed:
            return PostgresStorage.shared(self.url)
        return PostgresStorage(self.url, writable=writable, typed=self.typed, create=create)

    def own_tables(self, name: str) -> PostgresOwnTables:
        """Tables in this database (the one replicas share), on the process's pool."""
        return PostgresOwnTables(self.url)

    def restart(self) -> None:
        """Nothing: the pool stays (see the class's docstring)."""

    def check_runnable(self) -> None:
        """The database must be one this tool writes (not LangGraph.js's); one without the
        saver's tables yet is fine (the saver makes them). Checked under the setup lock, so
        tables another process is migrating right now are read once it is done."""
        import psycopg

        with psycopg.connect(self.url, **postgres_options()) as conn, setup_lock(conn):
            self._check_tables()

    def _check_tables(self) -> None:
        self.reads(writable=True, create=True).close()

    def close(self) -> None:
        """Close this process's pool of the database, if it made one."""
        close_process_pool(self.url)

    def _pool(self, max_size: int):
        from psycopg_pool import ConnectionPool

        return ConnectionPool(self.url, min_size=1, max_size=max_size, open=True,
                              kwargs=postgres_options())

    @contextmanager
    def saver(self, serde=None) -> Iterator:
        """PostgresSaver on a small pool, tables set up, closed afterwards."""
        from langgraph.checkpoint.postgres import PostgresSaver

        from playground.serde import graph_serde

        pool = self._pool(2)
        try:
            with pool.connection() as conn:
                setup_postgres_tables(conn, check=self._check_tables)
            yield PostgresSaver(pool, serde=serde or graph_serde())
        finally:
            pool.close()

    async def open_saver(self, serde, max_size: int = 10):
        """AsyncPostgresSaver on an async pool: every session, every replica's own
        connections."""
        import asyncio

        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg_pool import AsyncConnectionPool

        def setup() -> None:
            with psycopg.connect(self.url, **postgres_options()) as conn:
                setup_postgres_tables(conn, check=self._check_tables)

        # The migrations take a lock by polling (setup_postgres_tables): not on the loop.
        await asyncio.to_thread(setup)
        pool = AsyncConnectionPool(self.url, min_size=1, max_size=max_size, open=False,
                                   kwargs=postgres_options())
        await pool.open()
        return AsyncPostgresSaver(pool, serde=serde)

    async def open_store(self, options):
        """AsyncPostgresStore in the same database, with its change log table."""
        from langgraph.store.postgres.aio import AsyncPostgresStore
        from psycopg_pool import AsyncConnectionPool

        pool = AsyncConnectionPool(self.url, min_size=1, max_size=4, open=False,
                                   kwargs=postgres_options())
        await pool.open()
        store = AsyncPostgresStore(pool, **options)
        await store.setup()
        async with pool.connection() as conn:
            await conn.execute(STORE_LOG_DDL)
        return OpenedStore(store, PostgresStoreLog(pool))


