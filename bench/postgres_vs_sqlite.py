"""The same work on PostgresSaver and on SqliteSaver, measured in the same run.

Rows: one agent conversation (turn 1 + resume) through the playground's agent, and the engine's
tree of a 1,000-checkpoint thread. The baseline is SQLite, the embedded default. Needs a Postgres
URL in PLAYGROUND_DATABASE_URL or PLAYGROUND_TEST_DATABASE_URL; without one the rows say so.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from bench import not_run
from bench.engine_scale import _graph
from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import resume, start_turn
from playground.places.door import open_storage
from playground.savers import open_saver
from playground.timetravel.tree import load_tree
from ticket_api.server import start_embedded


def _conversation_ms(saver, client: TicketClient, runs: int) -> float:
    graph = build_agent(client, saver)
    times = []
    for i in range(runs):
        thread = f"pvs-{uuid.uuid4().hex[:8]}-{i}"
        started = time.perf_counter()
        start_turn(graph, thread, "raise t7 to high")
        resume(graph, thread)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[3:])


def _tree_ms(target: str, thread: str, saver, turns: int = 200) -> float:
    graph = _graph(saver)
    config = {"configurable": {"thread_id": thread}}
    for _ in range(turns):  # 5 checkpoints a turn
        graph.invoke({"ticket_id": "t7"}, config)
        graph.invoke(None, config)
    source = open_storage(target)
    try:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            load_tree(source, thread)
            best = min(best, time.perf_counter() - started)
    finally:
        source.close()
    return best * 1000


def run(runs: int = 25) -> dict:
    """Time both rows on Postgres and on SQLite; ratio = Postgres / SQLite."""
    url = os.environ.get("PLAYGROUND_DATABASE_URL") or os.environ.get(
        "PLAYGROUND_TEST_DATABASE_URL"
    )
    if not url:
        return not_run("Postgres vs SQLite", "no Postgres URL set")
    results = {}
    with tempfile.TemporaryDirectory() as tmp, start_embedded(None) as api:
        client = TicketClient(api.url, tenant=f"pvs-{uuid.uuid4().hex[:6]}")
        for name, target in (("sqlite", str(Path(tmp) / "c.sqlite")), ("postgres", url)):
            with open_saver(target) as saver:
                thread = f"pvs-tree-{uuid.uuid4().hex[:8]}"
                results[name] = (_conversation_ms(saver, client, runs),
                                 _tree_ms(target, thread, saver))
                saver.delete_thread(thread)
        client.close()
    rows = []
    for index, label in ((0, "agent conversation (turn 1 + resume), median"),
                         (1, "tree of a 1,000-checkpoint thread")):
        pg, lite = results["postgres"][index], results["sqlite"][index]
        rows.append({"name": f"Postgres: {label}", "ours": f"{pg:.1f} ms",
                     "baseline_value": f"{lite:.1f} ms", "baseline": "the same on SQLite",
                     "ratio": round(pg / lite, 2), "goal": "report"})
    return {"rows": rows}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
