"""Write ``sample-app.sqlite``: a small SqliteSaver database for the Inspect page's demo.

It stands in for "the checkpoint file of some other LangGraph app": seven threads, each written
by a graph of a different shape, so the tree, the stepper and the inspector have something to
show without running the playground's agent first. ``chat/refund`` is the support chat of
``examples/support_chat.py`` (ToolNode, tools_condition, a triage subgraph): one order question,
then a refund paused at its ``interrupt()`` approval, and a fork made with ``update_state`` that
asks for another refund.

Run from the repository root::

    .venv/bin/python -m playground.samples.make_samples

The file is rewritten from scratch. ``random`` is seeded, so sizes repeat; checkpoint ids and
timestamps are new on every run.
"""

from __future__ import annotations

import operator
import random
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

OUT = Path(__file__).with_name("sample-app.sqlite")
ROOT = Path(__file__).resolve().parents[2]  # the repository: examples/ is not packaged


def _config(thread_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id}}


# -- support desk: read -> draft -> (pause for approval) -> send, one turn per customer message --


class DeskState(TypedDict, total=False):
    customer: str
    question: str
    order: dict
    draft: str
    sent: Annotated[list, operator.add]


_ORDERS = {
    "ana": {"id": "A-1001", "status": "shipped", "carrier": "parcelco"},
    "ben": {"id": "B-2002", "status": "packing", "carrier": None},
}


def desk_graph(saver: SqliteSaver):
    """A support agent that pauses before sending each reply, for a human to approve."""

    def read(state: DeskState) -> dict:
        return {"order": _ORDERS.get(state["customer"], {})}

    def draft(state: DeskState) -> dict:
        order = state.get("order") or {}
        return {"draft": f"Order {order.get('id', '?')} is {order.get('status', 'unknown')}."}

    def send(state: DeskState) -> dict:
        return {"sent": [state["draft"]]}

    builder = StateGraph(DeskState)
    builder.add_node("read", read)
    builder.add_node("draft", draft)
    builder.add_node("send", send)
    builder.add_edge(START, "read")
    builder.add_edge("read", "draft")
    builder.add_edge("draft", "send")
    builder.add_edge("send", END)
    return builder.compile(checkpointer=saver, interrupt_before=["send"])


def write_desk(saver: SqliteSaver) -> None:
    graph = desk_graph(saver)
    # A finished conversation of several turns: each turn pauses, then is approved.
    long = _config("support/ana")
    for question in ("where is my order?", "which carrier?", "any delay?", "thanks!"):
        graph.invoke({"customer": "ana", "question": question}, long)
        graph.invoke(None, long)
    # A thread left waiting for approval: its head is paused before ``send``.
    graph.invoke({"customer": "ben", "question": "can I change the address?"},
                 _config("support/ben"))
    # A thread someone time-travelled in: the paused draft was edited by hand and sent (a fork),
    # then the thread was replayed from the checkpoint after ``read`` (a second fork).
    forked = _config("support/ana-edited")
    graph.invoke({"customer": "ana", "question": "where is my order?"}, forked)
    paused = graph.get_state(forked).config
    graph.invoke(None, forked)
    edited = graph.update_state(paused, {"draft": "Order A-1001 arrives tomorrow."},
                                as_node="draft")
    graph.invoke(None, edited)
    after_read = next(s for s in graph.get_state_history(forked) if s.next == ("draft",))
    graph.invoke(None, after_read.config)


# -- retry loop: a node that routes back to itself until it succeeds --------------------------


class RetryState(TypedDict, total=False):
    attempts: int
    log: Annotated[list, operator.add]


def write_retry(saver: SqliteSaver) -> None:
    def call(state: RetryState) -> dict:
        attempt = state.get("attempts", 0) + 1
        return {"attempts": attempt, "log": [f"attempt {attempt}: " +
                                             ("ok" if attempt >= 4 else "timeout")]}

    def route(state: RetryState) -> str:
        return "call" if state["attempts"] < 4 else "report"

    builder = StateGraph(RetryState)
    builder.add_node("call", call)
    builder.add_node("report", lambda state: {"log": ["reported"]})
    builder.add_edge(START, "call")
    builder.add_conditional_edges("call", route, ["call", "report"])
    builder.add_edge("report", END)
    builder.compile(checkpointer=saver).invoke({"attempts": 0}, _config("jobs/retry-loop"))


# -- research: two searches in parallel, joined by a summary -----------------------------------


class ResearchState(TypedDict, total=False):
    topic: str
    findings: Annotated[list, operator.add]
    summary: str


def write_research(saver: SqliteSaver) -> None:
    builder = StateGraph(ResearchState)
    builder.add_node("web", lambda s: {"findings": [f"web: 3 pages on {s['topic']}"]})
    builder.add_node("docs", lambda s: {"findings": [f"docs: 2 sections on {s['topic']}"]})
    builder.add_node("summarize", lambda s: {"summary": "; ".join(sorted(s["findings"]))})
    builder.add_edge(START, "web")
    builder.add_edge(START, "docs")
    builder.add_edge(["web", "docs"], "summarize")
    builder.add_edge("summarize", END)
    builder.compile(checkpointer=saver).invoke({"topic": "checkpoints"},
                                               _config("research/fan-out"))


# -- a parent graph whose node is a subgraph: its checkpoints live under another namespace ------


class OuterState(TypedDict, total=False):
    text: str
    reviewed: bool


class InnerState(TypedDict, total=False):
    text: str


def write_nested(saver: SqliteSaver) -> None:
    inner = StateGraph(InnerState)
    inner.add_node("clean", lambda s: {"text": s["text"].strip()})
    inner.add_node("translate", lambda s: {"text": f"[fr] {s['text']}"})
    inner.add_edge(START, "clean")
    inner.add_edge("clean", "translate")
    inner.add_edge("translate", END)

    builder = StateGraph(OuterState)
    builder.add_node("localize", inner.compile())
    builder.add_node("review", lambda s: {"reviewed": True})
    builder.add_edge(START, "localize")
    builder.add_edge("localize", "review")
    builder.add_edge("review", END)
    graph = builder.compile(checkpointer=saver, interrupt_before=["review"])
    config = _config("docs/subgraph")
    graph.invoke({"text": "  your order has shipped  "}, config)
    graph.invoke(None, config)


def write_support_chat(saver: SqliteSaver) -> None:
    """A chat with tool calls, a subgraph, a paused approval and an edited fork."""
    sys.path.insert(0, str(ROOT))
    from langchain_core.messages import HumanMessage

    from examples.support_chat import build_graph

    graph = build_graph(saver)
    config = _config("chat/refund")
    graph.invoke({"messages": [HumanMessage("Where is my order A17?", id="h1")]}, config)
    answered = graph.get_state(config).config
    graph.invoke({"messages": [HumanMessage("Please refund A17", id="h2")]}, config)
    # The fork: back at the end of the first answer, the customer asks about another order.
    forked = graph.update_state(
        answered, {"messages": [HumanMessage("Please refund B22", id="h2b")]}, as_node="triage")
    graph.invoke(None, forked)


def main(out: Path = OUT) -> int:
    """Write the sample database to ``out`` and print what it holds."""
    out.unlink(missing_ok=True)
    random.seed(7)  # channel versions carry random digits: seeded, the sizes repeat
    conn = sqlite3.connect(out, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        for write in (write_desk, write_retry, write_research, write_nested, write_support_chat):
            write(saver)
        # One self-contained file: no -wal beside it, and opening it read-only creates none.
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
        threads = conn.execute(
            "SELECT thread_id, count(*), count(DISTINCT checkpoint_ns) FROM checkpoints "
            "GROUP BY thread_id ORDER BY thread_id"
        ).fetchall()
    finally:
        conn.close()
    for thread_id, checkpoints, namespaces in threads:
        print(f"{thread_id}: {checkpoints} checkpoints, {namespaces} namespace(s)")
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
