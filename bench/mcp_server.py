"""``playground mcp`` against the engine call each tool wraps, on a 10,000-checkpoint thread.

The thread is the engine benchmark's (a real graph on a SqliteSaver file, 2,000 two-turn
conversations: ``bench/engine_scale.py``). Two questions, each measured in the same run:

- a tool call, timed at the official ``mcp`` client over stdio (the server warm, its tree cache
  filled as an assistant's second call finds it), against the same engine call in this process
  (:mod:`playground.mcp`'s tool functions on the place's reads, with their own warm tree cache):
  what MCP adds, JSON and the pipe included; goal <= 1.3x, for ``get_thread`` and
  ``get_checkpoint``;
- a cold start: ``playground mcp`` started, initialized and answering its first ``get_thread``,
  against ``playground history --json`` on the same thread as a whole process; goal <= 1.5x.

Run alone: ``python -m bench.mcp_server``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.engine_scale import make_thread
from playground.mcp import checkpoints, threads
from playground.mcp.reads import PlaceReads

THREAD = "big"
WARM_CALLS = 9


def _median_ms(timings: list[float]) -> float:
    return statistics.median(timings) * 1000


def _server(path: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "playground.cli", "mcp", str(path)])


def _tool_ms(path: Path) -> dict[str, float]:
    """Median ms of each tool's warm call at the client (one server for all of them)."""
    found = {}
    with start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(Client(_server(path))) as client:
        for name, arguments in (("get_thread", {"thread_id": THREAD}),
                                ("get_checkpoint", {"thread_id": THREAD})):
            portal.call(client.call_tool, name, arguments)  # the tree read once, as at first
            timings = []
            for _ in range(WARM_CALLS):
                started = time.perf_counter()
                result = portal.call(client.call_tool, name, arguments)
                timings.append(time.perf_counter() - started)
                assert not result.is_error, result.content[0].text
            found[name] = _median_ms(timings)
    return found


def _engine_ms(path: Path) -> dict[str, float]:
    """Median ms of the engine calls the tools wrap, in this process, warm likewise."""
    reads = PlaceReads(str(path))
    found = {}
    try:
        for name, work in (("get_thread", lambda s: threads.get_thread(
                               s, thread_id=THREAD, limit=20, cursor=None, trees=reads.trees)),
                           ("get_checkpoint", lambda s: checkpoints.get_checkpoint(
                               s, thread_id=THREAD, checkpoint=None, trees=reads.trees))):
            reads.read(work)
            timings = []
            for _ in range(WARM_CALLS):
                started = time.perf_counter()
                reads.read(work)
                timings.append(time.perf_counter() - started)
            found[name] = _median_ms(timings)
    finally:
        reads.close()
    return found


def _cold_start_ms(path: Path) -> float:
    """Best of three: a server started, initialized, and its first get_thread answered."""
    best = float("inf")
    for _ in range(3):
        with start_blocking_portal() as portal:
            started = time.perf_counter()
            with portal.wrap_async_context_manager(Client(_server(path))) as client:
                result = portal.call(client.call_tool, "get_thread", {"thread_id": THREAD})
                best = min(best, time.perf_counter() - started)
                assert not result.is_error, result.content[0].text
    return best * 1000


def _history_ms(path: Path) -> float:
    """Best of three: ``playground history --json`` on the thread, the whole process."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "playground.cli", "history", str(path),
                        "--thread", THREAD, "--json"], stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def run(turns: int = 2000) -> dict:
    """Write the thread, then time each side; the rows for RESULTS.md."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite"

        def progress(done: int, total: int) -> None:
            print(f"\r  writing thread: {done}/{total} turns", end="", file=sys.stderr,
                  flush=True)

        make_thread(path, turns, progress)
        print(file=sys.stderr)
        # Each side twice, alternating, the lower median kept: the machine is shared.
        tool = _tool_ms(path)
        engine = _engine_ms(path)
        tool = {k: min(v, w) for (k, v), w in zip(tool.items(), _tool_ms(path).values(),
                                                  strict=True)}
        engine = {k: min(v, w) for (k, v), w in zip(engine.items(),
                                                    _engine_ms(path).values(), strict=True)}
        cold, history = _cold_start_ms(path), _history_ms(path)
    checkpoints_n = turns * 5
    rows = [{
        "name": f"{name} over MCP (stdio, official client) on a {checkpoints_n:,}-checkpoint "
                "thread, warm, median",
        "ours": f"{tool[name]:.1f} ms",
        "baseline_value": f"{engine[name]:.1f} ms",
        "baseline": "the engine call the tool wraps, in process, warm",
        "ratio": round(tool[name] / engine[name], 2),
        "goal": "<= 1.3x",
    } for name in ("get_thread", "get_checkpoint")]
    rows.append({
        "name": f"playground mcp started, initialized, first get_thread answered, "
                f"{checkpoints_n:,}-checkpoint thread",
        "ours": f"{cold:.0f} ms",
        "baseline_value": f"{history:.0f} ms",
        "baseline": "playground history --json on the same thread, whole process",
        "ratio": round(cold / history, 2),
        "goal": "<= 1.5x",
    })
    return {"rows": rows}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(f"| {row['name']} | {row['ours']} | {row['baseline_value']} ({row['baseline']}) "
              f"| {row['ratio']}x | {row['goal']} |")
