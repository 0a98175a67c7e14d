"""What reading and running through an Agent Server costs the playground, against langgraph-sdk
alone on the same server in the same run.

A real ``langgraph dev`` (from .venv-server, as the tests start it) serves examples/; its
words are streamed at 20 ms each (``EXAMPLES_WORD_DELAY_S``), as a hosted model streams. The
two tree rows are measured on a real Aegra 0.11 too (``aegra serve`` from .venv-aegra on a
PostgreSQL database of its own), where both are installed.

- **The tree of a 1,000-checkpoint thread** (``update_state`` 999 times after one run):
  ``load_tree`` through the server place, against a bare loop of the SDK's paged
  ``threads.get_history`` over the same thread (the least any client must do to draw it).
  Best of 5, the two sides in turns. Goal <= 1.2x.
- **A second open of the same thread** from the server's tree cache (one small
  ``threads.search`` to see the thread has not moved), against the same bare loop. Goal <= 0.1x.
- **A streamed chat run**: the playground's ``GraphRun`` on the server's graph (updates, tasks
  and messages, the Run page's modes), against ``runs.stream`` by the SDK alone with the same
  modes; first token and the whole run. Median of 7, in turns, each on a new thread.
  Goal <= 1.1x.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench import not_run
from playground.apps.server_app import server_apps
from playground.places.door import open_place
from playground.runtime.run import GraphRun
from playground.testing.agent_server import SKIP_REASON, agent_server_missing, langgraph_dev
from playground.timetravel.tree import TreeCache, load_tree

CHECKPOINTS = 1_000
ROUNDS = 6
RUNS = 7
ASK = {"messages": [{"role": "user", "content": "hello there"}]}
MODES = ["updates", "tasks", "messages-tuple"]


def _long_thread(sdk) -> str:
    thread = sdk.threads.create()["thread_id"]
    sdk.runs.wait(thread, "support_chat", input=ASK)
    made = len(sdk.threads.get_history(thread, limit=100))
    for index in range(CHECKPOINTS - made):
        sdk.threads.update_state(thread, {"topic": f"topic {index}"}, as_node="triage")
        if index % 200 == 0:
            print(f"    {made + index:,}/{CHECKPOINTS:,} checkpoints", file=sys.stderr,
                  flush=True)
    return thread


def _bare_history(sdk, thread: str) -> int:
    """The SDK's paged history, every page (what any client must read to draw the tree)."""
    entries, before = 0, None
    while True:
        page = sdk.threads.get_history(thread, limit=500, before=before)
        entries += len(page)
        if len(page) < 500:
            return entries
        # langgraph dev 0.16 reads ``before`` as a config (a bare checkpoint answers 500), and
        # so does Aegra 0.11
        before = {"configurable": {"checkpoint_id": page[-1]["checkpoint_id"]}}


def _tree_rows(server: str, url: str) -> list[dict]:
    """The tree of a 1,000-checkpoint thread on the server at ``url``, first and cached,
    against the bare paged history."""
    from playground.places.server_client import ServerClient

    sdk = ServerClient(url).sdk
    print(f"  a {CHECKPOINTS:,}-checkpoint thread on {server} ...", file=sys.stderr)
    thread = _long_thread(sdk)
    assert _bare_history(sdk, thread) == CHECKPOINTS
    # One place for the whole run, as the pages hold one (its client and connection kept);
    # each open is a new read of it, as each page run is.
    place = open_place(url)
    bare, ours = [], []
    for round_ in range(ROUNDS):
        # In turns, each side first every other round: a server's time for the same request
        # varies with what it answered just before (Aegra's by 0.2-0.4 s on 1,000 entries).
        sides = [(bare, lambda: _bare_history(sdk, thread)),
                 (ours, lambda: load_tree(place.reads(), thread))]
        for found, action in sides if round_ % 2 == 0 else reversed(sides):
            found.append(_timed(action))
    cache = TreeCache()
    cache.get(place.reads(), thread)
    cached = min(_timed(lambda: cache.get(place.reads(), thread)) for _ in range(ROUNDS))
    best_bare, best_ours = min(bare), min(ours)
    return [
        {"name": f"the tree of a {CHECKPOINTS:,}-checkpoint thread on {server}, read through "
                 "the server place",
         "ours": f"{best_ours * 1000:.0f} ms", "baseline_value": f"{best_bare * 1000:.0f} ms",
         "baseline": "a bare loop of the SDK's paged get_history over the same thread, same run",
         "ratio": round(best_ours / best_bare, 3), "goal": "<= 1.2x"},
        {"name": f"the same tree opened again on {server} (the tree cache: one "
                 "threads.search)",
         "ours": f"{cached * 1000:.1f} ms", "baseline_value": f"{best_bare * 1000:.0f} ms",
         "baseline": "the same bare get_history loop",
         "ratio": round(cached / best_bare, 3), "goal": "<= 0.1x"}]


def _aegra_rows() -> list[dict]:
    """The tree rows on Aegra, on a fresh database beside the bench's Postgres."""
    from bench import fresh_databases
    from playground.testing.agent_server import AEGRA_SKIP_REASON, aegra_missing, aegra_serve

    if aegra_missing():
        return not_run("the tree rows on Aegra 0.11", AEGRA_SKIP_REASON)["rows"]
    urls = fresh_databases(("bench_aegra",))
    if urls is None:
        return not_run("the tree rows on Aegra 0.11", "no PostgreSQL server answered")["rows"]
    with tempfile.TemporaryDirectory() as home, aegra_serve(Path(home), urls[0]) as url:
        return _tree_rows("Aegra 0.11", url)


def _timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _sdk_stream(sdk) -> tuple[float, float]:
    thread = sdk.threads.create()["thread_id"]
    started = time.perf_counter()
    first = None
    for part in sdk.runs.stream(thread, "support_chat", input=ASK, stream_mode=MODES):
        if first is None and part.event == "messages" and part.data[0].get("content"):
            first = time.perf_counter() - started
    return first or 0.0, time.perf_counter() - started


def _playground_stream(graph) -> tuple[float, float]:
    config = {"configurable": {"thread_id": f"bench/{uuid.uuid4().hex[:8]}"}}
    started = time.perf_counter()
    first = None
    for step in GraphRun(graph, config, ASK, tokens=True):
        if first is None and step.kind == "token" and step.text:
            first = time.perf_counter() - started
    return first or 0.0, time.perf_counter() - started


def run() -> dict:
    """The rows, on a langgraph dev of this run's own, then the tree rows on Aegra."""
    if agent_server_missing():
        return not_run("Agent Server reads and runs", SKIP_REASON)
    with tempfile.TemporaryDirectory() as home, \
            langgraph_dev(Path(home), env={"EXAMPLES_WORD_DELAY_S": "0.02"}) as url:
        rows = _tree_rows("langgraph dev", url)
        app = server_apps(url)["support_chat"]
        sdk = app.template.client.sdk
        print("  streamed runs, the playground and the SDK in turns ...", file=sys.stderr)
        sdk_runs, our_runs = [], []
        for _ in range(RUNS):
            sdk_runs.append(_sdk_stream(sdk))
            our_runs.append(_playground_stream(app.template))
    sdk_first = statistics.median(r[0] for r in sdk_runs)
    our_first = statistics.median(r[0] for r in our_runs)
    sdk_total = statistics.median(r[1] for r in sdk_runs)
    our_total = statistics.median(r[1] for r in our_runs)
    rows += [
        {"name": "a streamed chat run on the server, first token",
         "ours": f"{our_first * 1000:.0f} ms", "baseline_value": f"{sdk_first * 1000:.0f} ms",
         "baseline": "runs.stream by langgraph-sdk alone, same modes, same run",
         "ratio": round(our_first / sdk_first, 3), "goal": "<= 1.1x"},
        {"name": "a streamed chat run on the server, whole run",
         "ours": f"{our_total * 1000:.0f} ms", "baseline_value": f"{sdk_total * 1000:.0f} ms",
         "baseline": "runs.stream by langgraph-sdk alone, same modes, same run",
         "ratio": round(our_total / sdk_total, 3), "goal": "<= 1.1x"},
    ]
    return {"rows": rows + _aegra_rows()}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
