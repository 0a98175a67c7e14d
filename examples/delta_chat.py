"""A long chat that keeps its state on LangGraph 1.2's DeltaChannel, with no model provider.

LangGraph stores a ``DeltaChannel``'s whole value only every ``snapshot_frequency`` updates;
every other checkpoint keeps just the step's writes, and LangGraph rebuilds the value from the
parent chain when it loads a checkpoint. That keeps a long chat's database from growing with the
square of its length. This app keeps two such channels:

- ``messages``, folded by LangGraph's own messages reducer (the chat form LangGraph's docs give);
- ``notes``, a running log folded by a reducer of the app's own, which only this file knows: a
  playground opened on the database alone shows its snapshot and writes; started with this
  graph, it shows the log the reducer makes.

Run it in the playground::

    .venv/bin/playground run --graph examples/delta_chat.py:graph
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

# Small on purpose, so a short session already shows snapshots and the chains between them.
SNAPSHOT_EVERY = 4


def numbered_notes(state: list, writes: Sequence[Any]) -> list:
    """The app's own reducer: every note written is kept, numbered in the order it came.

    Batching-invariant, as a DeltaChannel's reducer must be: folding two batches one after the
    other gives what folding them together gives.
    """
    notes = list(state)
    for batch in writes:
        for note in batch if isinstance(batch, list) else [batch]:
            notes.append(f"{len(notes) + 1}. {note}")
    return notes


@dataclass
class Context:
    """What a run may be told: the model to answer with."""

    model: str = "stand-in/echo"


class State(TypedDict, total=False):
    messages: Annotated[list, DeltaChannel(_messages_delta_reducer,
                                           snapshot_frequency=SNAPSHOT_EVERY)]
    notes: Annotated[list, DeltaChannel(numbered_notes, snapshot_frequency=SNAPSHOT_EVERY)]
    topic: str


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


class EchoChatModel(BaseChatModel):
    """A deterministic stand-in for a chat model (no provider, no key, no network): it
    answers by saying back the newest message and counting the conversation. Self-contained,
    so an Agent Server can serve this file with nothing of the playground installed."""

    model_name: str = "stand-in/echo"

    @property
    def _llm_type(self) -> str:
        return "stand-in"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        reply = AIMessage(f"You said {_text(messages[-1])!r}. I have {len(messages)} messages "
                          "of this chat.", id=f"reply-{len(messages)}",
                          response_metadata={"model_name": self.model_name})
        return ChatResult(generations=[ChatGeneration(message=reply)])


async def respond(state: State, runtime: Runtime[Context]) -> dict:
    """Answer the newest message with the stand-in model."""
    name = runtime.context.model if runtime.context else Context.model
    model = EchoChatModel(model_name=name)
    return {"messages": [await model.ainvoke(state["messages"])]}


async def take_note(state: State) -> dict:
    """Note what the turn was about, under the chat's topic."""
    topic = state.get("topic") or "general"
    return {"notes": [f"{topic}: {_text(state['messages'][-2])}"]}


builder = StateGraph(State, context_schema=Context)
builder.add_node("respond", respond)
builder.add_node("take_note", take_note)
builder.add_edge(START, "respond")
builder.add_edge("respond", "take_note")
builder.add_edge("take_note", END)
graph = builder.compile(name="Delta chat")
