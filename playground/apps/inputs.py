"""The forms a graph asks for (its input, its context) and what a filled form gives.

Fields come from the schema's type hints (TypedDict, pydantic model, dataclass), which always
resolve; ``get_input_jsonschema()`` adds descriptions and defaults where it works (it raises for
a ``typing.TypedDict`` state on Python < 3.12, docs/architecture.md). A text field is typed as
it is; any
other field is JSON (``3``, ``true``, ``["a"]``), checked against its hint before the run, so a
typo is refused with the field's name instead of failing inside a node.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playground.apps.json_text import JsonRefused, parse_json
from playground.apps.state_fields import describe_hint, misfits, schema_hints


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


def _as_text(value: Any, is_text: bool) -> str:
    if value is None:
        return ""
    if is_text and isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return ""


# A JSON schema's types as the hints a form checks values against (a schema that comes as JSON
# only: a graph an Agent Server runs).
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float,
                               "boolean": bool, "array": list, "object": dict}


def _json_hint(info: dict) -> Any:
    kind = info.get("type")
    return _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _fields(schema: type | None, described: dict[str, dict],
            skip: frozenset[str] = frozenset()) -> list[InputField]:
    if schema is None:  # the JSON schema is all there is
        return [InputField(name, _json_hint(info), describe_hint(_json_hint(info)),
                           _json_hint(info) is str, str(info.get("description") or ""),
                           _as_text(info.get("default"), _json_hint(info) is str))
                for name, info in described.items()
                if name not in skip and not name.startswith("_")]
    hints = schema_hints(schema)
    defaults = _class_defaults(schema) if schema is not None else {}
    fields = []
    for name, hint in hints.items():
        if name in skip or _is_managed(hint):
            continue
        info = described.get(name, {})
        text = _is_text(hint)
        default = defaults.get(name, info.get("default"))
        fields.append(InputField(name, hint, describe_hint(hint), text,
                                 str(info.get("description") or ""), _as_text(default, text)))
    return fields


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
    schema's default, as ``langgraph dev`` passes it when nothing is set."""
    return _fields(schema, _described(getattr(graph, "get_context_jsonschema", dict)))


def _first_problem(exc: Exception) -> str:
    """One line of what a schema's validation said (Pydantic: where, and what is wrong)."""
    with contextlib.suppress(Exception):
        first = exc.errors()[0]  # pydantic.ValidationError
        return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _parse_fields(filled: Iterable[tuple[InputField, str]]
                  ) -> tuple[dict[str, Any], list[str]]:
    """The values of a form's fields and what is wrong with them, for each field and the text
    it holds: a text field as typed, any other parsed as JSON and checked against its hint.

    The two forms leave out different fields (an empty input field; a blank context JSON field,
    left to the schema's default), so each caller passes only the fields it parses.
    """
    values: dict[str, Any] = {}
    problems: list[str] = []
    for field, text in filled:
        if field.is_text:
            values[field.name] = text
            continue
        try:
            values[field.name] = parse_json(text, field.name)
        except JsonRefused as exc:
            problems.append(str(exc))
            continue
        problems.extend(misfits(field.name, values[field.name], field.hint))
    return values, problems


def parse_settings(fields: list[InputField], typed: dict[str, str],
                   schema: type | None = None) -> dict[str, Any]:
    """The context a filled context form gives: text as typed, JSON fields parsed and checked,
    empty JSON fields left to the schema's default; a dataclass or Pydantic schema is also
    built once from the values, so its own validation speaks before anything runs.

    Raises:
        InputRefused: a value that is not valid JSON, does not fit its type, or that the
            schema refuses; one line naming the key.
    """
    filled = ((field, typed.get(field.name, field.default)) for field in fields)
    values, problems = _parse_fields(
        (field, text) for field, text in filled if field.is_text or text.strip() != "")
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


def parse_input(fields: list[InputField], typed: dict[str, str]) -> dict[str, Any]:
    """The input a filled form gives: empty fields left out, JSON fields parsed and checked.

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

