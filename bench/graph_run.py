"""Running a user's graph through the playground against the bare ``graph.stream`` of it.

Both sides run the same example graphs (the support chat: a subgraph, a tool call and an answer;
the research graph: a Send fan-out into a subgraph, a loop) on SqliteSaver files with the same
serializer. The playground's side is what the Run page does per run: ``GraphRun`` (updates and
tasks with subgraphs, each step turned into the page's lines) and the outcome it reads back.
The bare side is ``graph.stream(input, config)`` consumed to the end. Goal: <= 1.10x.

Also the Run page rerun on a chat whose head holds 1,000 messages against one with 10 (AppTest,
the script run only, no browser): goal within 2x.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage

from bench.page_rerun import rerun_ms
from playground.apps.launch import AppChoice, load_app
from playground.runtime.run import GraphRun
from playground.savers import open_sqlite_saver

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _inputs(name: str, i: int):
    if name == "support_chat":
        return {"messages": [HumanMessage(f"Where is my order A17? ({i})")]}
    return {"topic": f"checkpoints {i}"}


def _overhead(name: str, runs: int) -> dict:
    app = load_app(AppChoice(graph=f"{EXAMPLES}/{name}.py:graph"))
    with tempfile.TemporaryDirectory() as tmp, \
            open_sqlite_saver(Path(tmp) / "ours.sqlite", app.serde()) as ours_saver, \
            open_sqlite_saver(Path(tmp) / "bare.sqlite", app.serde()) as bare_saver:
        ours = app.graph(ours_saver)
        bare = app.template.copy(update={"checkpointer": bare_saver})
        ours_times, bare_times = [], []
        for i in range(runs):
            # Interleaved, each on a thread of its own, so drift hits both sides alike.
            config = {"configurable": {"thread_id": f"t{i}"}}
            started = time.perf_counter()
            run = GraphRun(ours, config, _inputs(name, i))
            for _step in run:
                pass
            assert run.outcome.status == "finished", run.outcome
            ours_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            for _chunk in bare.stream(_inputs(name, i), config):
                pass
            bare_times.append(time.perf_counter() - started)
    ours_ms = statistics.median(ours_times[3:]) * 1000
    bare_ms = statistics.median(bare_times[3:]) * 1000
    return {
        "name": f"{name} run through the playground (GraphRun + outcome), median",
        "ours": f"{ours_ms:.2f} ms",
        "baseline_value": f"{bare_ms:.2f} ms",
        "baseline": "bare graph.stream of the same graph, same saver and serializer",
        "ratio": round(ours_ms / bare_ms, 3),
        "goal": "<= 1.10x",
    }


def _chat_thread(path: Path, thread_id: str, messages: int) -> None:
    """A chat thread whose head holds ``messages`` messages (pairs of question and answer)."""
    app = load_app(AppChoice(graph=f"{EXAMPLES}/support_chat.py:graph"))
    with open_sqlite_saver(path, app.serde()) as saver:
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


def run(runs: int = 40) -> dict:
    """The run overhead on both examples, then the chat page rerun."""
    return {"rows": [_overhead("support_chat", runs), _overhead("research", runs),
                     _chat_rerun()]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
