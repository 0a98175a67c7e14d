"""A chat app whose conversation lives on LangGraph 1.2's DeltaChannel with a reducer of its own.

Each turn writes one *exchange* (``{"asked": HumanMessage, "answered": AIMessage}``) and the
app's reducer, :func:`recent_exchanges`, keeps the messages of the last :data:`KEEP` exchanges:
a chat with a window of memory. Nothing but this file knows that reducer, so a place opened
alone shows the stored snapshot and the exchanges since; named with ``--graph`` (this file's
``graph``), the conversation the app sees.

Self-contained (LangGraph and langchain-core only), so a ``playground`` command, an MCP server
and a Streamlit server can each import it by path as a person's own graph file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

KEEP = 2  # exchanges the chat remembers
SNAPSHOT_EVERY = 3
QUESTIONS = ("hello", "where is my order?", "it was A17", "thanks")


def recent_exchanges(state: list, writes: Sequence[Any]) -> list:
    """The app's own reducer: each write is an exchange (or a list of them), whose question and
    answer are appended; only the last :data:`KEEP` exchanges' messages are kept.

    Batching-invariant, as a DeltaChannel's reducer must be: the window of everything appended
    is the same whether the writes come one by one or together.
    """
    messages = list(state)
    for batch in writes:
        for exchange in batch if isinstance(batch, list) else [batch]:
            messages += [exchange["asked"], exchange["answered"]]
    return messages[-2 * KEEP:]


class ChatState(TypedDict, total=False):
    question: str
    messages: Annotated[list, DeltaChannel(recent_exchanges, snapshot_frequency=SNAPSHOT_EVERY)]


def respond(state: ChatState) -> dict:
    """Answer the question, remembering how many messages the window held."""
    question = state.get("question") or ""
    held = len(state.get("messages") or [])
    return {"messages": {
        "asked": HumanMessage(question, id=f"q-{question}"),
        "answered": AIMessage(f"echo: {question} (remembering {held})", id=f"a-{question}")}}


builder = StateGraph(ChatState)
builder.add_node("respond", respond)
builder.add_edge(START, "respond")
builder.add_edge("respond", END)
graph = builder.compile(name="exchange-chat")


def make_chat(saver: BaseCheckpointSaver, thread_id: str = "exchanges",
              turns: int = len(QUESTIONS)) -> Any:
    """A chat of ``turns`` questions on ``saver``, as a real run writes it; the graph."""
    app = graph.copy(update={"checkpointer": saver})
    config = {"configurable": {"thread_id": thread_id}}
    for turn in range(turns):
        app.invoke({"question": QUESTIONS[turn % len(QUESTIONS)]}, config)
    return app


def fork_chat(app: Any, thread_id: str = "exchanges", question: str = "never mind") -> str:
    """A second branch: the last turn asked again with another question, as History's fork
    does (``update_state`` on the turn's input checkpoint, then a run from the fork); the
    fork's checkpoint id."""
    config = {"configurable": {"thread_id": thread_id}}
    last_input = next(s for s in app.get_state_history(config) if s.metadata["source"] == "input")
    forked = app.update_state(last_input.config, {"question": question}, as_node="__start__")
    app.invoke(None, forked)
    return forked["configurable"]["checkpoint_id"]


def conversation_at(app: Any, thread_id: str, checkpoint_id: str | None = None) -> list[str]:
    """What LangGraph loads for the chat at a checkpoint (the head by default): each message's
    text, in order."""
    configurable = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    values = app.get_state({"configurable": configurable}).values
    return [message.content for message in values.get("messages") or []]
