"""Chat messages found in safely decoded state, read as a conversation.

LangChain messages reach the engine as plain data from :mod:`decode`: ``{"__type__":
"langchain_core.messages.ai.AIMessage", "content": ..., "tool_calls": [...], ...}`` (msgpack), or
``"langchain.schema.messages.AIMessage"`` from an old json ``lc`` envelope. This module turns
such dicts into :class:`ChatMessage` records, pairs each tool result with the call it answers
(by ``tool_call_id``), and describes messages in one line each for diffs and the CLI. Pure:
nothing here imports LangChain.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.timetravel.decode import TYPE_KEY, is_unread, type_name

# Message classes and the role each stands for; chunks are the same roles, streamed.
_ROLES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "tool",
    "ChatMessage": "chat",
    "RemoveMessage": "remove",
}
_TYPE_ROLES = {"human": "human", "user": "human", "ai": "ai", "assistant": "ai",
               "system": "system", "tool": "tool", "function": "tool", "chat": "chat",
               "remove": "remove"}
_MESSAGE_MODULES = ("langchain_core.messages.", "langchain.schema.messages.")


@dataclass(frozen=True)
class ToolCall:
    """One tool call an AI message asked for."""

    id: str | None
    name: str
    args: Any

    @property
    def line(self) -> str:
        """``lookup_order(order_id='A17')``."""
        return f"{self.name}({format_args(self.args)})"


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation, as plain data.

    Attributes:
        role: ``human``, ``ai``, ``system``, ``tool``, ``chat`` or ``remove``.
        text: the message's text (text blocks joined; other blocks named in brackets).
        id: the message id (``add_messages`` replaces a message with the same id).
        name: the tool's name for a tool result, the speaker's for others, if stored.
        tool_calls: calls an AI message asked for.
        tool_call_id: for a tool result, the call it answers.
        status: a tool result's status (``error`` when the tool raised).
        raw: the decoded value it was read from.
    """

    role: str
    text: str
    id: str | None = None
    name: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    status: str | None = None
    raw: Any = field(default=None, compare=False, repr=False)

    def lines(self, limit: int = 160) -> list[str]:
        """The message in lines a person reads: its text, then one line per tool call."""
        lines = []
        if self.role == "tool":
            who = f"tool {self.name}" if self.name else "tool"
            lines.append(f"{who}: {_clip(self.text, limit)}")
        elif self.role == "remove":
            lines.append(f"remove message {self.id}")
        elif self.text or not self.tool_calls:
            lines.append(f"{self.role}: {_clip(self.text, limit)}")
        lines.extend(f"tool call {_clip(call.line, limit)}" for call in self.tool_calls)
        return lines

    def said(self) -> tuple:
        """What the message says: its role, text, name and tool calls (names and arguments),
        without the ids a new run gives it. Two runs that said the same have equal ones."""
        return (self.role, self.text, self.name,
                tuple((call.name, repr(call.args)) for call in self.tool_calls))


@dataclass(frozen=True)
class ChatTurn:
    """A message and, for an AI message that called tools, the results of those calls."""

    message: ChatMessage
    results: tuple[tuple[ToolCall, ChatMessage | None], ...] = ()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_args(args: Any) -> str:
    """Tool arguments as a person writes a call: ``order_id="A17", amount=40.0``."""
    if isinstance(args, Mapping):
        return ", ".join(f"{key}={_describe(value, 200)}" for key, value in args.items())
    return _describe(args, 200) if args not in (None, "") else ""


def literal(value: Any) -> str:
    """A plain scalar as a person reads it in JSON: ``"high"``, ``12``, ``true``, ``null``.

    A string that already carries its own double quotes and holds no other (an HTTP ETag,
    ``"v1"``) is shown as written, not quoted again as ``"\"v1\""``. Any other string holding
    a double quote is put in single quotes, as YAML writes one (``'priority is high at "v2"'``,
    a single quote in it doubled): a backslash before a quote is JSON's notation, for the JSON
    viewer, not for a person reading a line.
    """
    if isinstance(value, str):
        if len(value) >= 2 and value[0] == value[-1] == '"' and '"' not in value[1:-1]:
            return value
        if '"' in value:
            return "'" + value.replace("'", "''") + "'"
        return json.dumps(value, ensure_ascii=False)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return repr(value)  # a number reads the same in both


def _role(value: Mapping) -> str | None:
    claimed = type_name(value)
    if claimed is not None:
        module, _, cls = claimed.rpartition(".")
        if not (module + ".").startswith(_MESSAGE_MODULES):
            return None
        base = cls.removesuffix("Chunk")
        if base in _ROLES:
            return _ROLES[base]
    kind = value.get("type")
    if isinstance(kind, str):
        return _TYPE_ROLES.get(kind.removesuffix("Chunk").lower().removesuffix("message"))
    return None


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or a list of content blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else str(content)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping):
            kind = block.get("type")
            if kind == "text" or (kind is None and "text" in block):
                parts.append(str(block.get("text", "")))
            elif kind in ("tool_use", "tool_call"):
                parts.append(f"[{kind} {block.get('name', '')}]".replace(" ]", "]"))
            else:
                parts.append(f"[{kind or 'block'}]")
    return "\n".join(part for part in parts if part)


def _tool_calls(value: Mapping) -> tuple[ToolCall, ...]:
    calls = value.get("tool_calls")
    if not isinstance(calls, list):
        return ()
    found = []
    for call in calls:
        if isinstance(call, Mapping) and isinstance(call.get("name"), str):
            found.append(ToolCall(call.get("id") if isinstance(call.get("id"), str) else None,
                                  call["name"], call.get("args")))
    return tuple(found)


def as_message(value: Any) -> ChatMessage | None:
    """A :class:`ChatMessage` for a decoded LangChain message, else None."""
    if not isinstance(value, Mapping) or is_unread(value):
        return None
    role = _role(value)
    if role is None or ("content" not in value and role != "remove"):
        return None

    def text_field(key: str) -> str | None:
        found = value.get(key)
        return found if isinstance(found, str) else None

    return ChatMessage(
        role=role,
        text=content_text(value.get("content")),
        id=text_field("id"),
        name=text_field("name"),
        tool_calls=_tool_calls(value) if role == "ai" else (),
        tool_call_id=text_field("tool_call_id"),
        status=text_field("status"),
        raw=value,
    )


def message_list(value: Any) -> list[ChatMessage] | None:
    """The messages of a list that holds only messages (at least one), else None."""
    if not isinstance(value, list) or not value:
        return None
    messages = [as_message(item) for item in value]
    if any(message is None for message in messages):
        return None
    return messages  # type: ignore[return-value]


def conversations(values: Mapping[str, Any]) -> dict[str, list[ChatMessage]]:
    """Every state key whose value is a list of messages (usually just ``messages``)."""
    found = {}
    for key, value in values.items():
        messages = message_list(value)
        if messages is not None:
            found[key] = messages
    return found


def turns(messages: Iterable[ChatMessage]) -> list[ChatTurn]:
    """The conversation with each tool result placed beside the call it answers.

    A tool result whose call is not in the conversation stays a turn of its own.
    """
    messages = list(messages)
    answered = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    placed: set[str] = set()
    result = []
    for message in messages:
        if message.role == "tool" and message.tool_call_id in placed:
            continue
        pairs = []
        for call in message.tool_calls:
            reply = answered.get(call.id) if call.id else None
            if reply is not None:
                placed.add(call.id)  # type: ignore[arg-type]
            pairs.append((call, reply))
        result.append(ChatTurn(message, tuple(pairs)))
    return result


def message_changes(old: list[ChatMessage], new: list[ChatMessage]) -> list[str]:
    """Message-level differences: ``+ ai: ...``, ``+ tool call f(x=1)``, ``- human: ...``.

    Messages are matched by id (``add_messages`` replaces by id), else by position; a message
    gone on one side and one added on the other that say the same (another run gave it another
    id) are no difference.
    """
    def key(index: int, message: ChatMessage) -> str:
        return message.id or f"#{index}"

    before = {key(i, m): m for i, m in enumerate(old)}
    after = {key(i, m): m for i, m in enumerate(new)}
    gone = [m for k, m in before.items() if k not in after]
    added = [m for k, m in after.items() if k not in before]
    for message in list(gone):
        twin = next((m for m in added if m.said() == message.said()), None)
        if twin is not None:
            gone.remove(message)
            added.remove(twin)
    lines = []
    for message in gone:
        lines.extend(f"- {line}" for line in message.lines())
    for k, message in after.items():
        if k not in before:
            if any(message is m for m in added):
                lines.extend(f"+ {line}" for line in message.lines())
        elif before[k].said() != message.said():
            was, now = before[k].lines(60), message.lines(60)
            lines.append(f"~ {' / '.join(was)} -> {' / '.join(now)}")
    return lines


# A one-line description never shows more than a few levels: past these it says so.
_MAX_DESCRIBED_DEPTH = 12


def describe(value: Any, limit: int = 120) -> str:
    """A short text for a decoded value: messages in one line, typed values as ``Name(k=v)``."""
    message = as_message(value)
    if message is not None:
        return _clip(" / ".join(message.lines()), limit)
    text = _describe(value, limit)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _describe(value: Any, limit: int, depth: int = 0) -> str:
    if depth >= _MAX_DESCRIBED_DEPTH and isinstance(value, (dict, list)):
        return "<too deep to show>"  # a one-line summary needs no more than this
    message = as_message(value)
    if message is not None:
        return "<" + " / ".join(message.lines(60)) + ">"
    if is_unread(value):
        return f"<{value['__unread__']}>"
    claimed = type_name(value)
    if claimed is not None:
        fields = {k: v for k, v in value.items() if k != TYPE_KEY}
        short = claimed.rsplit(".", 1)[-1]
        if set(fields) == {"value"}:
            return f"{short}({_describe(fields['value'], limit, depth + 1)})"
        inner = ", ".join(f"{k}={_describe(v, limit, depth + 1)}"
                          for k, v in list(fields.items())[:20])
        return f"{short}({inner})"
    if isinstance(value, list):
        more = ", ..." if len(value) > 20 else ""
        return "[" + ", ".join(_describe(v, limit, depth + 1) for v in value[:20]) + more + "]"
    if isinstance(value, dict):
        more = ", ..." if len(value) > 20 else ""
        items = list(value.items())[:20]
        return "{" + ", ".join(f"{literal(k)}: {_describe(v, limit, depth + 1)}"
                               for k, v in items) + more + "}"
    return literal(value)
