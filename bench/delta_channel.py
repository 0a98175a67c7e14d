"""A long chat on LangGraph 1.2's DeltaChannel: what the engine's rebuild costs against LangGraph.

One chat of :data:`TURNS` turns (a question and the stand-in model's reply each), written by
the real savers twice: with ``messages`` on ``DeltaChannel(_messages_delta_reducer,
snapshot_frequency=100)`` and with the classic ``add_messages``, which stores the whole list in
every checkpoint. In the same run, on SQLite and (where a server is configured) Postgres:

- the head's values: the engine's rebuild (``Storage.values``: the parent walk, the writes since
  the snapshot, LangGraph's messages reducer applied to decoded messages) against LangGraph's
  own ``get_state`` on the same database;
- History opening the thread (the tree and the head's values, as the page reads them first) on
  the DeltaChannel chat against the same chat stored whole;
- the bytes each stores.
"""

from __future__ import annotations

import gc
import sqlite3
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer, add_messages

from playground.places.door import open_place
from playground.serde import graph_serde
from playground.timetravel.tree import ValuesCache, load_tree

TURNS = 1000
SNAPSHOT_EVERY = 100
THREAD = "long-chat"


class DeltaChat(TypedDict):
    messages: Annotated[list, DeltaChannel(_messages_delta_reducer,
                                           snapshot_frequency=SNAPSHOT_EVERY)]


class WholeChat(TypedDict):
    messages: Annotated[list, add_messages]


def _reply(state: dict) -> dict:
    # a deterministic stand-in for a model: the reply names the question it answers
    return {"messages": [AIMessage(f"noted: {state['messages'][-1].content}",
                                   id=f"a{len(state['messages'])}")]}


def _graph(state: type, saver):
    builder = StateGraph(state)
    builder.add_node("reply", _reply)
    builder.add_edge(START, "reply")
    builder.add_edge("reply", END)
    return builder.compile(checkpointer=saver)


def _write_chat(graph, turns: int) -> None:
    config = {"configurable": {"thread_id": THREAD}}
    for turn in range(turns):
        graph.invoke({"messages": [HumanMessage(f"question {turn}", id=f"q{turn}")]}, config)


def _best(fn: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def _in_turns(ours: Callable[[], object], theirs: Callable[[], object], repeat: int = 5
              ) -> tuple[float, float]:
    """Best time of each, taken in turns so a busy moment hits both alike."""
    ours_s = theirs_s = float("inf")
    for _ in range(repeat):
        ours_s = min(ours_s, _best(ours, 1))
        theirs_s = min(theirs_s, _best(theirs, 1))
    return ours_s, theirs_s


def _history_open(target: object) -> Callable[[], object]:
    def open_thread() -> object:
        with closing(open_place(target).reads()) as reads:
            tree = load_tree(reads, THREAD)
            return ValuesCache().get(reads, tree, tree.head)
    return open_thread


def _head_values(target: object) -> Callable[[], object]:
    def rebuild() -> object:
        with closing(open_place(target).reads()) as reads:
            head = load_tree(reads, THREAD).head
        with closing(open_place(target).reads()) as reads:
            started = time.perf_counter()
            reads.values(THREAD, head)
            return time.perf_counter() - started
    return rebuild


def _sqlite_bytes(path: Path) -> int:
    with closing(sqlite3.connect(path)) as conn:
        blobs = conn.execute("SELECT coalesce(sum(length(checkpoint) + length(metadata)), 0) "
                             "FROM checkpoints").fetchone()[0]
        writes = conn.execute("SELECT coalesce(sum(length(value)), 0) FROM writes").fetchone()[0]
    return blobs + writes


def _postgres_bytes(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        return sum(conn.execute(sql).fetchone()[0] or 0 for sql in (
            "SELECT sum(octet_length(checkpoint::text) + octet_length(metadata::text)) "
            "FROM checkpoints",
            "SELECT sum(octet_length(blob)) FROM checkpoint_blobs",
            "SELECT sum(octet_length(blob)) FROM checkpoint_writes"))


def _rows(kind: str, delta_target: object, whole_target: object, stored: tuple[int, int],
          get_state: Callable[[], object]) -> list[dict]:
    # ours: the rebuild alone, timed inside a fresh read (as a page's first look at the head)
    ours = float("inf")
    theirs = float("inf")
    rebuild = _head_values(delta_target)
    for _ in range(5):
        gc.collect()
        ours = min(ours, rebuild())
        theirs = min(theirs, _best(get_state, 1))
    history_delta, history_whole = _in_turns(_history_open(delta_target),
                                             _history_open(whole_target))
    return [
        {"name": f"{kind}: head values of a {TURNS:,}-turn DeltaChannel chat (snapshot every "
                 f"{SNAPSHOT_EVERY}), rebuilt by the engine",
         "ours": f"{ours * 1000:.0f} ms", "baseline_value": f"{theirs * 1000:.0f} ms",
         "baseline": "LangGraph's get_state on the same database",
         "ratio": round(ours / theirs, 2), "goal": "<= 1.5x"},
        {"name": f"{kind}: History opens the DeltaChannel chat (tree and head values); "
                 f"stored {stored[0] / 1e6:,.1f} MB",
         "ours": f"{history_delta * 1000:.0f} ms",
         "baseline_value": f"{history_whole * 1000:.0f} ms",
         "baseline": f"the same chat with add_messages, stored {stored[1] / 1e6:,.1f} MB",
         "ratio": round(history_delta / history_whole, 2), "goal": "<= 1.2x"},
    ]


def _sqlite(folder: Path, turns: int) -> list[dict]:
    paths = {}
    graphs = {}
    for name, state in (("delta", DeltaChat), ("whole", WholeChat)):
        paths[name] = folder / f"{name}.sqlite"
        conn = sqlite3.connect(paths[name], check_same_thread=False)
        graphs[name] = _graph(state, SqliteSaver(conn, serde=graph_serde()))
        _write_chat(graphs[name], turns)
    config = {"configurable": {"thread_id": THREAD}}
    return _rows("SQLite", str(paths["delta"]), str(paths["whole"]),
                 (_sqlite_bytes(paths["delta"]), _sqlite_bytes(paths["whole"])),
                 lambda: graphs["delta"].get_state(config))


def _postgres(turns: int) -> list[dict]:
    from bench import fresh_databases

    made = fresh_databases(("bench_delta_chat", "bench_whole_chat"))
    if made is None:
        return []
    delta_url, whole_url = made
    graphs = {}
    savers = []
    try:
        for name, state, target in (("delta", DeltaChat, delta_url),
                                    ("whole", WholeChat, whole_url)):
            saver_cm = open_place(target).saver(graph_serde())
            savers.append(saver_cm)
            graphs[name] = _graph(state, saver_cm.__enter__())
            _write_chat(graphs[name], turns)
        config = {"configurable": {"thread_id": THREAD}}
        return _rows("Postgres", delta_url, whole_url,
                     (_postgres_bytes(delta_url), _postgres_bytes(whole_url)),
                     lambda: graphs["delta"].get_state(config))
    finally:
        for saver_cm in savers:
            saver_cm.__exit__(None, None, None)


def run(turns: int = TURNS) -> dict:
    """The rows: SQLite, then Postgres where a server is configured."""
    with tempfile.TemporaryDirectory() as tmp:
        return {"rows": [*_sqlite(Path(tmp), turns), *_postgres(turns)]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
