"""The arguments the read tools share: their types (from which each tool's JSON schema is
written), and how they are read, the way the ``playground`` command reads them.

A checkpoint is named as every command names one (an id, a unique part of one, or ``#N`` in
creation order; the head when left out: :func:`~playground.timetravel.tree.resolve_checkpoint`); a
thread list's filters become the engine's :class:`~playground.timetravel.thread_list.ThreadQuery`
as ``playground threads`` builds it. Anything that cannot be used is a
:class:`~playground.mcp.answers.Refused` (or the engine's own ``ValueError``) in one sentence.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field

from playground.mcp.answers import Refused
from playground.mcp.bounds import MAX_LIMIT, clip
from playground.timetravel.thread_list import ThreadQuery, parse_meta, typed_query
from playground.timetravel.tree import CheckpointTree, resolve_checkpoint

# Most characters an argument naming something stored may have (a real id is far shorter).
ID_CHARS = 4_096

# The arguments, typed: the SDK writes each tool's JSON schema from them, and refuses a value
# that does not fit before the tool runs.
ThreadId = Annotated[str, Field(
    min_length=1, max_length=ID_CHARS,
    description="the thread's id, as list_threads gives it")]
CheckpointRef = Annotated[Annotated[str, Field(max_length=ID_CHARS)] | None, Field(
    description="a checkpoint: its id, a unique part of one, or #N (its number in creation "
                "order, #1 the oldest); the head when left out")]
Limit = Annotated[int, Field(
    ge=1, le=MAX_LIMIT, description=f"most items in this page (1 to {MAX_LIMIT}); a page may "
                                    "hold fewer to stay small, and says where to go on")]
Cursor = Annotated[Annotated[str, Field(max_length=64)] | None, Field(
    description="the next_cursor an earlier answer of this tool gave: the page after it")]
Status = Annotated[Literal["paused", "stopped", "failed", "finished", "running"] | None,
                   Field(description="only threads paused (at a question or a breakpoint), "
                         "stopped (a person stopped the run: continue runs it on), failed (a "
                         "node raised), finished, or running (an Agent Server's)")]
Moment = Annotated[Annotated[str, Field(max_length=64)] | None, Field(
    description="an ISO time (UTC unless it says) or a span back from now: 90s, 15m, 2h, 3d")]
Metadata = Annotated[
    dict[str, str | int | float | bool] | list[Annotated[str, Field(max_length=ID_CHARS)]] | None,
    Field(description="only threads whose run metadata holds these: {\"user_id\": \"42\"} or "
                      "[\"user_id=42\"]")]
Text = Annotated[Annotated[str, Field(max_length=ID_CHARS)] | None, Field(
    description="only threads whose error or question contains this text, or whose id starts "
                "with it (any case)")]
GroupBy = Annotated[Literal["error"] | None, Field(
    description="\"error\": instead of a page of threads, every failed thread (status failed "
                "is implied; the other filters apply) grouped by its error, what varies inside "
                "one (ids, numbers, hex, uuids, times) masked: each group's count, newest time "
                "and an example thread with its error as stored, the largest group first; "
                "limit caps the groups, no cursor")]
CountOnly = Annotated[bool, Field(
    description="true: answer only how many threads match, counted whole (by the database, or "
                "by reading them within the read's deadline, then at least N); no page, so "
                "no cursor or limit. Each page says how many match too, where the database "
                "counts them")]


def checkpoint_in(tree: CheckpointTree, checkpoint: str | None) -> str:
    """The checkpoint of ``tree`` that ``checkpoint`` names; the head when it is None.

    Raises:
        ValueError: nothing, or more than one checkpoint, matches (one sentence).
    """
    if checkpoint is None or checkpoint.strip() == "":
        return tree.head
    return resolve_checkpoint(tree, checkpoint.strip())


def metadata_pairs(metadata: dict[str, Any] | list[str] | None) -> tuple[tuple[str, str], ...]:
    """A metadata filter as the engine takes it: (key, value as written) pairs.

    ``{"user_id": 42}`` and ``["user_id=42"]`` are the same filter: a value that is not text is
    written as JSON, and the engine matches it as written and as JSON (``42`` matches the
    string and the number).

    Raises:
        ValueError: a pair that is not KEY=VALUE, or a value that is a list or an object.
    """
    if metadata is None:
        return ()
    if isinstance(metadata, list):
        return parse_meta(metadata)
    pairs = []
    for key, value in metadata.items():
        if not key.strip():
            raise Refused("a metadata key must not be empty")
        if isinstance(value, (dict, list)):
            raise Refused(f"metadata {clip(key, 40)!r}: give a text, number or true/false "
                          "value to match, not a list or an object")
        pairs.append((key.strip(), value if isinstance(value, str) else json.dumps(value)))
    return tuple(pairs)


def thread_query(status: str | None, since: str | None, until: str | None,
                 metadata: dict[str, Any] | list[str] | None, text: str | None, limit: int,
                 after: str | None) -> ThreadQuery:
    """The thread list's query, as ``playground threads`` builds it from its flags.

    Raises:
        ValueError: a time that is not one, a metadata pair that is not KEY=VALUE.
    """
    return typed_query(status, since, until, metadata_pairs(metadata), text, limit, after)
