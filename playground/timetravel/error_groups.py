"""Failed threads grouped by why: each distinct error once, with how many threads it stopped,
when it last did, and one of them to open.

400 failed threads rarely hold 400 different failures. The same failure says different things
each time (``RuntimeError('ticket 4211 not found')``, ``RuntimeError('ticket 977 not found')``),
so an error is grouped by its *fingerprint*, as error trackers group events: its text with what
varies between occurrences masked (:func:`fingerprint`: uuids, hex strings, ids and long tokens,
numbers, times). Everything else stays as written, so two exception types, or two wordings, stay
two groups. The nodes that raised it are said beside it, not grouped by: a place that keeps no
task path cannot always say the node (the thread list then says "the run failed"), and one
failure must not split in two for that.

This module is pure: it reads no place. The thread list (:func:`~playground.timetravel.
thread_list.group_errors`) walks every failed thread within the read's deadline and feeds each
one to a :class:`Grouping`; a person sees the masked text, the count, the newest time and a real
example (its thread id and its error as stored).

LangGraph stores a failed node's exception as its ``repr`` only (the ``__error__`` write): no
traceback is kept. :func:`whole_error` gives a stored error whole, and :func:`holds_traceback`
says whether it holds one, so a page can say "no traceback stored" rather than leave a person
looking for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from playground.timetravel.decode import to_jsonable

# What varies inside one failure, masked in this order where two could match at one place. An
# HTTP status stays: a 503 and a 429 are two failures, though each is a number.
_MASKS = re.compile(
    r"(?P<status>\b(?:HTTP|status(?:[ _]code)?|code)[\s:=/]*[1-5]\d\d\b)"
    r"|(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)"
    r"|(?P<time>\b\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?)?\b)"
    r"|(?P<email>\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b)"
    r"|(?P<hex>\b0x[0-9a-fA-F]+\b)"
    r"|(?P<word>\b\w+(?:-\w+)*)",
    re.ASCII)
LONG_TOKEN = 24  # characters: a token this long is an id or a key, whatever it holds
HEX_RUN = 8  # hex digits (with a letter and a digit among them) that make a hex string
_HEX = re.compile(r"[0-9a-fA-F]+")
_DIGITS = re.compile(r"\d+")
TRACEBACK_MARK = "Traceback (most recent call last)"
_TRACEBACK_KEYS = ("traceback", "stack", "stacktrace", "stack_trace")
WHOLE_CHARS = 200_000  # of one error shown whole: a database may store megabytes in one


def _masked_word(word: str) -> str:
    """A word (letters, digits, ``_`` and ``-`` joined) as a fingerprint keeps it: all digits
    ``<n>``; a hex string ``<hex>``; a token of :data:`LONG_TOKEN` characters, or a word with
    two digits or more (``A1259``, ``req_7f3k29``, ``thread-0042``) ``<id>``; else as written
    (``gpt-4o``, ``refund_node``, and a name with a short number inside, ``Base64DecodeError``).
    """
    digits = sum(c.isdigit() for c in word)
    if digits == len(word):
        return "<n>"
    if len(word) >= HEX_RUN and digits and _HEX.fullmatch(word):
        return "<hex>"
    if len(word) >= LONG_TOKEN:
        return "<id>"
    runs = _DIGITS.findall(word)
    if len(runs) == 1 and len(runs[0]) <= 2 and len(word) - digits >= 6:
        return word  # a name with a short number in it, not an id
    return "<id>" if digits >= 2 else word


def _mask(found: re.Match) -> str:
    kind = found.lastgroup
    if kind == "status":
        return found[0]
    if kind == "word":
        return _masked_word(found[0])
    return f"<{kind}>"


def fingerprint(text: str) -> str:
    """``text`` with what varies between occurrences of one failure masked, on one line:

    >>> fingerprint("RuntimeError('ticket 4211 not found')")
    "RuntimeError('ticket <n> not found')"
    >>> fingerprint("ProviderError('HTTP 503 (upstream overloaded), request req_8f2k19xq')")
    "ProviderError('HTTP 503 (upstream overloaded), request <id>')"

    Masked: uuids (``<uuid>``), ISO times (``<time>``), email addresses (``<email>``), hex
    strings (``<hex>``: ``0x1f``, ``9f86d081``), ids and long tokens (``<id>``: a word with two
    digits or more, or of 24 characters), numbers (``<n>``). Kept: an HTTP status (``HTTP
    503``, ``status code 429``), the exception's type, every other word and sign.
    """
    return _MASKS.sub(_mask, " ".join(str(text).split()))


def error_key(error: str) -> str:
    """The group a failure belongs to: its error's fingerprint
    (``LookupError('order <id> not found')``)."""
    return fingerprint(error)


@dataclass(frozen=True)
class ErrorGroup:
    """Failed threads whose errors share one fingerprint.

    Attributes:
        key: the group, :func:`error_key`: the masked error
            (``RuntimeError('ticket <n> not found')``).
        nodes: the nodes that raised it, as far as the place says (none when it does not).
        count: the failed threads in the group (of those read).
        newest_at: the newest head's time among them (ISO), or None.
        example_thread: one of them, the newest.
        example_error: its error, as stored (one line).
    """

    key: str
    nodes: tuple[str, ...]
    count: int
    newest_at: str | None
    example_thread: str
    example_error: str

    def as_json(self) -> dict[str, Any]:
        """The group for ``threads --group-by error --json`` and MCP."""
        return {"error": self.key, "nodes": list(self.nodes), "count": self.count,
                "newest_at": self.newest_at,
                "example": {"thread_id": self.example_thread, "error": self.example_error}}


@dataclass(frozen=True)
class ErrorGroups:
    """The failed threads read, grouped by error.

    Attributes:
        groups: the groups, the largest first (the newest first among equals).
        failed: the failed threads read and grouped.
        cut: why the walk stopped before every failed thread was read (its deadline), and how
            far it got; None when every one was.
    """

    groups: list[ErrorGroup] = field(default_factory=list)
    failed: int = 0
    cut: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every failed thread that matches was read."""
        return self.cut is None

    def as_json(self, shown: int | None = None) -> dict[str, Any]:
        """The groups as ``threads --group-by error --json`` gives them (the first ``shown``)."""
        groups = self.groups if shown is None else self.groups[:shown]
        return {"group_by": "error", "groups": [group.as_json() for group in groups],
                "groups_total": len(self.groups), "failed_read": self.failed,
                "complete": self.complete, "cut": self.cut}


class Grouping:
    """Failed threads added one at a time, grouped by :func:`error_key` (the error masked)."""

    def __init__(self) -> None:
        self._groups: dict[str, dict[str, Any]] = {}
        self.failed = 0

    def add(self, thread_id: str, node: str, error: str, newest_at: str | None) -> None:
        """One failed thread: its id, the node that raised, its error, its head's time."""
        self.failed += 1
        key = error_key(error)
        group = self._groups.get(key)
        if group is None:
            self._groups[key] = {"nodes": {node} if node else set(), "count": 1,
                                 "newest_at": newest_at, "thread": thread_id, "said": error}
            return
        group["count"] += 1
        if node:
            group["nodes"].add(node)
        if newest_at and (group["newest_at"] is None or newest_at > group["newest_at"]):
            group.update(newest_at=newest_at, thread=thread_id, said=error)

    def result(self, cut: str | None = None) -> ErrorGroups:
        """The groups so far, the largest first."""
        groups = [ErrorGroup(key, tuple(sorted(g["nodes"])), g["count"], g["newest_at"],
                             g["thread"], g["said"]) for key, g in self._groups.items()]
        groups.sort(key=lambda group: group.newest_at or "", reverse=True)
        groups.sort(key=lambda group: group.count, reverse=True)  # stable: newest first within
        return ErrorGroups(groups, self.failed, cut)


def whole_error(value: Any, limit: int = WHOLE_CHARS) -> str:
    """A stored error (an ``__error__`` write, decoded) whole, as text: a string as it is (line
    breaks kept), anything else as indented JSON; cut only past ``limit`` characters, saying
    how many more there were."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(to_jsonable(value), ensure_ascii=False, indent=1, default=repr)
        except (TypeError, ValueError, RecursionError):
            text = "<an error that cannot be shown>"
    if len(text) > limit:
        return text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
    return text


def holds_traceback(value: Any) -> bool:
    """Whether a stored error holds a traceback: Python's ``Traceback (most recent call
    last)`` in its text, or a ``traceback``/``stack`` field. LangGraph stores none (only the
    exception's ``repr``); some servers and apps store one."""
    if isinstance(value, str):
        return TRACEBACK_MARK in value
    if isinstance(value, dict):
        return any(isinstance(value.get(key), str | list) and value.get(key)
                   for key in _TRACEBACK_KEYS) or any(
            holds_traceback(item) for item in value.values() if isinstance(item, str))
    return False
