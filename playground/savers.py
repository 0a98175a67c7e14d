"""The savers graphs run on: the one a place gives (through the door), and the bridge for a
saver a graph brings itself.

Every saver made here serializes with :func:`playground.serde.graph_serde`: LangGraph's safe
types plus the classes the running graph's state declares, never the permissive default that
imports whatever a checkpoint names. Which saver a target gets (SqliteSaver on a file,
PostgresSaver on a pool...) is the place's business (:mod:`playground.places`), never a
caller's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from playground.places.door import DEFAULT_CHECKPOINTS, is_busy, open_place

if TYPE_CHECKING:  # imported where a saver is made: the CLI's read-only commands need neither
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = ["DEFAULT_CHECKPOINTS", "close_async_saver", "has_async_api", "is_lock_timeout",
           "open_async_saver", "open_saver", "threaded"]


@contextmanager
def open_saver(
    target: str | Path = DEFAULT_CHECKPOINTS, serde: SerializerProtocol | None = None
) -> Iterator[BaseCheckpointSaver]:
    """The official sync saver on a target (a SQLite file, created if needed, or a Postgres
    URL), tables set up, closed afterwards."""
    with open_place(target).saver(serde) as saver:
        yield saver


def is_lock_timeout(exc: BaseException) -> bool:
    """True when a saver gave up waiting for another writer's lock: the thread keeps its last
    checkpoint, and the same call can run again."""
    return is_busy(exc)


async def open_async_saver(
    target: str | Path, serde: SerializerProtocol | None = None, max_size: int = 10
) -> BaseCheckpointSaver:
    """The async saver on a target, tables set up (``AsyncSqliteSaver``,
    ``AsyncPostgresSaver``...).

    Await it on the loop that will use it (``playground.event_loop``): the savers bind to
    the running loop. The tables are the ones the sync savers write, so a stock saver, and the
    engine, read every thread it writes.
    """
    from playground.serde import graph_serde

    return await open_place(target).open_saver(serde or graph_serde(), max_size)


async def close_async_saver(saver: BaseCheckpointSaver) -> None:
    """Close what :func:`open_async_saver` opened (its connection or its pool)."""
    await saver.conn.close()


def has_async_api(saver: BaseCheckpointSaver) -> bool:
    """Whether a saver implements LangGraph's async methods itself (SqliteSaver and
    PostgresSaver raise NotImplementedError there; their async twins and InMemorySaver don't)."""
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver

    own = type(saver).aget_tuple
    return own is not BaseCheckpointSaver.aget_tuple and not isinstance(
        saver, (SqliteSaver, PostgresSaver))


def threaded(saver: BaseCheckpointSaver) -> BaseCheckpointSaver:
    """A saver with the async API over a sync-only one, each call run in a worker thread.

    For a graph compiled on a stock ``SqliteSaver`` or ``PostgresSaver`` (a script, a test, the
    CLI) that the playground drives through ``astream``. The data and the tables are the
    sync saver's own; this only moves its calls off the event loop.
    """
    import asyncio

    from langgraph.checkpoint.base import BaseCheckpointSaver

    class Threaded(BaseCheckpointSaver):
        def __init__(self) -> None:
            super().__init__(serde=saver.serde)
            self.inner = saver

        def get_tuple(self, config):
            return saver.get_tuple(config)

        def list(self, config, **kwargs):
            return saver.list(config, **kwargs)

        def put(self, config, checkpoint, metadata, new_versions):
            return saver.put(config, checkpoint, metadata, new_versions)

        def put_writes(self, config, writes, task_id, task_path=""):
            return saver.put_writes(config, writes, task_id, task_path)

        def delete_thread(self, thread_id):
            return saver.delete_thread(thread_id)

        def get_next_version(self, current, channel):
            return saver.get_next_version(current, channel)

        def get_delta_channel_history(self, *, config, channels):
            return saver.get_delta_channel_history(config=config, channels=channels)

        async def aget_tuple(self, config):
            return await asyncio.to_thread(saver.get_tuple, config)

        async def alist(self, config, **kwargs):
            # Materialized first: a sync saver holds its lock while its list() is open.
            for item in await asyncio.to_thread(lambda: list(saver.list(config, **kwargs))):
                yield item

        async def aput(self, config, checkpoint, metadata, new_versions):
            return await asyncio.to_thread(saver.put, config, checkpoint, metadata,
                                           new_versions)

        async def aput_writes(self, config, writes, task_id, task_path=""):
            return await asyncio.to_thread(saver.put_writes, config, writes, task_id, task_path)

        async def adelete_thread(self, thread_id):
            return await asyncio.to_thread(saver.delete_thread, thread_id)

        async def aget_delta_channel_history(self, *, config, channels):
            return await asyncio.to_thread(
                lambda: saver.get_delta_channel_history(config=config, channels=channels))

    return Threaded()
