"""Graphs whose state lives on LangGraph 1.2's ``DeltaChannel``, and threads made with them.

Written the way LangGraph's docs give the chat form (``messages: Annotated[list,
DeltaChannel(_messages_delta_reducer)]``), with a deterministic stand-in model, so a test can
hold what the engine rebuilds from the rows against ``get_state_history`` on the same saver:

- :func:`chat_graph`: a support chat that trims itself with ``RemoveMessage`` once it grows;
- :func:`log_graph`: an audit log on a DeltaChannel with a reducer of the app's own;
- :func:`nested_graph`: a parent whose subgraph keeps its notes on a DeltaChannel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer

from playground.standin import StandInChatModel, text_of

# The question a user asks, turn by turn; the fifth makes the chat trim its oldest exchange.
QUESTIONS = ("hello", "where is my order?", "it was A17", "thanks", "one more thing")
KEEP_MESSAGES = 6  # past this many, the chat drops its oldest exchange (RemoveMessage)


def _echo(messages: Sequence[BaseMessage], _tools: Sequence[str]) -> AIMessage:
    return AIMessage(f"echo: {text_of(messages[-1])}")


def chat_graph(saver: BaseCheckpointSaver | None, snapshot_frequency: int = 3,
               keep: int = KEEP_MESSAGES):
    """A chat on LangGraph's delta messages reducer: ``respond`` answers with the stand-in
    model, then ``trim`` removes the oldest exchange once the chat passes ``keep``
    messages."""

    # The functional form: the class form's annotations are strings here (__future__), and a
    # local frequency would not resolve.
    ChatState = TypedDict("ChatState", {"messages": Annotated[list, DeltaChannel(  # noqa: UP013
        _messages_delta_reducer, snapshot_frequency=snapshot_frequency)]})

    model = StandInChatModel(rules=_echo)

    def respond(state: ChatState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def trim(state: ChatState) -> dict:
        messages = state["messages"]
        if len(messages) <= keep:
            return {}
        return {"messages": [RemoveMessage(id=m.id) for m in messages[:2]]}

    builder = StateGraph(ChatState)
    builder.add_node("respond", respond)
    builder.add_node("trim", trim)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", "trim")
    builder.add_edge("trim", END)
    return builder.compile(checkpointer=saver, name="delta-chat")


def make_chat(saver: BaseCheckpointSaver, thread_id: str = "chat",
              snapshot_frequency: int = 3, turns: int = len(QUESTIONS),
              keep: int = KEEP_MESSAGES):
    """A chat of ``turns`` questions (from the fourth on, trimmed with RemoveMessage to
    ``keep`` messages)."""
    graph = chat_graph(saver, snapshot_frequency, keep)
    config = {"configurable": {"thread_id": thread_id}}
    for turn in range(turns):
        question = QUESTIONS[turn % len(QUESTIONS)]
        graph.invoke({"messages": [HumanMessage(question, id=f"q{turn}")]}, config)
    return graph


def extend_log(state: list, writes: list) -> list:
    """The app's own batching-invariant reducer: each write is a list of entries, kept in
    order with its position stamped on."""
    out = list(state)
    for batch in writes:
        for entry in batch if isinstance(batch, list) else [batch]:
            out.append(f"{len(out)}:{entry}")
    return out


class LogState(TypedDict, total=False):
    log: Annotated[list, DeltaChannel(extend_log, snapshot_frequency=3)]
    n: int


def log_graph(saver: BaseCheckpointSaver | None):
    """An audit log on a DeltaChannel with :func:`extend_log`: ``record`` adds an entry per
    call."""

    def record(state: LogState) -> dict:
        n = state.get("n", 0)
        return {"log": [f"item-{n}"], "n": n + 1}

    builder = StateGraph(LogState)
    builder.add_node("record", record)
    builder.add_edge(START, "record")
    builder.add_edge("record", END)
    return builder.compile(checkpointer=saver, name="delta-log")


def make_log(saver: BaseCheckpointSaver, thread_id: str = "log", calls: int = 5):
    graph = log_graph(saver)
    config = {"configurable": {"thread_id": thread_id}}
    graph.invoke({"log": ["start"]}, config)
    for _ in range(calls - 1):
        graph.invoke({"log": []}, config)
    return graph


def fork_log(graph, thread_id: str = "log", at_step: int = 4) -> str:
    """Fork the log in the middle of its delta chain, as History's Fork with edit does
    (``update_state`` at an older checkpoint, then a run from the fork); the fork's id."""
    config = {"configurable": {"thread_id": thread_id}}
    older = next(s for s in graph.get_state_history(config) if s.metadata["step"] == at_step)
    forked = graph.update_state(older.config, {"log": ["edited"]})
    graph.invoke(None, forked)
    return forked["configurable"]["checkpoint_id"]


class NotesState(TypedDict, total=False):
    notes: Annotated[list, DeltaChannel(_messages_delta_reducer, snapshot_frequency=2)]


class OuterState(TypedDict, total=False):
    topic: str
    notes: Annotated[list, DeltaChannel(_messages_delta_reducer, snapshot_frequency=2)]


def nested_graph(saver: BaseCheckpointSaver | None):
    """A parent whose ``research`` subgraph writes notes (messages on a DeltaChannel) in two
    steps, then pauses before its second so its checkpoints stay stored under its namespace."""

    def draft(state: NotesState) -> dict:
        return {"notes": [AIMessage("draft", id="n-draft")]}

    def refine(state: NotesState) -> dict:
        return {"notes": [AIMessage(f"refined {len(state['notes'])}", id="n-refine")]}

    sub = StateGraph(NotesState)
    sub.add_node("draft", draft)
    sub.add_node("refine", refine)
    sub.add_edge(START, "draft")
    sub.add_edge("draft", "refine")
    sub.add_edge("refine", END)

    builder = StateGraph(OuterState)
    builder.add_node("research", sub.compile(interrupt_before=["refine"]))
    builder.add_edge(START, "research")
    builder.add_edge("research", END)
    return builder.compile(checkpointer=saver)


def make_nested(saver: BaseCheckpointSaver, thread_id: str = "nested") -> Any:
    graph = nested_graph(saver)
    config = {"configurable": {"thread_id": thread_id}}
    graph.invoke({"topic": "refunds", "notes": [HumanMessage("start", id="n0")]}, config)
    return graph
