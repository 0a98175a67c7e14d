"""What changed between two states: the values of two checkpoints, compared key by key.

Pure: no LangGraph, no saver. A page puts two snapshots' ``values`` in and renders ``lines()``.

Paths name where a difference is: ``priority`` for a top-level key, ``changes.priority`` inside
a nested mapping, ``log[2]`` for one element of a list. Lists of the same length are compared
element by element; a list that grew or shrank is reported whole, because aligning elements
(which one was inserted?) is guesswork and a reducer such as ``operator.add`` only appends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class StateDiff:
    """The differences between an old and a new state, keyed by path.

    Attributes:
        added: paths only in the new state, with their new value.
        removed: paths only in the old state, with their old value.
        changed: paths in both whose value differs, with ``(old, new)``.
    """

    added: dict[str, Any] = field(default_factory=dict)
    removed: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """True when the two states are the same."""
        return not (self.added or self.removed or self.changed)

    def lines(self, limit: int = 120) -> list[str]:
        """Describe the differences, one line each, in path order.

        Args:
            limit: longest ``repr`` shown for one value; longer ones end in ``...``.

        Returns:
            Lines such as ``+ etag = '"v2"'``, ``- version`` and
            ``~ priority: 'normal' -> 'high'``.
        """
        entries: list[tuple[str, str]] = []
        for path, value in self.added.items():
            entries.append((path, f"+ {path} = {_short(value, limit)}"))
        for path in self.removed:
            entries.append((path, f"- {path}"))
        for path, (old, new) in self.changed.items():
            entries.append((path, f"~ {path}: {_short(old, limit)} -> {_short(new, limit)}"))
        entries.sort(key=lambda entry: _natural_key(entry[0]))
        return [text for _, text in entries]


def diff_states(old: Mapping[str, Any], new: Mapping[str, Any]) -> StateDiff:
    """Compare two states.

    A key set to ``None`` is not the same as a missing key: LangGraph keeps a channel that was
    written ``None`` and leaves out one never written, and a stranded key (see DESIGN.md,
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


def _walk_mapping(prefix: str, old: Mapping, new: Mapping, diff: StateDiff) -> None:
    for key, old_value in old.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        new_value = new.get(key, _MISSING)
        if new_value is _MISSING:
            diff.removed[path] = old_value
        else:
            _walk_value(path, old_value, new_value, diff)
    for key, new_value in new.items():
        if key not in old:
            diff.added[f"{prefix}.{key}" if prefix else str(key)] = new_value


def _walk_value(path: str, old: Any, new: Any, diff: StateDiff) -> None:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        _walk_mapping(path, old, new, diff)
    elif _is_list(old) and _is_list(new) and len(old) == len(new):
        for index, (old_item, new_item) in enumerate(zip(old, new, strict=True)):
            _walk_value(f"{path}[{index}]", old_item, new_item, diff)
    elif not _same(old, new):
        diff.changed[path] = (old, new)


def _is_list(value: Any) -> bool:
    # str and bytes are Sequences too, but they are compared as single values
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _same(old: Any, new: Any) -> bool:
    # 1 == True == 1.0 in Python, but a state that went from 1 to True did change
    if type(old) is not type(new):
        return False
    try:
        return bool(old == new)
    except Exception:  # an object whose __eq__ refuses to answer: treat as changed
        return False


def _short(value: Any, limit: int) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def _natural_key(path: str) -> list[tuple[int, int | str]]:
    # log[2] sorts before log[10]; (0, n) for numbers and (1, s) for text keep the parts comparable
    return [
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", path) if part
    ]
