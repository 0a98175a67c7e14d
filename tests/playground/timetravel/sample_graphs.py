"""Small graphs with different shapes, and threads made with them, for the engine's tests.

Each ``make_*`` function writes one or more threads into a saver and returns the compiled graph,
so a test can compare what the engine reads from the database with what LangGraph itself says.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph


def config(thread_id: str, checkpoint_id: str | None = None) -> dict:
    """Config for a thread, or for one of its checkpoints."""
    configurable = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


class LoopState(TypedDict, total=False):
    count: int
    log: Annotated[list, operator.add]


def loop_graph(saver: BaseCheckpointSaver | None):
    """count up to a limit: ``bump`` loops on itself through a conditional edge."""

    def bump(state: LoopState) -> dict:
        return {"count": state.get("count", 0) + 1, "log": [f"bump {state.get('count', 0)}"]}

    def route(state: LoopState) -> str:
        return "bump" if state["count"] < 3 else "done"

    def done(state: LoopState) -> dict:
        return {"log": ["done"]}

    builder = StateGraph(LoopState)
    builder.add_node("bump", bump)
    builder.add_node("done", done)
    builder.add_edge(START, "bump")
    builder.add_conditional_edges("bump", route, ["bump", "done"])
    builder.add_edge("done", END)
    return builder.compile(checkpointer=saver)


def make_loop(saver: BaseCheckpointSaver, thread_id: str = "loop"):
    graph = loop_graph(saver)
    graph.invoke({"count": 0}, config(thread_id))
    return graph


class FanState(TypedDict, total=False):
    topic: str
    notes: Annotated[list, operator.add]
    summary: str


def fan_graph(saver: BaseCheckpointSaver | None):
    """Parallel branches: ``left`` and ``right`` run in one step, ``join`` waits for both."""

    def left(state: FanState) -> dict:
        return {"notes": [f"left on {state['topic']}"]}

    def right(state: FanState) -> dict:
        return {"notes": [f"right on {state['topic']}"]}

    def join(state: FanState) -> dict:
        return {"summary": " + ".join(sorted(state["notes"]))}

    builder = StateGraph(FanState)
    builder.add_node("left", left)
    builder.add_node("right", right)
    builder.add_node("join", join)
    builder.add_edge(START, "left")
    builder.add_edge(START, "right")
    builder.add_edge(["left", "right"], "join")
    builder.add_edge("join", END)
    return builder.compile(checkpointer=saver)


def make_fan(saver: BaseCheckpointSaver, thread_id: str = "fan"):
    graph = fan_graph(saver)
    graph.invoke({"topic": "tickets"}, config(thread_id))
    return graph


class InnerState(TypedDict, total=False):
    text: str


class OuterState(TypedDict, total=False):
    text: str
    done: bool


def nested_graph(saver: BaseCheckpointSaver | None):
    """A parent graph whose ``inner`` node is a compiled subgraph with two steps."""
    inner = StateGraph(InnerState)
    inner.add_node("shout", lambda s: {"text": s["text"].upper()})
    inner.add_node("mark", lambda s: {"text": s["text"] + "!"})
    inner.add_edge(START, "shout")
    inner.add_edge("shout", "mark")
    inner.add_edge("mark", END)

    builder = StateGraph(OuterState)
    builder.add_node("inner", inner.compile())
    builder.add_node("finish", lambda s: {"done": True})
    builder.add_edge(START, "inner")
    builder.add_edge("inner", "finish")
    builder.add_edge("finish", END)
    # interrupt inside the subgraph so its checkpoints are persisted under its own namespace
    return builder.compile(checkpointer=saver, interrupt_before=["finish"])


def make_nested(saver: BaseCheckpointSaver, thread_id: str = "nested"):
    graph = nested_graph(saver)
    graph.invoke({"text": "hi"}, config(thread_id))
    graph.invoke(None, config(thread_id))
    return graph


class PauseState(TypedDict, total=False):
    ticket: str
    priority: str
    note: str


def pause_graph(saver: BaseCheckpointSaver | None):
    """read -> plan -> (pause) -> write, like the ticket agent but with no API."""
    builder = StateGraph(PauseState)
    builder.add_node("read", lambda s: {"priority": "normal"})
    builder.add_node("plan", lambda s: {"note": f"raise {s['ticket']}"})
    builder.add_node("write", lambda s: {"priority": "high"})
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_edge("plan", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=saver, interrupt_before=["write"])


class Counter(TypedDict):
    count: int


def counting_chain(saver: BaseCheckpointSaver | None, nodes: tuple[str, ...] = ("read", "plan",
                   "write"), interrupt_before: tuple[str, ...] = ()):
    """``nodes`` in a chain from START to END, each adding one to ``count``, compiled to pause
    before ``interrupt_before``: the plainest steps a thread can have."""
    builder = StateGraph(Counter)
    for name in nodes:
        builder.add_node(name, lambda state: {"count": state["count"] + 1})
    for source, target in zip((START, *nodes), (*nodes, END), strict=True):
        builder.add_edge(source, target)
    return builder.compile(checkpointer=saver, interrupt_before=list(interrupt_before))


# The pause graph without a saver, for `playground run --graph sample_graphs.py:pause`.
pause = pause_graph(None)


def make_forked(saver: BaseCheckpointSaver, thread_id: str = "forked"):
    """A thread with an update_state fork and a replay fork beside its main line.

    Main line: run, pause, resume (finished). Then an edit of the paused checkpoint (update fork)
    that is resumed, and a replay from the checkpoint after ``read`` (replay fork).
    """
    graph = pause_graph(saver)
    graph.invoke({"ticket": "t7"}, config(thread_id))
    paused = graph.get_state(config(thread_id)).config
    graph.invoke(None, config(thread_id))
    edited = graph.update_state(paused, {"note": "edited by hand"}, as_node="plan")
    graph.invoke(None, edited)
    history = list(graph.get_state_history(config(thread_id)))
    after_read = next(s for s in reversed(history) if s.next == ("plan",))
    graph.invoke(None, after_read.config)
    return graph


def make_long(saver: BaseCheckpointSaver, thread_id: str = "long", turns: int = 20):
    """A linear thread of many short turns, to exercise collapsing of long runs."""
    graph = pause_graph(saver)
    for _ in range(turns):
        graph.invoke({"ticket": "t1"}, config(thread_id))
        graph.invoke(None, config(thread_id))
    return graph
