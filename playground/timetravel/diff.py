"""What changed between two states: the values of two checkpoints, compared key by key.

Pure: no LangGraph, no saver. A page puts two snapshots' ``values`` in and renders ``lines()``.
Values are the safe decoder's plain data, so typed values read as ``Order(id='o1')`` rather
than as Python reprs.

Paths name where a difference is: ``priority`` for a top-level key, ``changes.priority`` inside
a nested mapping, ``log[2]`` for one element of a list. Lists of the same length are compared
element by element; a list that grew or shrank is reported whole, because aligning elements
(which one was inserted?) is guesswork and a reducer such as ``operator.add`` only appends.
A list of chat messages is the exception: ``add_messages`` matches messages by id, so those are
compared message by message (``+ ai: Your order A17 has shipped``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playground.timetravel.decode import too_deep
from playground.timetravel.limits import limits
from playground.timetravel.messages import describe, message_changes, message_list

_MISSING = object()


@dataclass(frozen=True)
class StateDiff:
    """The differences between an old and a new state, keyed by path.

    Attributes:
        added: paths only in the new state, with their new value.
        removed: paths only in the old state, with their old value.
        changed: paths in both whose value differs, with ``(old, new)``.
        messages: paths of message lists that differ, with one line per message change.
    """

    added: dict[str, Any] = field(default_factory=dict)
    removed: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    messages: dict[str, list[str]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """True when the two states are the same."""
        return not (self.added or self.removed or self.changed or self.messages)

    def lines(self, limit: int = 120) -> list[str]:
        """Describe the differences, one line each, in path order.

        Args:
            limit: longest ``repr`` shown for one value; longer ones end in ``...``.

        Returns:
            Lines such as ``+ etag = '"v2"'``, ``- version`` and
            ``~ priority: 'normal' -> 'high'``; for the ``messages`` list, one line per message
            (``+ ai: ...``, ``+ tool call lookup_order(order_id='A17')``), other message lists
            with their path first.
        """
        entries: list[tuple[str, str]] = []
        for path, changes in self.messages.items():
            where = "" if path == "messages" else f"{path}: "
            entries.extend((path, f"{line[:2]}{where}{line[2:]}") for line in changes)
        for path, value in self.added.items():
            entries.append((path, f"+ {path} = {describe(value, limit)}"))
        for path in self.removed:
            entries.append((path, f"- {path}"))
        for path, (old, new) in self.changed.items():
            entries.append((path, f"~ {path}: {describe(old, limit)} -> {describe(new, limit)}"))
        entries.sort(key=lambda entry: _natural_key(entry[0]))
        return [text for _, text in entries]


def diff_states(old: Mapping[str, Any], new: Mapping[str, Any]) -> StateDiff:
    """Compare two states.

    A key set to ``None`` is not the same as a missing key: LangGraph keeps a channel that was
    written ``None`` and leaves out one never written, and a stranded key (see docs/architecture.md,
    renaming a state key) shows up exactly as that difference.

    Args:
        old: the earlier state, usually a checkpoint's ``values``.
        new: the later state.

    Returns:
        The added, removed and changed paths.
    """
    diff = StateDiff()
    _walk_mapping("", old, new, diff)
    return diff


def _walk_mapping(prefix: str, old: Mapping, new: Mapping, diff: StateDiff,
                  depth: int = 0) -> None:
    for key, old_value in old.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        new_value = new.get(key, _MISSING)
        if new_value is _MISSING:
            if message_list(old_value) is not None:
                diff.messages[path] = message_changes(message_list(old_value), [])
            else:
                diff.removed[path] = old_value
        else:
            _walk_value(path, old_value, new_value, diff, depth + 1)
    for key, new_value in new.items():
        if key not in old:
            path = f"{prefix}.{key}" if prefix else str(key)
            if message_list(new_value) is not None:
                diff.messages[path] = message_changes([], message_list(new_value))
            else:
                diff.added[path] = new_value


def _walk_value(path: str, old: Any, new: Any, diff: StateDiff, depth: int = 0) -> None:
    if depth >= limits().max_depth:
        # A value from a database may nest as deep as its bytes allow: below the depth limit
        # the two sides are compared whole (and described as "too deep to show").
        if not _same(old, new):
            diff.changed[path] = (too_deep(), too_deep())
        return
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        _walk_mapping(path, old, new, diff, depth)
    elif (old_messages := _messages(old, new)) is not None:
        changes = message_changes(*old_messages)
        if changes:
            diff.messages[path] = changes
    elif _is_list(old) and _is_list(new) and len(old) == len(new):
        for index, (old_item, new_item) in enumerate(zip(old, new, strict=True)):
            _walk_value(f"{path}[{index}]", old_item, new_item, diff, depth + 1)
    elif not _same(old, new):
        diff.changed[path] = (old, new)


def _messages(old: Any, new: Any) -> tuple[list, list] | None:
    """Both values as message lists (an empty list counts as one beside messages), else None."""
    if not (isinstance(old, list) and isinstance(new, list)) or not (old or new):
        return None
    before, after = message_list(old), message_list(new)
    if (before is None and old) or (after is None and new):
        return None
    return before or [], after or []


def _is_list(value: Any) -> bool:
    # str and bytes are Sequences too, but they are compared as single values
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _same(old: Any, new: Any) -> bool:
    # 1 == True == 1.0 in Python, but a state that went from 1 to True did change
    if type(old) is not type(new):
        return False
    try:
        return bool(old == new)
    except (Exception, RecursionError):  # __eq__ refused, or nesting beyond the stack: changed
        return False


def _natural_key(path: str) -> list[tuple[int, int | str]]:
    # log[2] sorts before log[10]; (0, n) for numbers and (1, s) for text keep the parts comparable
    return [
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", path) if part
    ]
