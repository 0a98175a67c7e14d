"""What reading a LangGraph.js file costs against the same thread written by Python.

Both files are made in the same run by the real libraries: LangGraph.js's SqliteSaver through
the fixture project (tests/fixtures/langgraphjs/make_long.mjs) and Python's SqliteSaver here,
with the same two graphs: a two-node counter invoked 2,500 times (10,000 checkpoints, small
values) and a 100-turn chat (300 checkpoints, the conversation growing two messages a turn).
JS rows are JSON with LangChain.js ``lc`` envelopes; Python's are msgpack with extension types.

- ``playground history --json`` on the 10,000-checkpoint thread, the whole process (best of
  3, the two sides in turns);
- every checkpoint of the chat thread decoded by the safe decoder (best of 7, in turns).

Goal: each within 1.1x of the Python file. Needs Node and the fixture project's packages
(``npm ci`` in tests/fixtures/langgraphjs; ``bash .ci/run`` installs both).
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

from bench.decode_cost import _best_of_both
from playground.timetravel.decode import decode_checkpoint

ROOT = Path(__file__).resolve().parents[1]
JS_PROJECT = ROOT / "tests" / "fixtures" / "langgraphjs"
LOOP_TURNS = 2500
CHAT_TURNS = 100
# The JS chat's canned answer (make_long.mjs), so both files hold the same conversation.
REPLY = ("Thanks for waiting. Your order left our warehouse this morning and is on its way; "
         "the carrier expects to deliver it within two working days. Anything else I can do?")


def _python_file(path: Path) -> None:
    """The same two threads, written by Python's SqliteSaver."""
    from typing import TypedDict

    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import START, MessagesState, StateGraph

    from playground.savers import open_saver

    class Counter(TypedDict, total=False):
        count: int
        note: str

    counter = StateGraph(Counter)
    counter.add_node("step", lambda state: {"count": state.get("count", 0) + 1,
                                            "note": "stepped"})
    counter.add_node("check", lambda state: {"note": "checked"})
    counter.add_edge(START, "step")
    counter.add_edge("step", "check")
    chat = StateGraph(MessagesState)
    chat.add_node("agent", lambda state: {"messages": [AIMessage(
        id=f"ai-{len(state['messages'])}", content=REPLY)]})
    chat.add_edge(START, "agent")
    with open_saver(path) as saver:
        graph = counter.compile(checkpointer=saver)
        for turn in range(LOOP_TURNS):
            graph.invoke({"count": turn}, {"configurable": {"thread_id": "loop"}})
        graph = chat.compile(checkpointer=saver)
        for turn in range(CHAT_TURNS):
            question = HumanMessage(id=f"user-{turn}", content=f"Where is order A{turn}?")
            graph.invoke({"messages": [question]}, {"configurable": {"thread_id": "chat"}})


def _history_json(path: Path) -> None:
    subprocess.run([sys.executable, "-m", "playground.cli", "history", str(path), "--thread",
                    "loop", "--json"], capture_output=True, check=True, cwd=ROOT)


def _decode_all(path: Path):
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        blobs = conn.execute("SELECT type, checkpoint FROM checkpoints WHERE thread_id = "
                             "'chat'").fetchall()

    def decode() -> None:
        for type_, blob in blobs:
            decode_checkpoint(type_, blob)

    return decode, sum(len(blob) for _, blob in blobs)


def _not_run(why: str) -> dict:
    return {"rows": [{"name": "LangGraph.js files against Python's", "ours": "not run",
                      "baseline_value": "-", "baseline": why, "ratio": "n/a",
                      "goal": "<= 1.1x"}]}


def run() -> dict:
    """history --json and the decode of a chat, a JS file against the Python twin."""
    if shutil.which("node") is None or not (JS_PROJECT / "node_modules").is_dir():
        return _not_run("Node or the fixture project's packages are missing (npm ci in "
                        "tests/fixtures/langgraphjs)")
    with tempfile.TemporaryDirectory() as tmp:
        js, py = Path(tmp) / "js.sqlite", Path(tmp) / "py.sqlite"
        print("  the same threads written by LangGraph.js and by Python ...", file=sys.stderr)
        subprocess.run(["node", "make_long.mjs", str(js), str(LOOP_TURNS), str(CHAT_TURNS)],
                       cwd=JS_PROJECT, check=True, capture_output=True)
        _python_file(py)
        py_s, js_s = _best_of_both(lambda: _history_json(py), lambda: _history_json(js), 3)
        (py_decode, py_bytes), (js_decode, js_bytes) = _decode_all(py), _decode_all(js)
        py_d, js_d = _best_of_both(py_decode, js_decode, 7)
    return {"rows": [
        {"name": f"playground history --json on a {LOOP_TURNS * 4:,}-checkpoint thread "
                 "written by LangGraph.js, whole process",
         "ours": f"{js_s * 1000:.0f} ms", "baseline_value": f"{py_s * 1000:.0f} ms",
         "baseline": "the same thread written by Python's SqliteSaver, same run",
         "ratio": round(js_s / py_s, 3), "goal": "<= 1.1x"},
        {"name": f"decode every checkpoint of a {CHAT_TURNS}-turn chat written by LangGraph.js "
                 f"({CHAT_TURNS * 3} blobs, {js_bytes / 1e6:.1f} MB of JSON)",
         "ours": f"{js_d * 1000:.1f} ms", "baseline_value": f"{py_d * 1000:.1f} ms",
         "baseline": f"the same chat written by Python ({py_bytes / 1e6:.1f} MB of msgpack), "
                     "same decoder, same run",
         "ratio": round(js_d / py_d, 3), "goal": "<= 1.1x"},
    ]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
