"""The stand-in model's rules: answer from the memories the system prompt lists."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from playground.standin import text_of


def reply(messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage:
    """Acknowledge what was kept or forgotten, or say what is known about the user."""
    system = next((text_of(m) for m in messages if isinstance(m, SystemMessage)), "")
    known = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    said = text_of(next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None))
    lowered = said.lower()
    if "forget" in lowered:
        return AIMessage(content="Done, I forgot that.")
    if "remember" in lowered or "my name is" in lowered:
        return AIMessage(content="Noted, I will remember that.")
    if "know about me" in lowered or "remember about me" in lowered:
        if not known:
            return AIMessage(content="I don't know anything about you yet.")
        return AIMessage(content="Here is what I know about you: " + "; ".join(known) + ".")
    name = next((fact.split(": ", 1)[1] for fact in known if fact.startswith("name: ")), None)
    return AIMessage(content=f"Hello{' ' + name if name else ''}! Tell me something to "
                             "remember, or ask what I know about you.")
