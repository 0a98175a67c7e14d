"""What a tool hands back: an answer (data and a short summary) or a refusal in one sentence.

An :class:`Answer` becomes the tool result a client receives (:func:`tool_result`): the summary
as the first text block, the data as structured content and, since many clients hand a model
only the text blocks, the same data as JSON text in a second block (the MCP specification's
advice for structured results). The whole result stays under
:data:`~playground.mcp.bounds.ANSWER_CAP` bytes: the data is shrunk further until it does.

A refusal (:func:`refusal`) is a tool error with one sentence and no traceback; the server
keeps serving. :func:`sentence_of` turns what reading a place can raise into that sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from playground.mcp.bounds import ANSWER_CAP, DATA_BUDGET, clip, fit, json_text

# Characters of a refusal's sentence.
SENTENCE_CHARS = 400
# What the JSON-RPC envelope around a result takes (id, jsonrpc, result key).
_ENVELOPE = 256


class Refused(ValueError):
    """An argument a tool cannot use (an unknown thread, a malformed cursor), said in one
    sentence that names what to give instead."""


@dataclass(frozen=True)
class Answer:
    """A tool's answer before it is bounded.

    Attributes:
        summary: one or two lines for a person or a model skimming.
        data: plain JSON data (values already through the safe decoder and cut to
            :data:`~playground.mcp.bounds.VALUE_CAP`).
    """

    summary: str
    data: dict[str, Any]


def tool_result(answer: Answer) -> CallToolResult:
    """The result a client receives for ``answer``: the summary, the data as JSON text and as
    structured content, in :data:`ANSWER_CAP` bytes at most."""
    summary = clip(answer.summary, 1_000)
    budget = DATA_BUDGET
    while True:
        data = fit(answer.data, budget)
        result = CallToolResult(
            content=[TextContent(type="text", text=summary),
                     TextContent(type="text", text=json_text(data))],
            structured_content=data)
        if _wire_size(result) <= ANSWER_CAP - _ENVELOPE or budget <= 1_024:
            return result
        # Text the JSON copy escapes heavily (quotes, control characters): try with less.
        budget = budget * 2 // 3


def _wire_size(result: CallToolResult) -> int:
    return len(result.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8"))


def refusal(sentence: str) -> CallToolResult:
    """A tool error a model reads: one sentence, no traceback."""
    return CallToolResult(content=[TextContent(type="text", text=one_sentence(sentence))],
                          is_error=True)


def one_sentence(text: str) -> str:
    """``text`` on one line, cut to :data:`SENTENCE_CHARS` characters."""
    return clip(text, SENTENCE_CHARS)


def sentence_of(exc: BaseException) -> str:
    """What an error says, as one sentence: its message's first line (a driver's message may
    span lines), or its kind when it has none."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return one_sentence(first)


def arguments_sentence(tool: str, exc: ValidationError) -> str:
    """The arguments a tool refused, in one sentence: each bad argument and what it must be
    (``limit must be less than or equal to 200``), never the rejected value itself."""
    said = []
    for error in exc.errors()[:3]:
        where = ".".join(str(part) for part in error.get("loc", ()) if part != "") or "arguments"
        what = str(error.get("msg", "is not valid"))
        if error.get("type") == "missing":
            said.append(f"{where} is required")
        else:
            # pydantic says "Input should be ...": the argument, by its name
            said.append(f"{where}: {what[0].lower() + what[1:] if what else what}")
    more = len(exc.errors()) - len(said)
    return one_sentence(f"{tool} refused its arguments: {'; '.join(said)}"
                        + (f" (and {more} more)" if more > 0 else ""))
