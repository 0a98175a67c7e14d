"""One asyncio event loop per process, in its own thread, that synchronous code hands work to.

Streamlit runs each page as a plain function in a script thread, and the CLI is synchronous
too, but LangGraph apps are written for the async API (``async def`` nodes, async tools,
``AsyncSqliteSaver``). So every graph runs on this loop: a page submits a coroutine and waits
for its result (:meth:`EventLoop.run`), or walks an async stream as an ordinary iterator
(:meth:`EventLoop.iterate`). The async savers and stores are opened on the same loop, which
owns their connections for the life of the process.

Closing an iterator early (Stop on the Run page: Streamlit raises inside the script when it
next draws) cancels the stream's task and waits until it has unwound, so the checkpoints of
every step that finished are written before the page reads the thread again; the page's next
run, which Streamlit may start before the old one has drawn again, halts it first
(:meth:`LoopStream.halt`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Awaitable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

# How long an iterator closed early waits for its cancelled task to unwind: a sync node still
# running in an executor thread cannot be interrupted, and a page must not hang on it.
CANCEL_WAIT_S = 10.0
_END = object()


class EventLoop:
    """An asyncio loop running forever in a daemon thread.

    Args:
        name: the thread's name (shown by py-spy and in thread dumps).
    """

    def __init__(self, name: str = "playground-loop") -> None:
        self._loop = asyncio.new_event_loop()
        started = threading.Event()
        self._thread = threading.Thread(target=self._serve, args=(started,), name=name,
                                        daemon=True)
        self._thread.start()
        started.wait()

    def _serve(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(started.set)
        self._loop.run_forever()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The asyncio loop itself (what async savers and stores are bound to)."""
        return self._loop

    def in_loop_thread(self) -> bool:
        """True when called from the loop's own thread, where blocking on it would deadlock."""
        return threading.current_thread() is self._thread

    def _check_caller(self, work: Any) -> None:
        if self.in_loop_thread():
            close = getattr(work, "close", None)
            if close is not None:  # never started: say so, not "was never awaited" later
                close()
            raise RuntimeError("EventLoop.run was called from its own loop thread: await the "
                               "coroutine instead")

    def run(self, work: Awaitable[T] | Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run a coroutine on the loop and return its result (or raise its exception).

        Raises:
            TimeoutError: it took longer than ``timeout`` seconds (it is cancelled then).
        """
        self._check_caller(work)
        future = asyncio.run_coroutine_threadsafe(_awaited(work), self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"gave up after {timeout:g} s") from None
        except BaseException:
            # The caller is going away (KeyboardInterrupt): the work must not go on alone.
            future.cancel()
            raise

    def iterate(self, stream: AsyncIterator[T]) -> LoopStream[T]:
        """Walk an async iterator from synchronous code, item by item as they arrive.

        The stream runs on the loop as one task that hands each item over a queue. Leaving the
        ``for`` loop early, or closing the iterator, cancels that task and waits (up to
        :data:`CANCEL_WAIT_S`) until it has unwound; :meth:`LoopStream.halt` does the same from
        any other thread.
        """
        self._check_caller(stream)
        return LoopStream(self._loop, stream)


class LoopStream(Iterator[T]):
    """An async stream running on the loop, read as a synchronous iterator.

    Streamlit may start a page's next run in a new thread while the run that streams is still
    waiting for its next item (a click during a run: Streamlit's fast reruns stop the old
    script only when it next draws). :meth:`halt` lets that next run end the stream first, so
    it reads the thread as the stopped run left it, every finished step written.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, stream: AsyncIterator[T]) -> None:
        self._loop = loop
        self._items: queue.SimpleQueue = queue.SimpleQueue()
        self._finished = threading.Event()
        items, finished = self._items, self._finished
        made: concurrent.futures.Future = concurrent.futures.Future()

        def start() -> None:
            # The task holds the queue and the event, not this object: a stream nobody reads
            # any more is collected, and its __del__ cancels the task.
            task = loop.create_task(_pump(stream, items))

            def ended(_task) -> None:
                # Once the task is really over (its stream closed), or cancelled before it
                # began: a reader waiting for an item ends.
                items.put((True, _END))
                finished.set()

            task.add_done_callback(ended)
            made.set_result(task)

        loop.call_soon_threadsafe(start)
        self._task: asyncio.Task = made.result()
        self._done = False
        self._cancel_sent = False
        self._cancel_lock = threading.Lock()

    def __next__(self) -> T:
        if self._done:
            raise StopIteration
        ok, item = self._items.get()
        if not ok:
            self._done = True
            self.halt()
            raise item
        if item is _END:
            self._done = True
            raise StopIteration
        return item

    def halt(self) -> None:
        """End the stream between two of its awaits and wait until it has unwound.

        Safe to call from several threads at once (the page's run that streams closes its
        stream while the page's next run halts it): each waits for the same unwinding.
        """
        self._cancel_once()
        self._finished.wait(CANCEL_WAIT_S)

    def _cancel_once(self) -> None:
        # One cancel only: LangGraph unwinds a cancelled run by awaiting the checkpoint writes
        # still in flight, and a second cancel would cut that wait short, so the thread would
        # gain a checkpoint after the page had drawn it.
        with self._cancel_lock:
            if self._cancel_sent or self._finished.is_set():
                return
            self._cancel_sent = True
        self._loop.call_soon_threadsafe(self._task.cancel)

    def close(self) -> None:
        """Stop reading: the stream is halted (a no-op once it has ended)."""
        self._done = True
        self.halt()

    def __del__(self) -> None:
        # Only cancel: waiting here could block whichever thread collects it (the loop's own).
        with contextlib.suppress(Exception):
            self._cancel_once()


async def _pump(stream: AsyncIterator[Any], items: queue.SimpleQueue) -> None:
    """Hand each item of ``stream`` over ``items``; an error goes over too, with its
    traceback. The end is signalled by the task's done callback (see :class:`LoopStream`)."""
    try:
        async for item in stream:
            items.put((True, item))
    except asyncio.CancelledError:
        raise
    except BaseException as exc:
        items.put((False, exc))
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            # already failed or closed: its error, if any, was handed over above
            with contextlib.suppress(Exception):
                await close()


async def _awaited(work: Awaitable[T]) -> T:
    return await work


_SHARED: EventLoop | None = None
_SHARED_LOCK = threading.Lock()


def shared_loop() -> EventLoop:
    """The process's one loop, started on first use (every page, tab and lesson shares it)."""
    global _SHARED
    if _SHARED is None:
        with _SHARED_LOCK:
            if _SHARED is None:
                _SHARED = EventLoop()
    return _SHARED
