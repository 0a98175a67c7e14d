"""How much one answer of the MCP server may hold, and how a list goes on past a page.

A model reads every byte a tool answers, and a database someone else wrote may hold a 10 MB
message, a 10,000-checkpoint thread or an id padded to megabytes. So every answer is bounded
twice:

- a value (a state key, a pending write, a message's text, a metadata object) over
  :data:`VALUE_CAP` bytes of JSON is cut: ``{"cut": true, "bytes": N, "preview": "..."}``, its
  size said and its first characters kept (:func:`cut`);
- a whole answer never passes :data:`ANSWER_CAP` bytes on the wire: lists are paged
  (:func:`take`, with a cursor to go on), and whatever is still too large is cut, the largest
  part first (:func:`fit`).

Cursors are short texts a tool hands back and takes again (:func:`cursor_for`,
:func:`position_of`): a tool's name and a position, so a cursor given to another tool is refused
in one sentence rather than misread.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any

import orjson

from playground.timetravel.decode import to_jsonable

# The whole tool result on the wire (its summary, the JSON text copy and the structured data).
ANSWER_CAP = 64 * 1024
# What a tool's data may take before the result is built. The result carries the data twice
# (structured, and as JSON text for clients that read only text: the MCP spec's advice), and
# the text copy's quotes are escaped again, so the data gets a little under half the cap. A
# client sent one copy (answers.for_client) gets no more data per page: pages stay alike for
# every client, and Claude Code keeps a result of more than 50,000 characters out of its
# model's context (it saves it to a file and hands over a preview).
DATA_BUDGET = 26 * 1024
# One value's JSON; past it the value is cut with its size said.
VALUE_CAP = 8 * 1024
# Characters of a cut value kept as its preview.
PREVIEW_CHARS = 400
# Characters of an id or a name in a summary line or an error sentence.
NAME_CHARS = 120
# The most a list tool's ``limit`` may ask for; the answer cap may page sooner.
MAX_LIMIT = 200
DEFAULT_LIMIT = 20
# The smallest budget a part is shrunk to before it is cut whole (a marker's own size).
_FLOOR = 96
CUT_KEY = "cut"


def jsonable(value: Any) -> Any:
    """Decoded data as plain JSON data (the safe decoder's :func:`to_jsonable`: bytes as a
    marker, depth bounded), with what JSON cannot say made text: a float that is not finite, a
    string holding a lone surrogate (a JSON row may escape one)."""
    return _clean(to_jsonable(value))


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def json_text(value: Any) -> str:
    """Compact JSON text of plain data (an integer past 64 bits, which orjson refuses, through
    the standard library)."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def json_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON."""
    try:
        return len(orjson.dumps(value))
    except TypeError:
        return len(json_text(value).encode("utf-8"))


def is_cut(value: Any) -> bool:
    """Whether ``value`` is a cut marker (:func:`cut`)."""
    return isinstance(value, dict) and value.get(CUT_KEY) is True and "bytes" in value


def marker(value: Any, size: int | None = None, preview: int = PREVIEW_CHARS) -> dict:
    """The cut marker of a value: its size in bytes of JSON and its first characters (a
    string's own text, anything else's JSON)."""
    size = json_size(value) if size is None else size
    text = value if isinstance(value, str) else json_text(value)
    shown = text[: max(preview, 0)]
    return {CUT_KEY: True, "bytes": size, "preview": shown + ("…" if len(text) > len(shown)
                                                              else "")}


def cut(value: Any, cap: int = VALUE_CAP) -> Any:
    """``value`` itself when its JSON fits ``cap`` bytes, else its cut marker."""
    size = json_size(value)
    return value if size <= cap else marker(value, size)


def fit(value: Any, budget: int) -> Any:
    """``value`` made to fit ``budget`` bytes of JSON, keeping its shape where it can.

    The largest parts of a mapping are shrunk first (each as far as the rest leaves room for); a
    list keeps the items that fit, in order, and ends with a marker saying how many more there
    were and their size; a part that cannot shrink becomes its cut marker.
    """
    size = json_size(value)
    if size <= budget:
        return value
    if isinstance(value, dict) and value and not is_cut(value):
        return _fit_mapping(value, size, budget)
    if isinstance(value, list) and value:
        return _fit_list(value, budget)
    return marker(value, size, preview=min(PREVIEW_CHARS, max(budget - _FLOOR, 0)))


def _fit_mapping(value: dict, size: int, budget: int) -> Any:
    sizes = {key: json_size(item) for key, item in value.items()}
    out = dict(value)
    total = size
    for key in sorted(sizes, key=sizes.__getitem__, reverse=True):
        if total <= budget:
            break
        room = max(budget - (total - sizes[key]), _FLOOR)
        if sizes[key] <= room:
            continue
        smaller = fit(value[key], room)
        total += json_size(smaller) - sizes[key]
        out[key] = smaller
    return out if total <= budget else marker(value, size, preview=min(
        PREVIEW_CHARS, max(budget - _FLOOR, 0)))


def _fit_list(value: list, budget: int) -> list:
    kept: list = []
    used = 2  # the brackets
    for index, item in enumerate(value):
        left = value[index:]
        # room for this item and for the marker that would follow it
        room = budget - used - _FLOOR - 1
        item_size = json_size(item)
        if item_size > room:
            if not kept and room > _FLOOR:  # the first item alone is too large: shrink it
                item = fit(item, room)
                item_size = json_size(item)
                if item_size <= room:
                    kept.append(item)
                    used += item_size + 1
                    continue
            rest = {CUT_KEY: True, "items": len(left), "bytes": json_size(left)}
            return [*kept, rest]
        kept.append(item)
        used += item_size + 1
    return kept


def take(items: Iterable[Any], limit: int, budget: int) -> tuple[list, bool]:
    """The first items, up to ``limit`` and ``budget`` bytes of JSON in all, and whether some
    were left for a next page. The first item is always taken (shrunk to the budget when it
    alone is larger), so a page never comes back empty while items are left."""
    page: list = []
    used = 2
    for item in items:
        if len(page) == limit:
            return page, True
        size = json_size(item)
        if page and used + size + 1 > budget:
            return page, True
        if not page and size > budget - 2:
            item = fit(item, budget - 2)
            size = json_size(item)
        page.append(item)
        used += size + 1
    return page, False


_CURSOR = re.compile(r"^([a-z_]+):(\d{1,9})$")


def cursor_for(tool: str, position: int) -> str:
    """A cursor of ``tool`` that goes on at ``position`` (where the next page starts)."""
    return f"{tool}:{position}"


def position_of(cursor: str | None, tool: str) -> int:
    """Where a cursor of ``tool`` goes on (0 without one).

    Raises:
        ValueError: the text is not a cursor ``tool`` gave (one sentence).
    """
    if cursor is None or cursor == "":
        return 0
    found = _CURSOR.match(cursor)
    if found is None or found[1] != tool:
        raise ValueError(f"{clip(cursor, 40)!r} is not a cursor of {tool}: pass the "
                         "next_cursor an earlier answer of this tool gave, or none for the "
                         "first page")
    return int(found[2])


def clip(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with "…"."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
