"""Running a user's graph through the playground against LangGraph run without it.

The sync examples (the support chat: a subgraph, a tool call and an answer; the research graph:
a Send fan-out into a subgraph, a loop) run the way the Run page runs every graph now:
``GraphRun`` through ``astream`` on the process's event loop, checkpointing to
``AsyncSqliteSaver``. The baseline is the sync path the page took before: the same steps read
from ``graph.stream`` on a ``SqliteSaver`` file. Goal: <= 1.05x.

An async graph (examples/react_agent: ``async def`` nodes, ``Runtime`` context, an async tool,
a chat model streamed token by token) runs through ``GraphRun`` with its token stream, as the
Run page shows it, against a bare ``astream`` of the same graph on the same async saver and
loop. Goal: <= 1.10x.

Both sides of a row alternate run by run, with the collector paused while a run is timed.

Also the Run page rerun on a chat whose head holds 1,000 messages against one with 10 (AppTest,
the script run only, no browser): goal within 2x.
"""

from __future__ import annotations

import gc
import os
import statistics
import tempfile
import time
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage

from bench.page_rerun import rerun_ms
from playground.apps.launch import AppChoice, load_app
from playground.event_loop import shared_loop
from playground.runtime.driven import DrivenGraph, RunSettings, driven
from playground.runtime.run import GraphRun, RunOutcome
from playground.savers import close_async_saver, open_async_saver, open_saver

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _inputs(name: str, i: int):
    if name == "support_chat":
        return {"messages": [HumanMessage(f"Where is my order A17? ({i})")]}
    return {"topic": f"checkpoints {i}"}


def _timed(work) -> float:
    """Seconds ``work()`` takes, with the collector paused (it would land on either side)."""
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started
    finally:
        gc.enable()


class _SyncRun(GraphRun):
    """The run the page made before the async path: the same steps, from ``graph.stream``."""

    def __iter__(self):
        config = {**self.config, "recursion_limit": self.recursion_limit}
        for mode, data in self.graph.graph.stream(self.payload, config,
                                                  stream_mode=["updates", "tasks"]):
            step = self._step((), mode, data)
            if step is not None:
                yield step
        self.outcome = RunOutcome("finished", message="finished")


def _row(name: str, ours: list[float], base: list[float], baseline: str, goal: str) -> dict:
    ours_ms = statistics.median(ours[5:]) * 1000
    base_ms = statistics.median(base[5:]) * 1000
    return {"name": name, "ours": f"{ours_ms:.2f} ms", "baseline_value": f"{base_ms:.2f} ms",
            "baseline": baseline, "ratio": round(ours_ms / base_ms, 3), "goal": goal}


def _sync_example(name: str, runs: int) -> dict:
    app = load_app(AppChoice(graph=f"{EXAMPLES}/{name}.py:graph"))
    loop = shared_loop()
    with tempfile.TemporaryDirectory() as tmp, \
            open_saver(Path(tmp) / "before.sqlite", app.serde()) as before_saver:
        saver = loop.run(open_async_saver(Path(tmp) / "ours.sqlite", app.serde()))
        ours, before = app.graph(saver), app.graph(before_saver)
        ours_times, before_times = [], []
        for i in range(runs):
            config = {"configurable": {"thread_id": f"t{i}"}}
            run = GraphRun(ours, config, _inputs(name, i))
            ours_times.append(_timed(lambda run=run: list(run)))
            assert run.outcome.status == "finished", run.outcome
            old = _SyncRun(before, config, _inputs(name, i))
            old.graph = DrivenGraph(before)  # .graph.graph is the compiled graph itself
            before_times.append(_timed(lambda old=old: list(old)))
        loop.run(close_async_saver(saver))
    return _row(f"{name} run on the async path (GraphRun, astream, AsyncSqliteSaver), median",
                ours_times, before_times,
                "the sync path of before: the same steps from graph.stream on SqliteSaver",
                "<= 1.05x")


def _async_example(runs: int) -> list[dict]:
    config_file = EXAMPLES / "react_agent" / "langgraph.json"
    app = load_app(AppChoice(config=str(config_file)))
    loop = shared_loop()
    settings = RunSettings(context={"model": "stand-in/thorough"})
    modes = ["updates", "tasks", "messages"]  # what the Run page streams for a chat
    with tempfile.TemporaryDirectory() as tmp:
        saver = loop.run(open_async_saver(Path(tmp) / "ours.sqlite", app.serde()))
        graph = app.graph(saver)
        ours = driven(graph, settings)

        async def bare(i: int, tag: str, **kwargs) -> None:
            async for _chunk in graph.astream(
                    {"messages": [HumanMessage(f"Where can I park? ({i})")]},
                    {"configurable": {"thread_id": f"{tag}{i}"}}, context=settings.context,
                    **kwargs):
                pass

        ours_times, same_modes, default_mode = [], [], []
        for i in range(runs):
            run = GraphRun(ours, {"configurable": {"thread_id": f"o{i}"}},
                           {"messages": [HumanMessage(f"Where can I park? ({i})")]}, tokens=True)
            ours_times.append(_timed(lambda run=run: list(run)))
            assert run.outcome.status == "finished", run.outcome
            same_modes.append(_timed(lambda i=i: loop.run(bare(i, "m", stream_mode=modes))))
            default_mode.append(_timed(lambda i=i: loop.run(bare(i, "d"))))
        loop.run(close_async_saver(saver))
    name = ("async ReAct agent run through the playground (GraphRun with its token stream), "
            "median")
    return [
        _row(name, ours_times, same_modes, "bare astream of the same graph streaming the same "
             "modes (updates, tasks, messages), same AsyncSqliteSaver and loop", "<= 1.10x"),
        _row(name, ours_times, default_mode, "bare astream in its default mode (no token "
             "stream): the token stream's own cost in LangGraph included", "report"),
    ]


def _chat_thread(path: Path, thread_id: str, messages: int) -> None:
    """A chat thread whose head holds ``messages`` messages (pairs of question and answer)."""
    app = load_app(AppChoice(graph=f"{EXAMPLES}/support_chat.py:graph"))
    with open_saver(path, app.serde()) as saver:
        graph = app.graph(saver)
        config = {"configurable": {"thread_id": thread_id}}
        graph.invoke({"messages": [HumanMessage("Where is my order A17?")]}, config)
        history = []
        for i in range(max(messages - 4, 0) // 2):
            history += [HumanMessage(f"question {i}: where is order A{i % 90 + 10}?"),
                        AIMessage(f"answer {i}: order A{i % 90 + 10} has shipped.")]
        if history:
            graph.update_state(config, {"messages": history}, as_node="assistant")


def _chat_rerun() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chat.sqlite"
        saved = {k: os.environ.get(k) for k in ("PLAYGROUND_CHECKPOINTS", "PLAYGROUND_GRAPH",
                                                "PLAYGROUND_TICKETS_DB")}
        os.environ.update(PLAYGROUND_CHECKPOINTS=str(path),
                          PLAYGROUND_GRAPH=f"{EXAMPLES}/support_chat.py:graph",
                          PLAYGROUND_TICKETS_DB=str(Path(tmp) / "tickets.sqlite"))
        try:
            _chat_thread(path, "bench/small", 10)
            _chat_thread(path, "bench/big", 1000)
            small, big = rerun_ms("small", page=None), rerun_ms("big", page=None)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return {
        "name": "Run page rerun (AppTest), chat of 1,000 messages",
        "ours": f"{big:.0f} ms",
        "baseline_value": f"{small:.0f} ms",
        "baseline": "the same page on a chat of 10 messages",
        "ratio": round(big / small, 2),
        "goal": "<= 2x",
    }


def run(runs: int = 60) -> dict:
    """The run overhead on both sync examples and the async one, then the chat page rerun."""
    return {"rows": [_sync_example("support_chat", runs), _sync_example("research", runs),
                     *_async_example(runs), _chat_rerun()]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
