"""JSON a person typed into a form: the one parser for it.

The forms that take a JSON value or object parse it here: an edit's object of state keys
(History's "Other keys", Run's state changes, ``playground agent edit``), a store item's value
(Memory), one state field's value (History's fork form) and one field of an input or context
form (Run). A refusal says where the text went wrong and what to type instead.
"""

from __future__ import annotations

import json
from typing import Any

EXAMPLE = '{"priority": "high"}'
TEXT_NEEDS_QUOTES = 'text needs quotes, like "hello"'


class JsonRefused(ValueError):
    """Typed text that is not the JSON asked for; nothing was done with it."""


def parse_json(
    text: str,
    field: str | None = None,
    *,
    needs_quotes: str = TEXT_NEEDS_QUOTES,
    refuse: type[ValueError] = JsonRefused,
) -> Any:
    """Parse JSON typed into a form.

    Args:
        text: what was typed.
        field: the field's name, for one field's value (any JSON: ``3``, ``true``, ``["a"]``,
            ``"text"``). None for an object of keys and values, such as ``{"priority": "high"}``
            (an edit, a store item).
        needs_quotes: how a field's refusal ends, telling that text is typed in quotes.
        refuse: the exception to raise, so that each caller's own refusal carries the message
            (``EditRefused`` for an edit, say).

    Returns:
        The value; a dict when ``field`` is None.

    Raises:
        refuse: for a field, text that is not JSON (``"<field>: not valid JSON (<why> at column
            <n>); <needs_quotes>"``); for an object, text that is not JSON, JSON that is not an
            object, or an object that names one key twice, with the line and column where it can.
    """
    if field is not None:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise refuse(f"{field}: not valid JSON ({exc.msg} at column {exc.colno}); "
                         f"{needs_quotes}") from None

    def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                # json keeps the last one silently; an object naming a key twice is a typing slip
                raise refuse(f"key {key!r} appears twice in the JSON object: keep one")
            result[key] = value
        return result

    try:
        value = json.loads(text, object_pairs_hook=no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise refuse(
            f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}; "
            f"type an object such as {EXAMPLE}"
        ) from None
    if not isinstance(value, dict):
        line, column = _first_character(text)
        raise refuse(
            f"expected a JSON object at line {line}, column {column}, got {_json_kind(value)}: "
            f"wrap the keys and values in braces, such as {EXAMPLE}"
        )
    return value


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return {str: "a string", list: "an array"}.get(type(value), type(value).__name__)


def _first_character(text: str) -> tuple[int, int]:
    stripped = text.lstrip()
    offset = len(text) - len(stripped)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
