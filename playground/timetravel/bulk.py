"""Building many small objects at once without paying for the cycle collector's full scans.

A tree or a timeline of a long thread is tens of thousands of named tuples, tuples and
dicts of strings and numbers, made in one go. None of them can form a reference cycle, so
reference counting frees them all; yet CPython's cycle collector counts every one as it is
made, and once enough have survived it walks every container object of the process. In a
process that holds a graph and a UI, such a walk costs about as much as reading the thread
(measured: ``bench/timeline_cost.py``, half the timeline's time went to it). :func:`paused_gc`
holds the collector off while a bulk read builds its objects; it runs again at its usual
thresholds afterwards, and ``gc.collect()`` works all along.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0  # bulk reads under way, in any thread
_resume = False  # whether the collector ran before the first of them began


@contextmanager
def paused_gc() -> Iterator[None]:
    """Hold the cycle collector off for the block, in any number of threads at once: it runs
    again when the last block ends, if it ran before the first began (a program that turned
    it off keeps it off)."""
    global _holders, _resume
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _resume:
                gc.enable()
