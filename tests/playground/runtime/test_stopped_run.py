"""A run a person stopped reads "stopped" everywhere (issue 51): a slow async graph on a real
SQLite file, stopped while a node runs, as the Run page's Stop stops it (the page leaves the
run's stream). The head then holds LangGraph's own record of a cancelled task, a
CancelledError under it; the thread list, its filters and count, MCP and the run's outcome say
stopped, never failed; Continue runs it on to its end."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from contextlib import closing

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from playground.event_loop import shared_loop
from playground.mcp.threads import get_thread
from playground.places.door import open_storage
from playground.runtime.run import GraphRun, outcome_of
from tests.playground.apps import user_graphs

THREAD = {"configurable": {"thread_id": "stopped-1"}}


def _graph(tmp_path, path):
    spec = importlib.util.spec_from_file_location("slow_async_stop",
                                                  user_graphs.write_slow_async(tmp_path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    async def saver():
        found = AsyncSqliteSaver(await aiosqlite.connect(path))
        await found.setup()
        return found

    return module.builder.compile(checkpointer=shared_loop().run(saver()))


def _stop_in_the_second_tick(graph) -> GraphRun:
    run = GraphRun(graph, THREAD, {"n": 0})
    steps = iter(run)
    for step in steps:
        if step.kind == "update":  # the first tick is done; the second one starts next
            assert next(steps).kind == "start"
            break
    steps.close()  # what Stop does: the page leaves the stream while tick runs
    return run


def _threads(path, *filters: str) -> list[dict]:
    shown = subprocess.run([sys.executable, "-m", "playground.cli", "threads", str(path),
                            "--json", *filters], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["threads"]


def test_a_stopped_run_reads_stopped_everywhere_and_continue_runs_it_on(tmp_path):
    path = tmp_path / "stopped.sqlite"
    graph = _graph(tmp_path, path)
    run = _stop_in_the_second_tick(graph)

    outcome = outcome_of(run.graph, THREAD)
    assert (outcome.status, outcome.next) == ("stopped", ("tick",))
    assert outcome.message == "stopped in tick: Continue runs it on"

    (row,) = _threads(path)
    assert (row["status"], row["said"]) == ("stopped", "stopped in tick: Continue runs it on")
    assert [r["thread_id"] for r in _threads(path, "--status", "stopped")] == ["stopped-1"]
    assert _threads(path, "--status", "failed") == []
    assert _threads(path, "--status", "paused") == []
    counted = subprocess.run([sys.executable, "-m", "playground.cli", "threads", str(path),
                              "--status", "stopped", "--count"], capture_output=True,
                             text=True, timeout=120)
    assert counted.stdout.split()[0] == "1", counted.stdout + counted.stderr
    with closing(open_storage(path)) as storage:
        found = get_thread(storage, thread_id="stopped-1", limit=5).data
    assert (found["status"], found["status_said"]) == ("stopped",
                                                       "stopped in tick: Continue runs it on")

    again = GraphRun(graph, THREAD, None)  # Continue
    list(again)
    assert again.outcome.status == "finished"
    assert run.graph.get_state(THREAD).values["n"] == 12
    (row,) = _threads(path)
    assert row["status"] == "finished"
