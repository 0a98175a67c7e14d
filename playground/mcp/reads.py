"""How a tool reads the place the server was started on: through the door, one read per call.

The place is made once per server (:func:`~playground.places.door.open_place`: cheap, it
connects to nothing; an Agent Server's client is made once and reused). Each tool call opens
the engine's reads on it and closes them when it is done, exactly as a CLI command does, for
two reasons measured on this machine:

- a SQLite read's deadline (``PLAYGROUND_READ_TIMEOUT``) starts when its storage is opened (the
  progress handler compares against the moment of opening), so a storage kept for the whole
  server would refuse every read 20 s after the server started; opening a file costs 0.5 ms;
- a Postgres read on a connection of its own runs in a read-only session (the server refuses
  any write on it) with the CLI's connect and statement deadlines; it costs 14 ms to open here,
  against 1 ms for the process pool's borrowed connections, which are not read-only.

A storage is never shared between calls, so calls that run at once (on worker threads) never
share a connection. At most :data:`READS_AT_ONCE` run together: the machine's cores, not the
client's patience, bound the work.

What a thread's tree and layout cost to read is kept across calls (:attr:`PlaceReads.trees`, the
engine's :class:`~playground.timetravel.tree.TreeCache`, as the pages keep them): a model paging
a 10,000-checkpoint thread reads the tree once (0.7 s here), then each page in about 40 ms. The
cache is keyed by the thread's fingerprint, read on every call, so a thread that changed is read
again; it holds half of ``PLAYGROUND_CACHE_MB`` at most.

A server started with a graph (``--graph`` or ``--config``, with or without
``--allow-writes``) folds that graph's DeltaChannels with the graph's own reducers, as the pages
do (:attr:`PlaceReads.reducers`, given to every storage it opens); without one, the engine
folds what it can without running anything, and a value only the app's reducer folds says to
start the server with the graph (each storage is opened as MCP's: ``delta.ON_MCP``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import closing
from typing import TypeVar

import anyio
import anyio.to_thread

from playground.places.base import Place
from playground.places.door import open_place
from playground.timetravel.delta import ON_MCP, Reducer
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, TreeCache, load_tree
from playground.timetravel.tree_layout import TreeLayout, kept_layout, tree_layout

T = TypeVar("T")

READS_AT_ONCE = 2  # calls reading the place at the same time; more wait their turn


class PlaceReads:
    """The place a server reads, and the one way its tools read it (:meth:`run`).

    Args:
        target: what ``playground mcp PLACE`` was given (a path, a ``postgresql://`` URL, an
            Agent Server's ``http://`` URL), or a place already opened.

    Attributes:
        reducers: the reducers of the DeltaChannels of the graph the person starting the
            server named, by state key (``Storage.reducers``); empty without one.
    """

    def __init__(self, target: str | Place) -> None:
        self.place = target if isinstance(target, Place) else open_place(target)
        self._limiter: anyio.CapacityLimiter | None = None
        self.trees = TreeCache()
        self.reducers: Mapping[str, Reducer] = {}

    @property
    def label(self) -> str:
        """The place, safe to show (a URL without its password)."""
        return self.place.label

    def check(self) -> str:
        """Open the place's reads once and close them: a target that is not a checkpoint store
        is refused before the server starts. Returns who wrote it.

        Raises:
            CheckpointDbError: the place cannot be read (one line).
        """
        with closing(self.place.reads()) as storage:
            return storage.writer

    def read(self, work: Callable[[Storage], T]) -> T:
        """``work`` on the place's reads, opened for it and closed after (on this thread)."""
        with closing(self.place.reads()) as storage:
            storage.shown_on = ON_MCP  # an unfolded value says what works here
            if self.reducers:
                storage.reducers = self.reducers
            return work(storage)

    async def run(self, work: Callable[[Storage], T]) -> T:
        """:meth:`read` on a worker thread, at most :data:`READS_AT_ONCE` at a time, so the
        server's event loop keeps answering (and a read past its deadline stops by itself)."""
        if self._limiter is None:  # made on the loop that uses it
            self._limiter = anyio.CapacityLimiter(READS_AT_ONCE)
        return await anyio.to_thread.run_sync(self.read, work, limiter=self._limiter)

    def close(self) -> None:
        """Give back what the place holds for the process (an Agent Server's client)."""
        self.place.close()


def thread_tree(storage: Storage, thread_id: str, trees: TreeCache | None = None
                ) -> CheckpointTree:
    """A thread's tree, with each checkpoint's time: from ``trees`` while the thread is
    unchanged, else read (:func:`~playground.timetravel.tree.load_tree`).

    Raises:
        UnknownThread: the thread has no checkpoints.
    """
    if trees is None:
        return load_tree(storage, thread_id, times=True)
    return trees.get(storage, thread_id)


def thread_layout(storage: Storage, tree: CheckpointTree, trees: TreeCache | None = None
                  ) -> TreeLayout:
    """The tree as History lays it out (branches and their labels), kept in ``trees`` beside
    the tree while the thread is unchanged."""
    if trees is None:
        return tree_layout(storage, tree)
    return kept_layout(trees, storage, tree)
