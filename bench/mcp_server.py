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

And what each answer weighs (issue 49): the bytes of each tool's JSON-RPC response, the line the
server writes on stdout, for a 17-checkpoint failed thread (:func:`failed_thread`: one answered
question, then four that failed), read over a raw pipe (:func:`answer_bytes`) as each kind of
client meets the server (its name and protocol version, :data:`CLIENTS`), against the bytes the
same calls took before issue 49 (:data:`BEFORE`, measured on the code of that day).

Run alone: ``python -m bench.mcp_server`` (``--bytes`` for the bytes alone).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
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
from playground.mcp.bounds import ANSWER_CAP
from playground.mcp.reads import PlaceReads

THREAD = "big"
WARM_CALLS = 9
FAILED = "failed-17"  # the thread whose answers are weighed
SEEDS = 8  # seed threads beside it (two of them failed too), so list_threads lists a few


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
    return {"rows": rows + bytes_rows()}


# -- what each answer weighs --------------------------------------------------------------


def failed_thread(saver, thread_id: str = FAILED) -> None:
    """A failed thread of 17 checkpoints, written by the support agent's real graph: one
    question answered (5 checkpoints), then four that each fail in the tool (3 each)."""
    from langchain_core.messages import HumanMessage

    from playground.testing.many_threads import support_graph

    graph = support_graph(saver)
    config = {"configurable": {"thread_id": thread_id},
              "metadata": {"user": "u7", "channel": "web"}}
    for question in ("Where is A10?", "Where is A19?", "Where is A29?", "Where is A39?",
                     "Where is A49?"):
        with contextlib.suppress(LookupError):  # an order ending in 9 is not found
            graph.invoke({"messages": [HumanMessage(question)]}, config)


def weighed_place(path: Path) -> None:
    """The place the answers are weighed on: :func:`failed_thread` and :data:`SEEDS` seeds."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from playground.testing.many_threads import run_seeds

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        run_seeds(saver, SEEDS)
        failed_thread(saver)
        stored = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?",
                              (FAILED,)).fetchone()[0]
        assert stored == 17, stored
    finally:
        conn.close()


# Each call weighed, by the name its row takes: (method, params).
CALLS = {
    "list_threads (status failed)": ("tools/call", {"name": "list_threads",
                                                    "arguments": {"status": "failed"}}),
    "list_threads (status failed, count=true)": ("tools/call", {
        "name": "list_threads", "arguments": {"status": "failed", "count": True}}),
    "get_thread": ("tools/call", {"name": "get_thread", "arguments": {"thread_id": FAILED}}),
    "get_checkpoint (head)": ("tools/call", {"name": "get_checkpoint",
                                             "arguments": {"thread_id": FAILED}}),
    "diff_checkpoints (head from its parent)": ("tools/call", {
        "name": "diff_checkpoints", "arguments": {"thread_id": FAILED}}),
    "get_conversation": ("tools/call", {"name": "get_conversation",
                                        "arguments": {"thread_id": FAILED}}),
    "get_timeline": ("tools/call", {"name": "get_timeline",
                                    "arguments": {"thread_id": FAILED}}),
    "thread:// resource": ("resources/read", {"uri": f"thread://{FAILED}"}),
}
# How a client meets the server: (clientInfo name, protocol version it asks for).
CLIENTS = {
    "a client of 2025-06-18 or later": ("raw-pipe", "2025-06-18"),
    "Claude Code": ("claude-code", "2025-11-25"),
    "VS Code": ("Visual Studio Code", "2025-11-25"),
    "Claude Desktop": ("claude-ai", "2025-06-18"),
    "a client of 2025-03-26": ("raw-pipe", "2025-03-26"),
}


def answer_bytes(path: Path, client: str, protocol: str,
                 calls: dict[str, tuple[str, dict]] | None = None) -> dict[str, dict]:
    """Each call's response, weighed as the server writes it: the bytes of its JSON-RPC line
    on stdout (``wire``), and of its facts (the structured content as compact JSON, or the
    JSON text block where there is none). A call answered with an error stops the bench with
    it (its bytes are not an answer's)."""
    calls = CALLS if calls is None else calls
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "playground.cli", "mcp", str(path)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=errors)
        found = {}
        try:
            _send(process, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": protocol, "capabilities": {},
                "clientInfo": {"name": client, "version": "0"}}})
            _reply(process, 0)
            _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            for n, (name, (method, params)) in enumerate(calls.items(), 1):
                _send(process, {"jsonrpc": "2.0", "id": n, "method": method, "params": params})
                line = _reply(process, n)
                message = json.loads(line)
                if "error" in message or message["result"].get("isError"):
                    errors.seek(0)
                    raise RuntimeError(f"{name} for {client} {protocol} answered an error: "
                                       f"{line[:400]!r}; the server said: "
                                       f"{errors.read()[-2_000:]!r}")
                found[name] = {"wire": len(line), "facts": _facts(message)}
        finally:
            process.stdin.close()
            process.wait(timeout=60)
    return found


def _send(process: subprocess.Popen, message: dict) -> None:
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def _reply(process: subprocess.Popen, id_: int) -> bytes:
    """The line answering request ``id_`` (notifications before it are skipped), without its
    newline."""
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"the server closed stdout before answering request {id_}")
        if json.loads(line).get("id") == id_:
            return line.rstrip(b"\n")


def _facts(message: dict) -> int:
    result = message.get("result", {})
    if "structuredContent" in result:
        return len(json.dumps(result["structuredContent"], separators=(",", ":"),
                              ensure_ascii=False).encode())
    if "contents" in result:  # a resource: its text
        return len(result["contents"][0].get("text", "").encode())
    texts = [block["text"] for block in result.get("content", []) if block["type"] == "text"]
    return len(texts[-1].encode()) if texts else 0


# The same calls' bytes on the wire before issue 49 (2026-12-07, on this machine, the code of
# that morning: every client got both copies, and the resource answered its 72 KB whole).
BEFORE = {
    "list_threads (status failed)": 2_541,
    "get_thread": 23_976,
    "get_checkpoint (head)": 9_074,
    "diff_checkpoints (head from its parent)": 1_165,
    "get_conversation": 6_143,
    "get_timeline": 14_448,
    "thread:// resource": 73_626,
}
# A count had no call of its own before: the page of failed threads was the only answer.
BEFORE["list_threads (status failed, count=true)"] = BEFORE["list_threads (status failed)"]
# The kinds of client whose bytes make rows of RESULTS.md (VS Code's are Claude Code's).
ROW_CLIENTS = ("a client of 2025-06-18 or later", "Claude Code", "a client of 2025-03-26")


def bytes_rows() -> list[dict]:
    """A row per call and kind of client: its bytes on the wire against :data:`BEFORE`."""
    table = bytes_table()
    return [{
        "name": f"{name}: bytes on the wire for {kind}, 17-checkpoint failed thread",
        "ours": f"{table[kind][name]['wire']:,} B",
        "baseline_value": f"{BEFORE[name]:,} B",
        "baseline": "the same call before issue 49" if "count" not in name else
                    "the page of failed threads before issue 49, the only count there was",
        "ratio": round(table[kind][name]["wire"] / BEFORE[name], 2),
        "goal": f"<= {ANSWER_CAP:,} B",
    } for kind in ROW_CLIENTS for name in CALLS]


def bytes_table() -> dict[str, dict[str, dict]]:
    """Every call weighed for every kind of client, on a place made for it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "weighed.sqlite"
        weighed_place(path)
        return {kind: answer_bytes(path, client, protocol)
                for kind, (client, protocol) in CLIENTS.items()}


if __name__ == "__main__" and sys.argv[1:] == ["--bytes"]:
    for kind, weighed in bytes_table().items():
        for name, figures in weighed.items():
            print(f"| {kind} | {name} | {figures['wire']:,} | {figures['facts']:,} |")
elif __name__ == "__main__":
    for row in run()["rows"]:
        print(f"| {row['name']} | {row['ours']} | {row['baseline_value']} ({row['baseline']}) "
              f"| {row['ratio']}x | {row['goal']} |")
