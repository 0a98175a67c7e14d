"""A History page rerun on a 10,000-checkpoint thread vs the same page on a 10-checkpoint thread.

Measured with Streamlit's AppTest (the script run, widgets and graphviz DOT; no browser
rendering). Goal: the big thread's rerun within 2x of the small one's.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.engine_scale import make_thread

APP = Path(__file__).resolve().parents[1] / "playground" / "ui" / "app.py"


def rerun_ms(thread: str, page: str | None = "views/history.py", runs: int = 7) -> float:
    """Median warm rerun of a page (None: the app's first page) on a thread of room "bench"."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params["room"] = "bench"
    at.query_params["thread"] = thread
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, at.exception
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def run() -> dict:
    """Build both threads in one file, then time warm reruns of the History page on each."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "checkpoints.sqlite"
        os.environ["PLAYGROUND_CHECKPOINTS"] = str(path)
        os.environ["PLAYGROUND_TICKETS_DB"] = str(Path(tmp) / "tickets.sqlite")

        def progress(done: int, total: int) -> None:
            print(f"\r  writing thread: {done}/{total} turns", end="", file=sys.stderr, flush=True)

        make_thread(path, 2, thread_id="bench/small")
        make_thread(path, 2000, progress, thread_id="bench/big")
        print(file=sys.stderr)
        small = rerun_ms("small")
        big = rerun_ms("big")
    return {
        "rows": [{
            "name": "History page rerun (AppTest), 10,000-checkpoint thread",
            "ours": f"{big:.0f} ms",
            "baseline_value": f"{small:.0f} ms",
            "baseline": "the same page on a 10-checkpoint thread",
            "ratio": round(big / small, 2),
            "goal": "<= 2x",
        }]
    }


if __name__ == "__main__":
    print(run())
