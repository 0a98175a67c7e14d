"""What a tool hands back: an answer (data and a short summary) or a refusal in one sentence.

An :class:`Answer` becomes the tool result a client receives (:func:`tool_result`): the summary
as the first text block, the data as structured content and the same data as JSON text in a
second block (the MCP specification's advice for structured results, since a client may hand
its model either). The whole result stays under :data:`~playground.mcp.bounds.ANSWER_CAP`
bytes: the data is shrunk further until it does. Every fact of the summary is in the data too
(a count, a cursor, the stored id a name was read under): a client that hands its model the
structured content alone loses nothing.

Then :func:`for_client` leaves out the copy the client at the other end never hands its model
(:func:`shape_for`, from the client's name and protocol version):

- a client documented to hand its model the structured content in place of the text blocks
  (Claude Code; VS Code, by its own source) gets the summary and the structured content, not
  the JSON text;
- a client documented to hand its model the text blocks alone (Claude Desktop), and any client
  of a protocol version before structured content (2025-06-18), gets the text blocks alone;
- every other client (Cursor, whose handling is not documented, and programs reading the
  structured content) gets both, as the specification advises.

``PLAYGROUND_MCP_ANSWERS=both`` gives every client both (for a client that changes how it reads
results). The data budget is the same whatever the client gets, so every client pages alike.

A refusal (:func:`refusal`) is a tool error with one sentence and no traceback; the server
keeps serving. :func:`sentence_of` turns what reading a place can raise into that sentence.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from mcp.types.version import KNOWN_PROTOCOL_VERSIONS, is_version_at_least
from pydantic import ValidationError

from playground.mcp.bounds import ANSWER_CAP, DATA_BUDGET, clip, fit, json_text

# Characters of a refusal's sentence.
SENTENCE_CHARS = 400
# What the JSON-RPC envelope around a result takes (id, jsonrpc, result key).
_ENVELOPE = 256

# What a tool result carries for one client: the summary, the JSON text and the structured
# content ("both"), the summary and the structured content ("structured"), or the text blocks
# alone ("text").
Shape = Literal["both", "structured", "text"]
# The clientInfo names of the clients that hand their model JSON.stringify(structuredContent)
# and none of the text blocks whenever a result has structured content: Claude Code (observed
# and reported in anthropics/claude-code#55677, #79944 on 2.1.280), and VS Code in its own
# source (mcpLanguageModelToolContribution.ts: "take that in place of any textual description
# when present"; its clientInfo name is the product's nameLong).
STRUCTURED_CLIENTS = frozenset({"claude-code", "Visual Studio Code",
                                "Visual Studio Code - Insiders", "Code - OSS", "VSCodium"})
# The clientInfo names of the clients that hand their model the text blocks and never the
# structured content: Claude Desktop ("claude-ai"; reported in blockscout/mcp-server#324 and
# Urigo/accounter-fullstack#4303). Leaving structured content out costs such a client nothing,
# even were it to read structured content one day: a result without it is read from its text.
TEXT_CLIENTS = frozenset({"claude-ai"})
# The first protocol version with structured content in tool results.
STRUCTURED_SINCE = "2025-06-18"
# PLAYGROUND_MCP_ANSWERS: "auto" (the default: by client) or "both" (every client both copies).
ANSWERS_ENV = "PLAYGROUND_MCP_ANSWERS"


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


def answers_setting() -> str:
    """``PLAYGROUND_MCP_ANSWERS``: ``auto`` (unset) or ``both``. The server checks it once
    before it starts.

    Raises:
        ValueError: it is set to anything else.
    """
    setting = os.environ.get(ANSWERS_ENV, "").strip().lower() or "auto"
    if setting not in ("auto", "both"):
        raise ValueError(f"{ANSWERS_ENV} takes auto or both, not {clip(setting, 40)!r}")
    return setting


def shape_for(client_name: str | None, protocol_version: str | None) -> Shape:
    """What a result carries for the client that sent ``client_name`` (its ``clientInfo``
    name) and speaks ``protocol_version``: see :data:`Shape`. Unknown clients and versions
    get both copies, and so does every client with ``PLAYGROUND_MCP_ANSWERS=both`` (a
    setting that is not one counts as ``both``: the server refused it at start)."""
    if os.environ.get(ANSWERS_ENV, "").strip().lower() not in ("", "auto"):
        return "both"
    if (protocol_version in KNOWN_PROTOCOL_VERSIONS
            and not is_version_at_least(protocol_version, STRUCTURED_SINCE)):
        return "text"  # that version's result has no structured content: a client drops it
    if client_name in STRUCTURED_CLIENTS:
        return "structured"
    if client_name in TEXT_CLIENTS:
        return "text"
    return "both"


def for_client(result: Any, shape: Shape) -> Any:
    """``result`` (as :func:`tool_result` made it) with only what a client of ``shape`` hands
    its model. Either copy left out only shrinks the result, so it stays within the cap; a
    refusal, or any other result, is left as it is."""
    if (shape == "both" or not isinstance(result, CallToolResult) or result.is_error
            or result.structured_content is None or len(result.content) != 2):
        return result
    if shape == "structured":
        return CallToolResult(content=result.content[:1],
                              structured_content=result.structured_content)
    return CallToolResult(content=result.content)


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
