"""What the stand-in model answers: the rules that take the place of an LLM's judgement.

"email ana about the launch" makes it look Ana up, then write to her; a tool's result is
summed up in one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from playground.standin import text_of

_REQUEST = re.compile(r"\b(?:email|mail|write to)\s+(\w+)(?:\s+about\s+(.+))?", re.I)


def _request(messages: Sequence[BaseMessage]) -> tuple[str, str] | None:
    human = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
    found = _REQUEST.search(text_of(human))
    if not found:
        return None
    return found.group(1), (found.group(2) or "a quick hello").strip(" .?!")


def reply(messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage:
    """The assistant's next message for the conversation so far."""
    last = messages[-1] if messages else None
    turn = sum(isinstance(m, HumanMessage) for m in messages)
    request = _request(messages)
    if isinstance(last, ToolMessage):
        result = text_of(last)
        if last.name == "find_contact" and "@" in result and request:
            name, topic = request
            return AIMessage(content="", tool_calls=[{
                "name": "send_email", "id": f"call_send_{turn}", "type": "tool_call",
                "args": {"to": result, "subject": topic.capitalize(),
                         "body": f"Hi {name.capitalize()}, a short note about {topic}."}}])
        if last.name == "send_email" and "sent '" in result:
            # a reviewer's edit comes with a note first; the tool's own words end the result
            return AIMessage(content=f"Done: I {result[result.index('sent ') :]}.")
        return AIMessage(content=f"I did not send anything: {result}.")
    if request is None:
        return AIMessage(content="Tell me whom to email and about what, for example: "
                                 "email Ana about the launch.")
    return AIMessage(content="", tool_calls=[{
        "name": "find_contact", "args": {"name": request[0]}, "id": f"call_find_{turn}",
        "type": "tool_call"}])
