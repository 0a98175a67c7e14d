"""Small graph files written into a test's folder, as a user's project would hold them."""

from __future__ import annotations

from pathlib import Path

FLAKY = '''\
"""A two-node graph whose second node fails until BROKEN is set to False."""
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

BROKEN = {broken}


class State(TypedDict, total=False):
    text: str
    result: str


def prepare(state: State) -> dict:
    return {{"text": state["text"].strip()}}


def shout(state: State) -> dict:
    if BROKEN:
        raise ValueError("shout is broken")
    return {{"result": state["text"].upper()}}


builder = StateGraph(State)
builder.add_node("prepare", prepare)
builder.add_node("shout", shout)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "shout")
builder.add_edge("shout", END)
graph = builder.compile()
'''

LOOP = '''\
from typing import TypedDict

from langgraph.graph import START, StateGraph


class State(TypedDict, total=False):
    n: int


builder = StateGraph(State)
builder.add_node("spin", lambda state: {"n": state.get("n", 0) + 1})
builder.add_edge(START, "spin")
builder.add_edge("spin", "spin")
graph = builder
'''


def write_flaky(folder: Path, broken: bool = True, name: str = "flaky.py") -> Path:
    """A graph file (compiled graph in ``graph``) whose node ``shout`` raises while broken."""
    path = folder / name
    path.write_text(FLAKY.format(broken=broken))
    return path


def write_loop(folder: Path) -> Path:
    """A graph file whose ``graph`` is an uncompiled StateGraph that loops forever."""
    path = folder / "loop.py"
    path.write_text(LOOP)
    return path

SLOW = '''\
import time
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    n: int


def tick(state: State) -> dict:
    time.sleep(0.4)
    return {"n": state.get("n", 0) + 1}


def again(state: State) -> str:
    return END if state.get("n", 0) >= 12 else "tick"


builder = StateGraph(State)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", again, ["tick", END])
graph = builder.compile()
'''


def write_slow(folder: Path) -> Path:
    """A graph file whose node ``tick`` takes 0.4 s and runs 12 times: a run to stop."""
    path = folder / "slow.py"
    path.write_text(SLOW)
    return path


ASYNC_FACTORIES = '''\
"""Graphs made the ways langgraph.json may name them: async factories and context managers."""
import contextlib
from typing import TypedDict

from langgraph.graph import START, StateGraph

events = []


class State(TypedDict, total=False):
    text: str


async def echo(state: State) -> dict:
    return {"text": state["text"] + "!"}


def _builder() -> StateGraph:
    builder = StateGraph(State)
    builder.add_node(echo)
    builder.add_edge(START, "echo")
    return builder


async def make_graph(config):
    events.append("made")
    return _builder().compile()


@contextlib.asynccontextmanager
async def with_resources():
    events.append("opened")
    try:
        yield _builder().compile()
    finally:
        events.append("closed")


@contextlib.contextmanager
def with_sync_resources():
    events.append("sync opened")
    yield _builder()
    events.append("sync closed")
'''


def write_async_factories(folder: Path) -> Path:
    """A file with an ``async def make_graph(config)``, an async and a sync context manager."""
    path = folder / "made_async.py"
    path.write_text(ASYNC_FACTORIES)
    return path


SLOW_ASYNC = '''\
import asyncio
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    n: int


async def tick(state: State) -> dict:
    await asyncio.sleep(0.4)
    return {"n": state.get("n", 0) + 1}


def again(state: State) -> str:
    return END if state.get("n", 0) >= 12 else "tick"


builder = StateGraph(State)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", again, ["tick", END])
graph = builder.compile()
'''


def write_slow_async(folder: Path) -> Path:
    """As :func:`write_slow`, with ``tick`` an ``async def`` that awaits 0.4 s."""
    path = folder / "slow_async.py"
    path.write_text(SLOW_ASYNC)
    return path


SUPPORT = '''\
"""A support agent wired as LangGraph's ReAct template wires one: call_model, tools, back.

The model is a deterministic stand-in: it looks the order up, then answers from the result.
REVIEW puts a review step between the model's tool calls and the tools (a routing change).
"""
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode

from playground.standin import StandInChatModel, text_of

REVIEW = {review}


@tool
def lookup_order(order_id: str) -> str:
    """Where an order is."""
    return f"{{order_id}} shipped on Monday"


def rules(messages, tools):
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(f"Your order: {{text_of(last)}}")
    order = text_of(last).split()[-1].strip("?")
    return AIMessage("", tool_calls=[{{"name": "lookup_order", "args": {{"order_id": order}},
                                      "id": f"call-{{order}}"}}])


model = StandInChatModel(rules=rules).bind_tools([lookup_order])


class State(TypedDict):
    messages: Annotated[list, add_messages]


def call_model(state: State) -> dict:
    return {{"messages": [model.invoke(state["messages"])]}}


def review(state: State) -> dict:
    return {{}}


def route(state: State) -> str:
    if not state["messages"][-1].tool_calls:
        return END
    return "review" if REVIEW else "tools"


builder = StateGraph(State)
builder.add_node("call_model", call_model)
builder.add_node("tools", ToolNode([lookup_order]))
builder.add_node("review", review)
builder.add_edge(START, "call_model")
builder.add_conditional_edges("call_model", route, ["review", "tools", END])
builder.add_edge("review", "tools")
builder.add_edge("tools", "call_model")
graph = builder.compile()
'''


def write_support(folder: Path, review: bool = False, name: str = "support_agent.py") -> Path:
    """A ReAct-style support agent on a stand-in model; ``review`` routes tool calls through
    a review node first (the change a re-run or an exported test should notice)."""
    path = folder / name
    path.write_text(SUPPORT.format(review=review))
    return path
