"""The input form a graph asks for, read from its input schema, and the input a form gives.

Fields come from the schema's type hints (TypedDict, pydantic model, dataclass), which always
resolve; ``get_input_jsonschema()`` adds descriptions and defaults where it works (it raises for
a ``typing.TypedDict`` state on Python < 3.12, DESIGN.md). A text field is typed as it is; any
other field is JSON (``3``, ``true``, ``["a"]``), checked against its hint before the run, so a
typo is refused with the field's name instead of failing inside a node.
"""

from __future__ import annotations

import contextlib
import json
import types
import typing
from dataclasses import dataclass
from typing import Any

from playground.timetravel.edit import describe_hint, misfits, schema_hints


class InputRefused(ValueError):
    """Form input that does not fit the graph's input schema; nothing was run."""


@dataclass(frozen=True)
class InputField:
    """One field of a graph's input.

    Attributes:
        name: the state key.
        hint: its type hint.
        kind: the hint in words (``str | None``, ``list[str]``).
        is_text: typed as plain text (a ``str`` field) rather than JSON.
        description: from the JSON schema, if any.
        default: a JSON default to prefill, if the schema gives one.
    """

    name: str
    hint: Any
    kind: str
    is_text: bool
    description: str = ""
    default: str = ""


def _is_text(hint: Any) -> bool:
    if hint is str:
        return True
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _is_text(args[0])
    return origin in (typing.Union, types.UnionType) and args == [str]


def input_fields(graph: Any, schema: type | None) -> list[InputField]:
    """The fields of a graph's input schema, in declaration order (private keys left out)."""
    hints = schema_hints(schema) if schema is not None else {}
    described: dict[str, dict] = {}
    # PydanticUserError for typing.TypedDict on Python 3.11, and others: the hints suffice.
    with contextlib.suppress(Exception):
        described = graph.get_input_jsonschema().get("properties", {})
    fields = []
    for name, hint in hints.items():
        info = described.get(name, {}) if isinstance(described.get(name), dict) else {}
        default = info.get("default")
        fields.append(InputField(
            name, hint, describe_hint(hint), _is_text(hint),
            str(info.get("description") or ""),
            "" if default is None else (default if isinstance(default, str)
                                        else json.dumps(default)),
        ))
    return fields


def parse_input(fields: list[InputField], typed: dict[str, str]) -> dict[str, Any]:
    """The input a filled form gives: empty fields left out, JSON fields parsed and checked.

    Raises:
        InputRefused: a field that is not valid JSON or does not fit its type, or no field set.
    """
    values: dict[str, Any] = {}
    problems = []
    for field in fields:
        text = typed.get(field.name, "")
        if text == "":
            continue
        if field.is_text:
            values[field.name] = text
            continue
        try:
            values[field.name] = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(f"{field.name}: not valid JSON ({exc.msg} at column {exc.colno}); "
                            'text needs quotes, like "hello"')
            continue
        problems.extend(misfits(field.name, values[field.name], field.hint))
    if problems:
        raise InputRefused("; ".join(problems))
    if not values:
        raise InputRefused("every field is empty: fill in at least one to start a run")
    return values

