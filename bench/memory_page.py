"""The Memory page on a store of 10,000 items against the same page on a store of 10.

The memory chat example's store (``AsyncSqliteStore`` beside its checkpoints) is filled with
items spread over 100 users' namespaces, as a chat with many users keeps them; then warm
reruns of the Memory page are timed with Streamlit's AppTest (the script run, widgets and
table; no browser). The page lists namespaces and one page of one namespace's items, so the
goal is the big store's rerun within 2x of the small one's.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bench.page_rerun import rerun_ms
from playground.event_loop import shared_loop
from playground.places.door import open_place
from playground.runtime.store_log import open_recording_store

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "examples" / "memory_chat" / "langgraph.json"


def fill_store(checkpoints: Path, items: int, users: int = 100) -> None:
    """Put ``items`` memories into the store beside ``checkpoints``, over ``users`` namespaces."""
    loop = shared_loop()
    store = loop.run(open_recording_store(open_place(checkpoints)))

    async def fill() -> None:
        for start in range(0, items, 500):
            from langgraph.store.base import PutOp

            await store.abatch([PutOp(("memories", f"user-{n % users:03d}"), f"fact-{n:05d}",
                                      {"fact": f"likes number {n}"})
                                for n in range(start, min(start + 500, items))])

    loop.run(fill())


def _rerun(checkpoints: Path) -> float:
    os.environ["PLAYGROUND_CHECKPOINTS"] = str(checkpoints)
    return rerun_ms("bench", page="views/memory.py")


def run() -> dict:
    """Time warm reruns of the Memory page on both stores."""
    saved = {k: os.environ.get(k) for k in ("PLAYGROUND_CHECKPOINTS", "PLAYGROUND_GRAPH_CONFIG",
                                            "PLAYGROUND_TICKETS_DB")}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(PLAYGROUND_GRAPH_CONFIG=str(CONFIG),
                          PLAYGROUND_TICKETS_DB=str(Path(tmp) / "tickets.sqlite"))
        try:
            small, big = Path(tmp) / "small.sqlite", Path(tmp) / "big.sqlite"
            fill_store(small, 10, users=1)
            fill_store(big, 10_000)
            small_ms, big_ms = _rerun(small), _rerun(big)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return {"rows": [{
        "name": "Memory page rerun (AppTest), store of 10,000 items in 100 namespaces",
        "ours": f"{big_ms:.0f} ms",
        "baseline_value": f"{small_ms:.0f} ms",
        "baseline": "the same page on a store of 10 items",
        "ratio": round(big_ms / small_ms, 2),
        "goal": "<= 2x",
    }]}


if __name__ == "__main__":
    print(run())
