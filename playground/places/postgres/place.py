"""A Postgres database as a place threads live: what it is (a ``postgresql://`` URL), how it is
opened for the engine's reads (:class:`~playground.places.postgres.reads.PostgresStorage`), and
the savers, pools and store graphs run on in it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

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
from playground.places.typed_targets import (
    OWN_DATABASE_ENVS,
    allowed_urls,
    check_reach,
    host_key,
    same_host,
)
from playground.places.urls import is_postgres_url, redact_url, typed_connection
from playground.timetravel.limits import limits

DEFAULT_PORT = 5432
# On a server on loopback only, a typed URL naming the server's own database (beyond loopback
# every refusal is typed_targets.REFUSED).
OWN_DATABASE = ("this is the playground's own checkpoint database: a page does not open it "
                "(its threads are on History; the CLI reads it: playground threads URL)")


def _database_of(url: str) -> list[tuple[str, int, str]]:
    """(host, port, database) of each host a configured URL names, as libpq fills what it
    leaves out: ``PGHOST``, ``PGPORT``, ``PGDATABASE``, ``PGUSER``, then the local socket,
    5432 and the user's name. Empty when the URL cannot be read."""
    import getpass

    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(url)
    except ProgrammingError:
        return []
    hosts = str(params.get("host") or os.environ.get("PGHOST") or "").split(",")
    addresses = str(params.get("hostaddr") or "").split(",")
    ports = str(params.get("port") or os.environ.get("PGPORT") or "").split(",")
    user = params.get("user") or os.environ.get("PGUSER") or getpass.getuser()
    dbname = str(params.get("dbname") or os.environ.get("PGDATABASE") or user)
    found = []
    for index, host in enumerate(hosts):
        port = ports[index] if len(ports) == len(hosts) else ports[0]
        address = addresses[index] if len(addresses) == len(hosts) else addresses[0]
        number = int(port) if port.strip().isdigit() else DEFAULT_PORT
        # A hostaddr is where libpq connects; the host is then only a name for the pgpass.
        found += [(name, number, dbname) for name in {host, address} if name or not address]
    return found


def own_databases() -> list[tuple[str, int, str]]:
    """(host, port, database) of each Postgres database the server keeps its own data in
    (:data:`~playground.places.typed_targets.OWN_DATABASE_ENVS`)."""
    found = []
    for name in OWN_DATABASE_ENVS:
        url = os.environ.get(name, "").strip()
        if url and is_postgres_url(url):
            found += _database_of(url)
    return found


def allowed_origins() -> set[tuple[str, int]]:
    """(host, port) of each Postgres URL the person who started the server allowed a page
    to open (``playground run --allow-url``)."""
    found = set()
    for url in allowed_urls():
        if not is_postgres_url(url):
            continue
        try:
            parts = urlsplit(url)
            found.add((host_key(parts.hostname), parts.port or DEFAULT_PORT))
        except ValueError:  # a port that is not a number: it allows nothing
            continue
    return found


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
        cap): :func:`playground.places.urls.typed_connection` says why not. Then where it
        leads, under the rule every typed kind shares
        (:func:`playground.places.typed_targets.check_reach`): never the server's own
        database; beyond loopback only a host and port the person who started the server
        allowed; on loopback any other."""
        bounds = limits()
        where = typed_connection(self.url, connect_cap=bounds.connect_seconds,
                                 statement_timeout=bounds.read_seconds)
        host, port, dbname = where["host"], where["port"], where["dbname"]
        check_reach(
            own=any(port == own_port and dbname == own_name and same_host(host, own_host)
                    for own_host, own_port, own_name in own_databases()),
            allowed=(host_key(host), port) in allowed_origins(),
            own_on_loopback=OWN_DATABASE, loopback=None)

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


