"""The forms a graph asks for (its input, its context) and what a filled form gives.

Fields come from the schema's type hints (TypedDict, pydantic model, dataclass), which always
resolve; ``get_input_jsonschema()`` adds descriptions and defaults where it works (it raises for
a ``typing.TypedDict`` state on Python < 3.12, docs/architecture.md). A text field (``str``,
:func:`~playground.apps.state_fields.is_text_hint`) is typed as it is, what is typed being the
string; one whose type allows None has a "null" choice beside it, and its typed value is then
None. Any other field is JSON (``3``, ``true``, ``["a"]``). Every value is checked against its
hint before the run, so a typo is refused with the field's name instead of failing inside a node.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import operator
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playground.apps.json_text import JsonRefused, parse_json
from playground.apps.state_fields import (
    allows_none,
    describe_hint,
    is_text_hint,
    misfits,
    schema_hints,
    typed_as_json,
)

# A field's typed value: the text in its box, or None when its "null" box is ticked.
Typed = str | None


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
        default: what the field holds at first: the schema's default as it is typed (a text
            field's string, any other value as JSON), "" for none; None ticks the "null" box.
        nullable: a text field whose type allows None: a "null" box beside it.
    """

    name: str
    hint: Any
    kind: str
    is_text: bool
    description: str = ""
    default: Typed = ""
    nullable: bool = False


def typed_text(field: InputField, value: Any) -> Typed:
    """A value as its field holds it: a text field's string as it is (None, the "null" box,
    for None where the field allows it), any other value as JSON ("" for one that is not)."""
    if value is None:
        return None if field.is_text and field.nullable else ""
    if field.is_text and isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return ""


def _described(schema_of: Any) -> dict[str, dict]:
    # PydanticUserError for typing.TypedDict on Python 3.11, and others: the hints suffice.
    with contextlib.suppress(Exception):
        properties = (schema_of() or {}).get("properties", {})
        return {k: v for k, v in properties.items() if isinstance(v, dict)}
    return {}


def _class_defaults(schema: Any) -> dict[str, Any]:
    """Defaults a dataclass or Pydantic model declares (factories called), by field name."""
    found: dict[str, Any] = {}
    if dataclasses.is_dataclass(schema):
        for item in dataclasses.fields(schema):
            if item.default is not dataclasses.MISSING:
                found[item.name] = item.default
            elif item.default_factory is not dataclasses.MISSING:
                with contextlib.suppress(Exception):
                    found[item.name] = item.default_factory()
    for name, info in (getattr(schema, "model_fields", None) or {}).items():
        with contextlib.suppress(Exception):
            if not info.is_required():
                found[name] = info.get_default(call_default_factory=True)
    return found


# A JSON schema's types as the hints a form checks values against (a schema that comes as JSON
# only: a graph an Agent Server runs).
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float,
                               "boolean": bool, "array": list, "object": dict,
                               "null": type(None)}


def _json_hint(info: dict) -> Any:
    """The hint a JSON schema's property stands for: ``{"type": "string"}`` is ``str``, and
    ``{"anyOf": [{"type": "string"}, {"type": "null"}]}`` (Pydantic's ``str | None``) is
    ``str | None``; anything else is ``Any``."""
    kind = info.get("type")
    if isinstance(kind, str):
        kinds = [kind]
    elif isinstance(kind, list):
        kinds = kind
    else:
        kinds = [member.get("type") if isinstance(member, dict) else None
                 for member in info.get("anyOf") or [None]]
    hints = [_JSON_TYPES.get(each, Any) if isinstance(each, str) else Any for each in kinds]
    if not hints or Any in hints:
        return Any
    return functools.reduce(operator.or_, hints)  # str | None; one hint alone: that hint


_ABSENT = object()


def _field(name: str, hint: Any, info: dict, default: Any, nulls: bool) -> InputField:
    """One field; ``nulls`` lets a default of None tick its "null" box (a context's value),
    else the box starts clear and an empty field is left out (an input)."""
    text = is_text_hint(hint)
    field = InputField(name, hint, describe_hint(hint), text, str(info.get("description") or ""),
                       nullable=text and allows_none(hint))
    if default is _ABSENT or (default is None and not nulls):
        return field
    return dataclasses.replace(field, default=typed_text(field, default))


def _fields(schema: type | None, described: dict[str, dict],
            skip: frozenset[str] = frozenset(), nulls: bool = False) -> list[InputField]:
    if schema is None:  # the JSON schema is all there is
        return [_field(name, _json_hint(info), info, info.get("default", _ABSENT), nulls)
                for name, info in described.items()
                if name not in skip and not name.startswith("_")]
    defaults = _class_defaults(schema)
    return [_field(name, hint, described.get(name, {}),
                   defaults.get(name, described.get(name, {}).get("default", _ABSENT)), nulls)
            for name, hint in schema_hints(schema).items()
            if name not in skip and not _is_managed(hint)]


def _is_managed(hint: Any) -> bool:
    """``IsLastStep``, ``RemainingSteps`` and other values LangGraph computes for each step."""
    from langgraph.managed.base import is_managed_value

    candidates = [hint, *typing.get_args(hint)] if typing.get_origin(hint) is typing.Annotated \
        else [hint]
    return any(is_managed_value(c) for c in candidates)


def input_fields(graph: Any, schema: type | None,
                 skip: frozenset[str] = frozenset()) -> list[InputField]:
    """The fields of a graph's input schema, in declaration order (private keys, managed values
    and the keys in ``skip`` left out)."""
    return _fields(schema, _described(graph.get_input_jsonschema), skip)


def context_fields(graph: Any, schema: type | None) -> list[InputField]:
    """One field per key of a graph's context (or ``Configuration``) schema, holding the
    schema's default, as ``langgraph dev`` passes it when nothing is set (a default of None
    ticks a text field's "null" box)."""
    return _fields(schema, _described(getattr(graph, "get_context_jsonschema", dict)),
                   nulls=True)


def _first_problem(exc: Exception) -> str:
    """One line of what a schema's validation said (Pydantic: where, and what is wrong)."""
    with contextlib.suppress(Exception):
        first = exc.errors()[0]  # pydantic.ValidationError
        return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _parse_fields(filled: Iterable[tuple[InputField, Typed]]
                  ) -> tuple[dict[str, Any], list[str]]:
    """The values of a form's fields and what is wrong with them, for each field and what it
    holds: None for a ticked "null" box, a text field's text as typed, any other parsed as
    JSON; each checked against its hint (a ``Literal``'s choices, a number's type).

    The two forms leave out different fields (an empty input field; a blank context JSON field,
    left to the schema's default), so each caller passes only the fields it parses.
    """
    values: dict[str, Any] = {}
    problems: list[str] = []
    for field, text in filled:
        if text is None or field.is_text:
            values[field.name] = text
        else:
            try:
                values[field.name] = parse_json(text, field.name,
                                                needs_quotes=typed_as_json(field.hint))
            except JsonRefused as exc:
                problems.append(str(exc))
                continue
        problems.extend(misfits(field.name, values[field.name], field.hint))
    return values, problems


def parse_settings(fields: list[InputField], typed: dict[str, Typed],
                   schema: type | None = None) -> dict[str, Any]:
    """The context a filled context form gives: text as typed, None where "null" is ticked,
    JSON fields parsed and checked, empty JSON fields left to the schema's default; a dataclass
    or Pydantic schema is also built once from the values, so its own validation speaks before
    anything runs.

    Raises:
        InputRefused: a value that is not valid JSON, does not fit its type, or that the
            schema refuses; one line naming the key.
    """
    filled = ((field, typed.get(field.name, field.default)) for field in fields)
    values, problems = _parse_fields(
        (field, text) for field, text in filled
        if text is None or field.is_text or text.strip() != "")
    if not problems and schema is not None and (
            dataclasses.is_dataclass(schema) or hasattr(schema, "model_validate")):
        try:
            schema(**values)
        except Exception as exc:  # the schema's own validation: a TypeError, a ValidationError
            problems.append(f"{getattr(schema, '__name__', 'the schema')} refused them: "
                            f"{_first_problem(exc)}")
    if problems:
        raise InputRefused("; ".join(problems))
    return values


def parse_input(fields: list[InputField], typed: dict[str, Typed]) -> dict[str, Any]:
    """The input a filled form gives: empty fields left out, None where "null" is ticked,
    JSON fields parsed and checked.

    Raises:
        InputRefused: a field that is not valid JSON or does not fit its type, or no field set.
    """
    filled = ((field, typed.get(field.name, "")) for field in fields)
    values, problems = _parse_fields((field, text) for field, text in filled if text != "")
    if problems:
        raise InputRefused("; ".join(problems))
    if not values:
        raise InputRefused("every field is empty: fill in at least one to start a run")
    return values

