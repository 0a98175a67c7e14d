"""The log of what each run wrote to the long-term store, recorded while the runtime runs.

A graph that takes ``store: BaseStore``, reads ``runtime.store`` or calls ``get_store()`` gets
the store its place opens (:meth:`playground.places.base.Place.open_store`: AsyncSqliteStore
in a file beside the checkpoints, AsyncPostgresStore in their database), wrapped in a
:class:`RecordingStore`: every put and delete a node makes is logged with the value before and
after, the thread, the node and the checkpoint the node ran from, in the table
``playground_store_changes`` beside the store's own. So Run shows what a run wrote to the
store, and History what each step wrote, as a diff. Reads and writes made outside a run (the
Memory page) are not logged.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from langgraph.store.base import BaseStore, GetOp, Op, PutOp, Result

from playground.apps.errors import AppLoadError

if TYPE_CHECKING:
    from playground.places.base import Place, StoreLog

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


async def open_recording_store(place: Place, options: dict[str, Any] | None = None
                               ) -> RecordingStore:
    """The long-term store of a place, tables set up, wrapped to log what runs write.

    Await it on the process's event loop: the store binds to the running loop.

    Raises:
        AppLoadError: the store cannot be set up (an embedding provider that is not installed,
            a vector extension missing); one line.
    """
    options = dict(options or {})
    try:
        opened = await place.open_store(options)
    except AppLoadError:
        raise
    except Exception as exc:
        raise AppLoadError(f"the store could not be set up: {type(exc).__name__}: {exc}") from None
    if options.get("ttl"):
        await opened.store.start_ttl_sweeper()
    return RecordingStore(opened.store, opened.log)


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
        log: where its place keeps the log.
    """

    def __init__(self, inner: BaseStore, log: StoreLog) -> None:
        self.inner = inner
        self.log = log
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
        rows = self._keep(self._changes(puts, results[: len(puts)]))
        if rows:
            await self.log.insert(rows)
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
            asyncio.run_coroutine_threadsafe(self.log.insert(rows), loop).result()
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

    # Everything else is the real store's: namespaces, search, TTL, index.
    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


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
    rows = await store.log.select(thread_id, from_checkpoint, limit)
    return [_change_of(tuple(row)) for row in rows]
