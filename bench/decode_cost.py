"""What reading checkpoints safely costs: the safe decoder against LangGraph's own.

Before the safe decoder, the engine read values with ``JsonPlusSerializer()``, LangGraph's
permissive default, which imports and calls what a blob names. Both decode the same blobs in the
same run: every checkpoint of the engine benchmark's 10,000-checkpoint ticket thread, and every
checkpoint of a support-chat thread whose state is a growing list of LangChain messages (where
the old decoder builds pydantic message objects and the new one plain dicts).
"""

from __future__ import annotations

import gc
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from bench.engine_scale import make_thread
from playground.timetravel.decode import decode_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def _blobs(path: Path, thread_id: str) -> list[tuple[str, bytes]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT type, checkpoint FROM checkpoints WHERE thread_id = ?",
                            (thread_id,)).fetchall()
    conn.close()
    return rows


def _once(fn) -> float:
    # Collected before and paused during: the decoded objects of the previous round would
    # otherwise be freed, and the collector run, inside the next round's timing.
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started
    finally:
        gc.enable()


def _best_of_both(old, new, repeat: int = 7) -> tuple[float, float]:
    """Best time of each, the two taken in turns so a busy moment hits both alike."""
    old_s = new_s = float("inf")
    for _ in range(repeat):
        old_s = min(old_s, _once(old))
        new_s = min(new_s, _once(new))
    return old_s, new_s


def _chat_thread(path: Path, turns: int) -> None:
    sys.path.insert(0, str(ROOT))
    from examples.support_chat import build_graph
    from playground.savers import open_saver

    with open_saver(path) as saver:
        graph = build_graph(saver)
        config = {"configurable": {"thread_id": "chat"}}
        for turn in range(turns):
            graph.invoke({"messages": [("human", f"Where is my order A17? ({turn})")]}, config)


def _row(name: str, blobs: list, serde: JsonPlusSerializer) -> dict:
    old_s, new_s = _best_of_both(lambda: [serde.loads_typed(blob) for blob in blobs],
                                 lambda: [decode_checkpoint(*blob) for blob in blobs])
    return {
        "name": f"decode every checkpoint of {name} ({len(blobs):,} blobs, "
                f"{sum(len(b[1]) for b in blobs) / 1e6:.1f} MB)",
        "ours": f"{new_s * 1000:.0f} ms",
        "baseline_value": f"{old_s * 1000:.0f} ms",
        "baseline": "JsonPlusSerializer(), the old decoder, same blobs",
        "ratio": round(new_s / old_s, 2),
        "goal": "report",
    }


def run(turns: int = 2000, chat_turns: int = 60) -> dict:
    """Time both decoders on the 10k ticket thread and on a chat thread."""
    serde = JsonPlusSerializer()
    with tempfile.TemporaryDirectory() as tmp:
        tickets, chat = Path(tmp) / "tickets.sqlite", Path(tmp) / "chat.sqlite"
        make_thread(tickets, turns)
        _chat_thread(chat, chat_turns)
        return {"rows": [
            _row("the 10,000-checkpoint ticket thread", _blobs(tickets, "big"), serde),
            _row(f"a {chat_turns}-turn support chat", _blobs(chat, "chat"), serde),
        ]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
