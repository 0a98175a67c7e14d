"""The long-term store a user's graph gets, and the log of what each run wrote to it.

A graph that takes ``store: BaseStore``, reads ``runtime.store`` or calls ``get_store()`` gets
the store LangGraph's own server would give it: ``AsyncSqliteStore`` in a file beside the
checkpoints (``langgraph.store.sqlite``, shipped with langgraph-checkpoint-sqlite; see
:func:`store_target`) or ``AsyncPostgresStore`` in the checkpoint database, configured by
langgraph.json's ``store`` section (``index``, ``ttl``; :func:`store_options` checks it).

The store is wrapped in a :class:`RecordingStore`: every put and delete a node makes is logged
with the value before and after, the thread, the node and the checkpoint the node ran from, in
the table ``playground_store_changes`` beside the store's own. So Run shows what a run wrote to
the store, and History what each step wrote, as a diff. Reads and writes made outside a run
(the Memory page) are not logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore, GetOp, Op, PutOp, Result

from playground.apps.errors import AppLoadError
from playground.timetravel.storage.open import is_postgres_url

LOG_TABLE = "playground_store_changes"
_TTL_KEYS = {"default_ttl": (int, float), "refresh_on_read": bool,
             "sweep_interval_minutes": int, "omit_expired": bool}
_INDEX_KEYS = {"dims", "embed", "fields"}

# The changes of the run being streamed, when a page asked for them (DrivenGraph sets it in the
# run's task; LangGraph copies the context into every node it starts).
RUN_CHANGES: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "playground_run_store_changes", default=None)


@dataclass(frozen=True)
class StoreChange:
    """One item a node put or deleted.

    Attributes:
        namespace: the item's namespace (``("memories", "ana")``).
        key: its key.
        before: its value before (None when it was added).
        after: its value after (None when it was removed).
        node: the node that wrote it.
        thread_id: the thread whose run wrote it.
        from_checkpoint: the checkpoint the node ran from (its step's checkpoint is a child).
        at: when (ISO 8601, UTC).
    """

    namespace: tuple[str, ...]
    key: str
    before: Any
    after: Any
    node: str | None = None
    thread_id: str | None = None
    from_checkpoint: str | None = None
    at: str = ""

    @property
    def kind(self) -> str:
        """``added``, ``changed`` or ``removed``."""
        if self.before is None:
            return "added"
        return "removed" if self.after is None else "changed"

    def line(self) -> str:
        """``+ memories/ana/likes = {"fact": "tea"}``: the change in one line."""
        path = "/".join([*self.namespace, self.key])
        if self.kind == "added":
            return f"+ {path} = {_short(self.after)}"
        if self.kind == "removed":
            return f"- {path} (was {_short(self.before)})"
        return f"~ {path}: {_short(self.before)} -> {_short(self.after)}"


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- configuration ------------------------------------------------------------------------------


def _embedder(spec: str, base: Path | None) -> Any:
    """An embedding function named ``path.py:attr`` or ``module:attr``, or a provider string."""
    from playground.apps.loader import import_target, parse_spec

    where = spec.rpartition(":")[0]
    if "/" not in where and not where.endswith(".py") and "." not in where:
        return spec  # "openai:text-embedding-3-small": LangChain's init_embeddings reads it
    graph_spec = parse_spec(spec, base=base)
    function = getattr(import_target(graph_spec), graph_spec.attr, None)
    if not callable(function):
        raise AppLoadError(f"store.index.embed {spec!r} is not a function")
    return function


def store_options(config: dict | None, base: Path | None = None) -> dict[str, Any]:
    """``index`` and ``ttl`` for the store, from langgraph.json's ``store`` section.

    Raises:
        AppLoadError: a key the store does not take, or a value of the wrong type; one line.
    """
    if not config:
        return {}
    unknown = set(config) - {"index", "ttl"}
    if unknown:
        raise AppLoadError(f"store: unknown key {sorted(unknown)[0]!r} (the store takes 'index' "
                           "and 'ttl')")
    options: dict[str, Any] = {}
    ttl = config.get("ttl")
    if ttl is not None:
        if not isinstance(ttl, dict):
            raise AppLoadError("store.ttl must be an object, such as {\"default_ttl\": 60}")
        for key, value in ttl.items():
            kinds = _TTL_KEYS.get(key)
            if kinds is None:
                raise AppLoadError(f"store.ttl: unknown key {key!r} (it takes "
                                   f"{', '.join(sorted(_TTL_KEYS))})")
            if value is not None and (not isinstance(value, kinds) or (
                    kinds is not bool and isinstance(value, bool))):
                raise AppLoadError(f"store.ttl.{key} must be a "
                                   f"{'boolean' if kinds is bool else 'number'}, got {value!r}")
        options["ttl"] = dict(ttl)
    index = config.get("index")
    if index is not None:
        if not isinstance(index, dict) or "embed" not in index or "dims" not in index:
            raise AppLoadError("store.index needs 'embed' and 'dims' (and may name 'fields')")
        if set(index) - _INDEX_KEYS:
            raise AppLoadError(f"store.index: unknown key {sorted(set(index) - _INDEX_KEYS)[0]!r}")
        if not isinstance(index["dims"], int) or index["dims"] <= 0:
            raise AppLoadError(f"store.index.dims must be a positive integer, got "
                               f"{index['dims']!r}")
        if not isinstance(index["embed"], str):
            raise AppLoadError("store.index.embed must name an embedding: 'provider:model' or "
                               "'./file.py:function'")
        options["index"] = {**index, "embed": _embedder(index["embed"], base)}
    return options


# -- opening -------------------------------------------------------------------------------------


def store_target(checkpoints: str | Path) -> str:
    """Where the store of a checkpoint target lives: the same Postgres database, or for a
    SQLite file a sibling file (``app.sqlite`` -> ``app.store.sqlite``).

    Not the checkpoint file itself: SQLite lets one writer in at a time, and a store
    transaction that reads before it writes (a TTL refresh, a put logged with its old value)
    fails at once with "database is locked" when the saver's connection wrote in between.
    """
    if is_postgres_url(checkpoints):
        return str(checkpoints)
    path = Path(checkpoints)
    return str(path.with_name(f"{path.stem}.store{path.suffix or '.sqlite'}"))


async def open_async_store(target: str | Path, options: dict[str, Any] | None = None
                           ) -> RecordingStore:
    """The async store in a checkpoint target (a SQLite file or a Postgres URL), tables set up,
    wrapped to log what runs write.

    Await it on the process's event loop: the store binds to the running loop.

    Raises:
        AppLoadError: the store's ``index`` cannot be set up (an embedding provider that is not
            installed, a vector extension missing); one line.
    """
    options = dict(options or {})
    try:
        if is_postgres_url(target):
            from langgraph.store.postgres.aio import AsyncPostgresStore
            from psycopg_pool import AsyncConnectionPool

            from playground.timetravel.storage.settings import postgres_options

            pool = AsyncConnectionPool(str(target), min_size=1, max_size=4, open=False,
                                       kwargs=postgres_options())
            await pool.open()
            inner = AsyncPostgresStore(pool, **options)
            await inner.setup()
            async with pool.connection() as conn:
                await conn.execute(_LOG_DDL_POSTGRES)
        else:
            import aiosqlite
            from langgraph.store.sqlite.aio import AsyncSqliteStore

            from playground.timetravel.storage.settings import sqlite_timeout

            path = Path(target)
            path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: AsyncSqliteStore opens its own transactions (DESIGN.md).
            conn = await aiosqlite.connect(str(path), isolation_level=None,
                                           timeout=sqlite_timeout())
            inner = AsyncSqliteStore(conn, **options)
            await inner.setup()
            await conn.execute(_LOG_DDL_SQLITE)
    except AppLoadError:
        raise
    except Exception as exc:
        raise AppLoadError(f"the store could not be set up: {type(exc).__name__}: {exc}") from None
    if options.get("ttl"):
        await inner.start_ttl_sweeper()
    return RecordingStore(inner, postgres=is_postgres_url(target))


_LOG_COLUMNS = ("thread_id TEXT, from_checkpoint TEXT, node TEXT, namespace TEXT NOT NULL, "
                "key TEXT NOT NULL, before_value TEXT, after_value TEXT, at TEXT NOT NULL")
_LOG_DDL_SQLITE = f"CREATE TABLE IF NOT EXISTS {LOG_TABLE} ({_LOG_COLUMNS})"
_LOG_DDL_POSTGRES = f"CREATE TABLE IF NOT EXISTS {LOG_TABLE} ({_LOG_COLUMNS})"


# -- the recording wrapper ---------------------------------------------------------------------


def _run_of() -> tuple[str | None, str | None, str | None]:
    """(thread, node, checkpoint it ran from) of the node calling the store, or Nones."""
    try:
        from langgraph.config import get_config

        config = get_config()
    except Exception:  # outside a run: the Memory page, a script
        return None, None, None
    configurable = config.get("configurable") or {}
    metadata = config.get("metadata") or {}
    checkpoint = (configurable.get("checkpoint_map") or {}).get("")
    return configurable.get("thread_id"), metadata.get("langgraph_node"), checkpoint


class RecordingStore(BaseStore):
    """A store that logs what a run's nodes put and delete (see the module's docstring).

    Args:
        inner: the real store, which holds the data.
        postgres: True when it is a Postgres store (the log's SQL differs).
    """

    def __init__(self, inner: BaseStore, postgres: bool = False) -> None:
        self.inner = inner
        self.postgres = postgres
        # BaseStore's put/search check these before calling batch().
        self.supports_ttl = getattr(inner, "supports_ttl", False)
        self.ttl_config = getattr(inner, "ttl_config", None)

    def _changes(self, puts: list[PutOp], befores: list[Any]) -> list[StoreChange]:
        thread_id, node, checkpoint = _run_of()
        at = datetime.now(tz=UTC).isoformat(timespec="milliseconds")
        found = []
        for op, before in zip(puts, befores, strict=True):
            old = getattr(before, "value", None)
            if old is None and op.value is None:
                continue  # a delete of nothing
            found.append(StoreChange(tuple(op.namespace), op.key, old, op.value, node,
                                     thread_id, checkpoint, at))
        return found

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        puts = [op for op in ops if isinstance(op, PutOp)]
        if not puts or _run_of()[0] is None:
            return await self.inner.abatch(ops)
        results = await self.inner.abatch([GetOp(p.namespace, p.key) for p in puts] + ops)
        await self._insert(self._keep(self._changes(puts, results[: len(puts)])))
        return results[len(puts):]

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        puts = [op for op in ops if isinstance(op, PutOp)]
        if not puts or _run_of()[0] is None:
            return self.inner.batch(ops)
        results = self.inner.batch([GetOp(p.namespace, p.key) for p in puts] + ops)
        rows = self._keep(self._changes(puts, results[: len(puts)]))
        # A sync node calls the store from an executor thread: the async store's own sync
        # methods hop to its loop, and so does the log's insert.
        loop = getattr(self.inner, "_loop", None)
        if rows and loop is not None:
            asyncio.run_coroutine_threadsafe(self._insert(rows), loop).result()
        return results[len(puts):]

    def _keep(self, changes: list[StoreChange]) -> list[tuple]:
        """Hand the changes to the run that is streaming (if a page asked), and make the log's
        rows of them."""
        held = RUN_CHANGES.get()
        if held is not None:
            held.extend(changes)
        return [(c.thread_id, c.from_checkpoint, c.node, json.dumps(list(c.namespace)), c.key,
                 None if c.before is None else json.dumps(c.before, default=str),
                 None if c.after is None else json.dumps(c.after, default=str), c.at)
                for c in changes]

    async def _insert(self, rows: list[tuple]) -> None:
        if not rows:
            return
        conn = self.inner.conn
        if not self.postgres:
            async with self.inner.lock:  # not inside one of the store's own transactions
                await conn.executemany(_INSERT_SQLITE, rows)  # autocommit
            return
        async with _pg_connection(conn) as pg, pg.cursor() as cursor:
            await cursor.executemany(_INSERT_POSTGRES, rows)

    # Everything else is the real store's: namespaces, search, TTL, index.
    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


_INSERT_SQLITE = (f"INSERT INTO {LOG_TABLE} (thread_id, from_checkpoint, node, namespace, key, "
                  "before_value, after_value, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_POSTGRES = _INSERT_SQLITE.replace("?", "%s")


@contextlib.asynccontextmanager
async def _pg_connection(conn: Any) -> AsyncIterator[Any]:
    if hasattr(conn, "connection"):  # an AsyncConnectionPool
        async with conn.connection() as borrowed:
            yield borrowed
    else:
        yield conn


# -- reading the log -----------------------------------------------------------------------------


def _change_of(row: tuple) -> StoreChange:
    thread_id, checkpoint, node, namespace, key, before, after, at = row
    return StoreChange(tuple(json.loads(namespace)), key,
                       None if before is None else json.loads(before),
                       None if after is None else json.loads(after), node, thread_id,
                       checkpoint, at)


async def changes_of(store: RecordingStore, thread_id: str,
                     from_checkpoint: str | None = None, limit: int = 500) -> list[StoreChange]:
    """What runs of a thread wrote to the store, oldest first; with ``from_checkpoint``, only
    what the step that ran from that checkpoint wrote."""
    where = "thread_id = ?" + (" AND from_checkpoint = ?" if from_checkpoint else "")
    params = (thread_id, from_checkpoint) if from_checkpoint else (thread_id,)
    sql = (f"SELECT thread_id, from_checkpoint, node, namespace, key, before_value, "
           f"after_value, at FROM {LOG_TABLE} WHERE {where} ORDER BY at LIMIT {int(limit)}")
    conn = store.inner.conn
    if not store.postgres:
        async with store.inner.lock, conn.execute(sql, params) as cursor:
            rows = await cursor.fetchall()
    else:
        async with _pg_connection(conn) as pg:
            cursor = await pg.execute(sql.replace("?", "%s"), params)
            rows = [tuple(r.values()) if isinstance(r, dict) else r
                    for r in await cursor.fetchall()]
    return [_change_of(tuple(row)) for row in rows]
