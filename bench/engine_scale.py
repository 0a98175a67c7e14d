"""Tree and sizes on a thread of 10,000 checkpoints vs LangGraph's get_state_history.

The thread is written by a real graph on a SqliteSaver file (read -> plan -> pause -> write, 2,000
turns of five checkpoints). get_state_history on the same file, in the same run, is the baseline.
Goals: tree <= 0.1x and sizes <= 0.05x of get_state_history's time.

Memory: a 100,000-checkpoint thread, made by cloning those rows with new ids in SQL (a real graph
would take many minutes to write it), loaded as a tree in a fresh process; goal < 200 MB RSS.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.places.door import open_storage
from playground.timetravel.sizes import size_report
from playground.timetravel.tree import load_tree


class _State(TypedDict, total=False):
    ticket_id: str
    etag: str
    changes: dict
    outcome: str


def _graph(saver):
    builder = StateGraph(_State)
    builder.add_node("read", lambda s: {"etag": '"v1"'})
    builder.add_node("plan", lambda s: {"changes": {"priority": "high"}})
    builder.add_node("write", lambda s: {"outcome": "priority is high"})
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_edge("plan", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=saver, interrupt_before=["write"])


# The same graph without a saver, for `playground run --graph bench/engine_scale.py:graph` (the
# timeline chart's benchmark opens its thread on History).
graph = _graph(None)


def make_thread(path: Path, turns: int, progress=None, thread_id: str = "big") -> None:
    """Write ``turns`` two-turn conversations (5 checkpoints each) into one thread."""
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    graph = _graph(saver)
    config = {"configurable": {"thread_id": thread_id}}
    for turn in range(turns):
        graph.invoke({"ticket_id": "t7"}, config)
        graph.invoke(None, config)
        if progress and turn % 200 == 0:
            progress(turn, turns)
    conn.close()


def clone_to(path: Path, copies: int) -> int:
    """Append ``copies`` copies of thread 'big' as one long chain in thread 'huge'."""
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT type, checkpoint, metadata FROM checkpoints WHERE thread_id = 'big' "
        "ORDER BY checkpoint_id"
    ).fetchall()
    parent, n = None, 0
    with conn:
        for copy in range(copies):
            for type_, blob, metadata in rows:
                cid = f"1f000000-{copy:04d}-6000-8000-{n:012d}"
                conn.execute(
                    "INSERT INTO checkpoints VALUES ('huge', '', ?, ?, ?, ?, ?)",
                    (cid, parent, type_, blob, metadata),
                )
                parent, n = cid, n + 1
    # One huge transaction leaves a huge WAL; fold it into the file as SQLite's autocheckpoint
    # would have done along the way in a real app.
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return n


def _timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def _rss_of_tree_load(path: Path) -> tuple[int, float]:
    """Peak RSS (MB) of a fresh process that loads the 'huge' thread's tree.

    Read from /proc/self/status VmHWM, which belongs to the new process image: getrusage's
    ru_maxrss can carry a large parent's peak across fork and exec.
    """
    code = (
        "import re\n"
        "from pathlib import Path\n"
        "from playground.places.door import open_storage\n"
        "from playground.timetravel.tree import load_tree\n"
        f"tree = load_tree(open_storage({str(path)!r}), 'huge')\n"
        "peak = re.search(r'VmHWM:\\s+(\\d+) kB', Path('/proc/self/status').read_text())\n"
        "print(len(tree), peak.group(1))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, peak_kb = (int(x) for x in out.stdout.split())
    return count, peak_kb / 1024


BARE_HISTORY = """
import sqlite3, sys
from typing import TypedDict
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

class State(TypedDict, total=False):
    ticket_id: str

builder = StateGraph(State)
builder.add_node("read", lambda state: {})
builder.add_edge(START, "read")
builder.add_edge("read", END)
graph = builder.compile(checkpointer=SqliteSaver(sqlite3.connect(sys.argv[1])))
print(len(list(graph.get_state_history({"configurable": {"thread_id": "big"}}))))
"""


def _process_s(argv: list[str], repeat: int = 3) -> float:
    """Best wall time of a whole process, output thrown away."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - started)
    return best


def run(turns: int = 2000) -> dict:
    """Build the threads, time tree/sizes vs get_state_history, measure memory."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite"

        def progress(done: int, total: int) -> None:
            print(f"\r  writing thread: {done}/{total} turns", end="", file=sys.stderr, flush=True)

        make_thread(path, turns, progress)
        print(file=sys.stderr)
        saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
        graph = _graph(saver)
        config = {"configurable": {"thread_id": "big"}}
        source = open_storage(path)
        checkpoints = len(source.records("big"))

        # Best of several runs on both sides: the least disturbed measure of each.
        history_s = _timed(lambda: list(graph.get_state_history(config)), repeat=3)
        tree_s = _timed(lambda: load_tree(source, "big"), repeat=5)
        sizes_s = _timed(lambda: size_report("big", source.records("big")), repeat=5)
        source.close()
        saver.conn.close()
        cli_s = _process_s([sys.executable, "-m", "playground.cli", "history", str(path),
                            "--thread", "big", "--json"])
        bare_s = _process_s([sys.executable, "-c", BARE_HISTORY, str(path)])

        clone_to(path, 10)
        huge, rss_mb = _rss_of_tree_load(path)
    return {
        "rows": [
            {
                "name": f"checkpoint tree of a {checkpoints:,}-checkpoint thread",
                "ours": f"{tree_s * 1000:.0f} ms",
                "baseline_value": f"{history_s * 1000:.0f} ms",
                "baseline": "get_state_history, same file",
                "ratio": round(tree_s / history_s, 3),
                "goal": "<= 0.1x",
            },
            {
                "name": f"sizes of a {checkpoints:,}-checkpoint thread (SQL aggregates)",
                "ours": f"{sizes_s * 1000:.1f} ms",
                "baseline_value": f"{history_s * 1000:.0f} ms",
                "baseline": "get_state_history, same file",
                "ratio": round(sizes_s / history_s, 4),
                "goal": "<= 0.05x",
            },
            {
                "name": f"playground history --json on the {checkpoints:,}-checkpoint thread, "
                        "whole process",
                "ours": f"{cli_s * 1000:.0f} ms",
                "baseline_value": f"{bare_s * 1000:.0f} ms",
                "baseline": "a bare script: one-node graph, list(get_state_history), same file",
                "ratio": round(cli_s / bare_s, 2),
                "goal": "<= 0.3x",
            },
            {
                "name": f"peak RSS loading the tree of a {huge:,}-checkpoint thread",
                "ours": f"{rss_mb:.0f} MB",
                "baseline_value": "200 MB",
                "baseline": "the goal's budget",
                "ratio": round(rss_mb / 200, 2),
                "goal": "< 200 MB",
            },
        ]
    }


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
