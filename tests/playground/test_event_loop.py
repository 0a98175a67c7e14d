"""The process's event loop: sync code runs coroutines and walks async streams on it."""

from __future__ import annotations

import asyncio
import threading

import pytest

from playground.event_loop import EventLoop, shared_loop


def test_run_returns_what_the_coroutine_returns_from_the_loop_thread():
    loop = EventLoop()

    async def where() -> str:
        await asyncio.sleep(0)
        return threading.current_thread().name

    assert loop.run(where()) == "playground-loop"


def test_run_raises_the_coroutines_own_exception():
    async def fails() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        shared_loop().run(fails())


def test_run_gives_up_after_its_timeout_and_cancels_the_work():
    cancelled = threading.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(TimeoutError):
        shared_loop().run(slow(), timeout=0.05)
    assert cancelled.wait(5)


def test_iterate_yields_items_as_they_arrive_and_ends():
    async def count():
        for number in range(3):
            await asyncio.sleep(0)
            yield number

    assert list(shared_loop().iterate(count())) == [0, 1, 2]


def test_iterate_raises_the_streams_exception_after_its_items():
    async def breaks():
        yield "first"
        raise ValueError("node failed")

    seen = []
    with pytest.raises(ValueError, match="node failed"):
        for item in shared_loop().iterate(breaks()):
            seen.append(item)
    assert seen == ["first"]


async def endless(unwound: threading.Event, unwinding_s: float = 0.0):
    """Ticks until cancelled; ``unwound`` is set once its cleanup (taking ``unwinding_s``, a
    checkpoint still being written) is over."""
    try:
        while True:
            yield "tick"
            await asyncio.sleep(0.01)
    finally:
        await asyncio.sleep(unwinding_s)
        unwound.set()


def test_closing_an_iterator_early_cancels_the_stream_and_waits_for_it():
    unwound = threading.Event()

    items = shared_loop().iterate(endless(unwound, unwinding_s=0.05))
    assert next(items) == "tick"
    items.close()

    assert unwound.is_set(), "close() returned before the stream had unwound"


def test_halt_from_another_thread_ends_a_stream_whose_reader_is_waiting():
    """A page's next run halts the run the previous one streams while its thread still waits
    for the next item (Streamlit's fast reruns): the reader ends, the stream has unwound."""
    unwound = threading.Event()

    async def slow():
        try:
            yield "first"
            await asyncio.sleep(30)
            yield "never"
        finally:
            unwound.set()

    stream = shared_loop().iterate(slow())
    assert next(stream) == "first"
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(stream))
    reader.start()

    stream.halt()

    assert unwound.is_set()
    reader.join(5)
    assert not reader.is_alive() and got == []


def test_a_second_halt_waits_for_the_first_ones_unwinding_instead_of_cutting_it_short():
    """Stop halts a run twice at once: the page's run that streams closes its stream when
    Streamlit stops it, and the page's next run halts it too. LangGraph unwinds a cancelled
    run by waiting for the checkpoint writes still in flight; a second cancel would cut that
    wait short, and the thread would gain a checkpoint after the page had drawn it."""
    written = threading.Event()

    async def run_with_a_write_in_flight():
        try:
            while True:
                yield "step"
                await asyncio.sleep(0.01)
        finally:
            # As LangGraph's AsyncBackgroundExecutor does on exit: wait for the write.
            write = asyncio.ensure_future(asyncio.sleep(0.2))
            write.add_done_callback(lambda _: written.set())
            await asyncio.wait({write})

    stream = shared_loop().iterate(run_with_a_write_in_flight())
    assert next(stream) == "step"
    first = threading.Thread(target=stream.halt)
    first.start()
    first.join(0.05)  # the first halt is waiting for the unwinding

    stream.halt()

    assert written.is_set(), "the second halt returned before the write in flight was done"
    first.join(5)


def test_a_stream_nobody_reads_any_more_is_cancelled_when_collected():
    import gc

    unwound = threading.Event()

    stream = shared_loop().iterate(endless(unwound))
    assert next(stream) == "tick"
    del stream
    gc.collect()

    assert unwound.wait(5), "the abandoned stream kept running"


def test_two_threads_stream_at_once_on_one_loop():
    # Each stream waits, after its first item, until the other one has yielded too: run one
    # after the other, neither would ever see the other start.
    first = {"a": threading.Event(), "b": threading.Event()}

    async def meet(tag: str, other: str):
        yield f"{tag}0"
        first[tag].set()
        for _ in range(500):
            if first[other].is_set():
                yield f"{tag}1"
                return
            await asyncio.sleep(0.01)
        yield f"{tag} alone"

    results: dict[str, list[str]] = {}

    def walk(tag: str, other: str) -> None:
        results[tag] = list(shared_loop().iterate(meet(tag, other)))

    workers = [threading.Thread(target=walk, args=pair) for pair in (("a", "b"), ("b", "a"))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert results == {"a": ["a0", "a1"], "b": ["b0", "b1"]}


def test_run_from_the_loop_thread_is_refused_instead_of_deadlocking():
    loop = EventLoop()

    async def nested() -> None:
        loop.run(asyncio.sleep(0))

    with pytest.raises(RuntimeError, match="its own loop thread"):
        loop.run(nested())
