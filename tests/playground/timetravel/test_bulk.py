"""The cycle collector held off during bulk reads, and given back as it was."""

from __future__ import annotations

import gc
import threading

import pytest

from playground.timetravel.bulk import paused_gc


@pytest.fixture(autouse=True)
def _collector_on():
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_inside_a_bulk_read_and_on_after_it():
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_comes_back_after_a_bulk_read_that_raised():
    with pytest.raises(ValueError), paused_gc():
        raise ValueError("a read went wrong")
    assert gc.isenabled()


def test_overlapping_reads_in_two_threads_give_it_back_only_when_both_end():
    first_inside, release = threading.Event(), threading.Event()

    def first() -> None:
        with paused_gc():
            first_inside.set()
            release.wait(5)

    worker = threading.Thread(target=first)
    worker.start()
    first_inside.wait(5)
    with paused_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the first read is still building
    release.set()
    worker.join(5)
    assert gc.isenabled()


def test_a_program_that_turned_the_collector_off_keeps_it_off():
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()
