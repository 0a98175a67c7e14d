"""The stand-in chat model: replies from rules, streamed token by token like a real model."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

from playground.standin import StandInChatModel


@tool
def lookup(order_id: str) -> str:
    """Look an order up."""
    return order_id


def _rules(messages, tools):
    if "lookup" in tools and "order" in messages[-1].content:
        return AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"order_id": "A1"},
                                                  "id": "c1", "type": "tool_call"}])
    return AIMessage(content="Hello there, friend.")


def test_invoke_answers_from_the_rules_and_names_the_model():
    reply = StandInChatModel(rules=_rules, model_name="stand-in/x").invoke([HumanMessage("hi")])

    assert reply.content == "Hello there, friend."
    assert reply.response_metadata["model_name"] == "stand-in/x"


def test_stream_yields_words_and_spaces_then_the_end():
    chunks = list(StandInChatModel(rules=_rules).stream([HumanMessage("hi")]))

    assert [c.content for c in chunks] == ["Hello", " ", "there,", " ", "friend.", ""]
    assert chunks[-1].chunk_position == "last"


def test_bound_tools_reach_the_rules_and_a_tool_call_streams_as_one_chunk():
    model = StandInChatModel(rules=_rules).bind_tools([lookup])

    chunks = list(model.stream([HumanMessage("where is my order")]))
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk

    assert merged.tool_calls == [{"name": "lookup", "args": {"order_id": "A1"}, "id": "c1",
                                  "type": "tool_call"}]


def test_the_same_conversation_gets_the_same_message_id_in_every_process():
    model = StandInChatModel(rules=_rules)
    script = ("from langchain_core.messages import AIMessage, HumanMessage\n"
              "from playground.standin import StandInChatModel\n"
              "reply = AIMessage(content='Hello there, friend.')\n"
              "m = StandInChatModel(rules=lambda ms, ts: reply)\n"
              "print(m.invoke([HumanMessage('hi')]).id)\n")

    here = model.invoke([HumanMessage("hi")]).id
    again = asyncio.run(model.ainvoke([HumanMessage("hi")])).id
    elsewhere = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               check=True, env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout

    assert here == again == elsewhere.strip()
