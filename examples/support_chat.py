"""A support chat that needs no model provider: the playground's example of a chat graph.

A rule-based chat model stands where an LLM would: it reads the conversation and answers with
text or with tool calls, so the graph is the real shape of a tool-calling agent (LangGraph's
prebuilt ``ToolNode`` and ``tools_condition``) without an API key or a network. The refund tool
asks a person for approval through ``interrupt()``, and a small triage subgraph tags each request
before the assistant answers.

Run it in the playground::

    .venv/bin/playground run --graph examples/support_chat.py:graph
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt

ORDERS = {
    "A17": {"status": "shipped", "carrier": "DHL", "total": 40.0},
    "B22": {"status": "processing", "carrier": None, "total": 12.5},
}
_ORDER = re.compile(r"\b([A-Z]\d{2})\b")
# Seconds between two streamed words, as a hosted model takes (0 by default: tests run fast;
# the Agent Server tests and the multitask lesson set it so a run lasts long enough to meet).
WORD_DELAY_ENV = "EXAMPLES_WORD_DELAY_S"


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order's status by its id (for example A17)."""
    order = ORDERS.get(order_id)
    if order is None:
        return f"no order {order_id}"
    carrier = f" with {order['carrier']}" if order["carrier"] else ""
    return f"order {order_id} is {order['status']}{carrier}, total ${order['total']:.2f}"


@tool
def refund(order_id: str, amount: float) -> str:
    """Refund an order, once a person has approved it."""
    answer = interrupt({"question": f"Approve a refund of ${amount:.2f} for order {order_id}?",
                        "order_id": order_id, "amount": amount})
    approved = answer if isinstance(answer, bool) else str(answer).strip().lower() in (
        "yes", "y", "approve", "approved", "ok", "true")
    if not approved:
        return f"refund of order {order_id} declined by the reviewer"
    return f"refunded ${amount:.2f} for order {order_id}"


TOOLS = [lookup_order, refund]


class SupportModel(BaseChatModel):
    """A chat model made of rules: tool calls for orders and refunds, text for the rest."""

    @property
    def _llm_type(self) -> str:
        return "support-rules"

    def bind_tools(self, tools: Any, **kwargs: Any) -> SupportModel:
        """Tools are known to the rules already; binding changes nothing."""
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        reply = self.reply(messages)
        reply.usage_metadata, reply.response_metadata = _usage(messages, reply), _MODEL_NAME
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _stream(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        """The reply word by word, as a provider streams tokens (a tool call in one chunk)."""
        reply = self.reply(messages)
        usage = _usage(messages, reply)  # reported with the last chunk, as providers do
        if reply.tool_calls:
            yield ChatGenerationChunk(message=AIMessageChunk(
                content="", usage_metadata=usage, response_metadata=_MODEL_NAME,
                tool_call_chunks=[{"name": call["name"], "args": json.dumps(call["args"]),
                                   "id": call["id"], "index": index}
                                  for index, call in enumerate(reply.tool_calls)]))
            return
        delay = float(os.environ.get(WORD_DELAY_ENV) or 0)
        words = re.findall(r"\S+\s*", str(reply.content))
        for index, word in enumerate(words):
            time.sleep(delay)
            last = index == len(words) - 1
            chunk = ChatGenerationChunk(message=AIMessageChunk(
                content=word, usage_metadata=usage if last else None,
                response_metadata=_MODEL_NAME if last else {}))
            if run_manager is not None:
                run_manager.on_llm_new_token(word, chunk=chunk)
            yield chunk

    @staticmethod
    def reply(messages: list[BaseMessage]) -> AIMessage:
        """The next assistant message for a conversation."""
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            return AIMessage(content=_after_tool(last))
        text = last.content if isinstance(last, HumanMessage) else ""
        text = text if isinstance(text, str) else " ".join(
            part.get("text", "") for part in text if isinstance(part, dict))
        found = _ORDER.search(text.upper())
        turn = sum(isinstance(m, HumanMessage) for m in messages)
        if found and "refund" in text.lower():
            order_id = found.group(1)
            amount = ORDERS.get(order_id, {}).get("total", 0.0)
            return AIMessage(content="", tool_calls=[{
                "name": "refund", "args": {"order_id": order_id, "amount": amount},
                "id": f"call_refund_{order_id}_{turn}", "type": "tool_call"}])
        if found:
            order_id = found.group(1)
            return AIMessage(content="", tool_calls=[{
                "name": "lookup_order", "args": {"order_id": order_id},
                "id": f"call_lookup_{order_id}_{turn}", "type": "tool_call"}])
        return AIMessage(content="I can look up an order or refund one: tell me its id, "
                                 "for example A17.")


_MODEL_NAME = {"model_name": "support-rules"}


def _usage(messages: list[BaseMessage], reply: AIMessage) -> dict:
    """What a provider would report: words stand in for tokens (the prompt, the reply, and a
    few per tool call), so the same conversation always costs the same."""
    read = sum(len(str(message.content).split()) for message in messages)
    wrote = len(str(reply.content).split()) + 8 * len(reply.tool_calls)
    return {"input_tokens": read, "output_tokens": wrote, "total_tokens": read + wrote}


def _after_tool(result: ToolMessage) -> str:
    text = str(result.content)
    if result.name == "lookup_order":
        if text.startswith("no order"):
            return f"I could not find that order ({text})."
        order_id, _, rest = text.removeprefix("order ").partition(" is ")
        return f"Your order {order_id} is {rest.split(',')[0]}."
    return text[0].upper() + text[1:] + "."


class SupportState(MessagesState):
    """The conversation, and the topic the triage subgraph gave the latest request."""

    topic: str


def _classify(state: SupportState) -> dict:
    last = state["messages"][-1] if state["messages"] else None
    text = str(getattr(last, "content", "")).lower()
    return {"topic": "refund" if "refund" in text else "order" if _ORDER.search(text.upper())
            else "other"}


def _build_triage():
    builder = StateGraph(SupportState)
    builder.add_node("classify", _classify)
    builder.add_edge(START, "classify")
    return builder.compile()


_MODEL = SupportModel().bind_tools(TOOLS)


def assistant(state: SupportState) -> dict:
    """Ask the chat model for the next message."""
    return {"messages": [_MODEL.invoke(state["messages"])]}


def build_graph(checkpointer: Any = None):
    """The support chat: triage (a subgraph) -> assistant <-> tools."""
    builder = StateGraph(SupportState)
    builder.add_node("triage", _build_triage())
    builder.add_node("assistant", assistant)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge(START, "triage")
    builder.add_edge("triage", "assistant")
    builder.add_conditional_edges("assistant", tools_condition)
    builder.add_edge("tools", "assistant")
    return builder.compile(checkpointer=checkpointer)


graph = build_graph()
