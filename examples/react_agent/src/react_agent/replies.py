"""The stand-in model's rules: what an LLM would decide, written down.

A question makes it search the handbook; a search result becomes the answer. ``brief`` answers
with the first entry found, ``thorough`` with every entry, naming each topic.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from playground.standin import text_of


def replies_for(style: str):
    """The rules of one stand-in model (``brief`` or ``thorough``)."""

    def reply(messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage:
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            return AIMessage(content=_answer(text_of(last), style))
        if isinstance(last, HumanMessage) and "search_handbook" in tools:
            turn = sum(isinstance(m, HumanMessage) for m in messages)
            return AIMessage(content="", tool_calls=[{
                "name": "search_handbook", "args": {"query": text_of(last)},
                "id": f"call_search_{turn}", "type": "tool_call"}])
        return AIMessage(content="Ask me about the office: wifi, parking, hours, lunch...")

    return reply


def _answer(result: str, style: str) -> str:
    try:
        entries = ast.literal_eval(result)
    except (ValueError, SyntaxError):
        entries = []
    if not entries:
        return "The handbook says nothing about that."
    if style == "thorough":
        return "From the handbook: " + " ".join(
            f"({e['topic']}) {e['entry']}" for e in entries)
    return f"{entries[0]['entry']} (handbook: {entries[0]['topic']})"
