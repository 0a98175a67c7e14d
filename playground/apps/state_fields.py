"""What a graph's state accepts: its keys, their type hints, and an edit checked against them.

``update_state`` drops keys that are not in the state schema without an error
(docs/architecture.md), and it writes whatever value it is given. A typo typed into the
playground would then produce a new checkpoint that looks like an edit and changes nothing. So
every edit is validated here first (:func:`validate_edit`), and a refused edit writes no
checkpoint; the commands that write one are in :mod:`playground.runtime.time_travel`. The input
forms (:mod:`playground.apps.inputs`) check their fields with the same hints.
"""

from __future__ import annotations

import contextlib
import difflib
import types
import typing
from collections.abc import Callable, Mapping
from inspect import Parameter, signature
from typing import Annotated, Any, Literal, Union

from playground.apps.json_text import EXAMPLE


class EditRefused(ValueError):
    """An edit that was not written, with what is wrong and what to do instead."""


def state_fields(graph: Any) -> dict[str, Any]:
    """List the keys an edit may set, with their type hints.

    Args:
        graph: a compiled graph.

    Returns:
        Each state key and its type hint (with ``Annotated`` kept, so reducers are visible).
        Keys of a graph without a state schema map to ``Any``: they come from its channels.
    """
    builder = getattr(graph, "builder", None)
    schema = getattr(builder, "state_schema", None)
    if schema is not None and (hints := schema_hints(schema)):
        # Managed values (IsLastStep, RemainingSteps) are computed by LangGraph each step; an
        # edit of one would be dropped, so it is no key an edit may set.
        managed = set(getattr(builder, "managed", None) or ())
        return {key: hint for key, hint in hints.items() if key not in managed}
    # Graphs built without a StateGraph (a bare Pregel, the functional API) have channels only;
    # "__start__", "__pregel_tasks" and "branch:to:<node>" are LangGraph's own bookkeeping.
    return {
        name: Any
        for name in graph.channels
        if not name.startswith("__") and not name.startswith("branch:")
    }


def delta_reducers(graph: Any) -> dict[str, Callable[..., Any] | str]:
    """The reducers of a graph's DeltaChannels (its own and its subgraphs'), by state key, for
    the engine's rebuild of their values (``Storage.reducers``): LangGraph's own messages
    reducer as :data:`~playground.timetravel.delta.MESSAGES_REDUCER`, which the engine folds
    itself on decoded messages; any other as the graph's function, which the person named by
    naming the graph.

    Args:
        graph: a compiled graph (or anything without channels: then none).
    """
    from langgraph.channels.delta import DeltaChannel
    from langgraph.graph.message import _messages_delta_reducer

    from playground.timetravel.delta import MESSAGES_REDUCER

    graphs = [graph]
    # A graph that is not a Pregel (a server's, a stand-in) has no subgraphs to list.
    with contextlib.suppress(Exception):
        graphs += [sub for _, sub in graph.get_subgraphs(recurse=True)]
    found: dict[str, Callable[..., Any] | str] = {}
    for each in graphs:
        for name, channel in (getattr(each, "channels", None) or {}).items():
            if isinstance(channel, DeltaChannel) and name not in found:
                found[name] = (MESSAGES_REDUCER if channel.reducer is _messages_delta_reducer
                               else channel.reducer)
    return found


def graph_nodes(graph: Any) -> list[str]:
    """The names ``as_node`` accepts: the graph's nodes, ``__start__`` included.

    ``__start__`` is a node of every compiled StateGraph; an edit as ``__start__`` acts like new
    input, so ``next`` becomes the entry node (verified with langgraph 1.2.24).
    """
    return list(graph.nodes)


def validate_edit(graph: Any, values: Mapping[str, Any], as_node: str | None = None) -> None:
    """Check an edit before anything is written.

    Args:
        graph: the compiled graph the edit is for.
        values: state keys and their new values.
        as_node: the node the edit acts as, or None to let LangGraph infer the last writer.

    Raises:
        EditRefused: for an empty edit, an ``as_node`` that is not a node of the graph, keys not
            in the state, or values that do not fit a key's type hint.
    """
    fields = state_fields(graph)
    known = ", ".join(fields)
    if not isinstance(values, Mapping):
        raise EditRefused(
            f"an edit maps state keys to values, got {type(values).__name__}: "
            f"give an object such as {EXAMPLE}"
        )
    if not values:
        raise EditRefused(f"empty edit: set at least one of {known}")
    # LangGraph also takes the pseudo-nodes "__copy__" (copies the checkpoint and drops the values:
    # verified, the edit is lost), "__input__" (the edit becomes new input) and "__end__" (with
    # values None only: clears the tasks); pregel/main.py bulk_update_state. None of them edits
    # the state, and none is in graph.nodes, so checking graph.nodes refuses them.
    if as_node is not None and as_node not in graph_nodes(graph):
        raise EditRefused(
            f"unknown node {as_node!r} for as_node: the graph has {', '.join(graph_nodes(graph))} "
            "(or leave as_node empty to act as the last node that wrote)"
        )
    unknown = [key for key in values if key not in fields]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        noun = "key" if len(unknown) == 1 else "keys"
        hint = _did_you_mean(unknown, list(fields))
        raise EditRefused(f"unknown {noun} {names}: the state has {known}{hint}")
    problems: list[str] = []
    for key, value in values.items():
        problems.extend(misfits(key, value, fields[key]))
    if problems:
        raise EditRefused("; ".join(problems))


# --- type hints -----------------------------------------------------------------------------


def schema_hints(schema: type) -> dict[str, Any]:
    """A schema's public fields and their hints (``Annotated`` kept), in declaration order."""
    try:
        hints = typing.get_type_hints(schema, include_extras=True)
    except Exception:  # a forward reference that does not resolve: keep the names, check nothing
        hints = dict.fromkeys(getattr(schema, "__annotations__", {}), Any)
    return {
        name: hint
        for name, hint in hints.items()
        if not name.startswith("_") and typing.get_origin(hint) is not typing.ClassVar
    }


def is_text_hint(hint: Any) -> bool:
    """Whether a field of this type is typed as plain text, what is typed being the string:
    ``str``, ``str | None``, a ``Literal`` of strings (``'low' | 'high'``), tagged or not
    (``Annotated``; a reducer's right-hand type when it declares one).

    Any other type (``int``, ``dict``, ``list``, messages) is typed as JSON, and so is one
    that says nothing (``Any``, a forward reference that does not resolve): text typed there
    may be meant as a number or an object.
    """
    hint = _value_hint(hint)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Annotated:
        return is_text_hint(args[0])
    if origin is Literal:
        return bool(args) and all(isinstance(choice, str) for choice in args)
    if origin is Union or origin is types.UnionType:
        members = [member for member in args if member is not type(None)]
        return bool(members) and all(is_text_hint(member) for member in members)
    return hint is str


def allows_none(hint: Any) -> bool:
    """Whether a field of this type may hold None (``str | None``, ``Optional[str]``): a text
    field then has a "null" choice beside its box, since an empty box is the empty string."""
    hint = _value_hint(hint)
    origin = typing.get_origin(hint)
    if origin is Annotated:
        return allows_none(typing.get_args(hint)[0])
    if origin is Union or origin is types.UnionType:
        return any(allows_none(member) for member in typing.get_args(hint))
    return hint is None or hint is type(None) or hint is Any


# A value of each JSON-typed kind as a person types it, for a refusal's "like ...".
_JSON_EXAMPLES = {int: "3", float: "0.5", bool: "true", list: '["a"]', dict: '{"a": 1}'}


def typed_as_json(hint: Any) -> str:
    """How a field of this type is typed, for the end of a refusal of text that is not JSON:
    ``dict | None is typed as JSON, like {"a": 1}``. A type that says nothing (``Any``) may
    hold a string: that one is typed in quotes."""
    kind = describe_hint(hint)
    inner = _value_hint(hint)
    while typing.get_origin(inner) in (Annotated, Union, types.UnionType):
        inner = next((arg for arg in typing.get_args(inner) if arg is not type(None)), Any)
    example = _JSON_EXAMPLES.get(typing.get_origin(inner) or inner)
    if typing.is_typeddict(inner):
        example = _JSON_EXAMPLES[dict]
    if example is None:
        return 'this field takes JSON: a string in quotes, like "high"'
    return f"{kind} is typed as JSON, like {example}"


def _value_hint(hint: Any) -> Any:
    """The type an update value must have: a reducer's right-hand argument, else the field's."""
    if typing.get_origin(hint) is not Annotated:
        return hint
    inner, *metadata = typing.get_args(hint)
    reducer = metadata[-1] if metadata else None
    # LangGraph treats a last metadata item taking two positional arguments as the reducer
    # (graph/state.py _is_field_binop). add_messages takes one message as well as a list.
    if callable(reducer) and (right := _reducer_right_hint(reducer)) is not None:
        return right
    return inner


def _reducer_right_hint(reducer: Callable[..., Any]) -> Any | None:
    try:
        params = [
            p
            for p in signature(reducer).parameters.values()
            if p.kind in (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)
        ]
        hints = typing.get_type_hints(reducer, include_extras=True)
    except Exception:  # builtins such as operator.add have no signature hints
        return None
    if len(params) != 2:
        return None
    return hints.get(params[1].name)


def misfits(path: str, value: Any, hint: Any) -> list[str]:
    """Why a value written to a field does not fit it (empty when it fits or is not checked).

    A field with a reducer takes what the reducer's right side takes (``add_messages`` takes
    one message as well as a list).
    """
    return _misfits(path, value, _value_hint(hint))


def _misfits(path: str, value: Any, hint: Any) -> list[str]:
    """Why ``value`` does not fit ``hint`` (empty when it fits or cannot be checked)."""
    if _fits(value, hint):
        return []
    origin = typing.get_origin(hint)
    # Point inside a container when only some elements are wrong.
    if origin is list and isinstance(value, list) and typing.get_args(hint):
        (item_hint,) = typing.get_args(hint)
        return [
            problem
            for index, item in enumerate(value)
            for problem in _misfits(f"{path}[{index}]", item, item_hint)
        ]
    if origin is dict and isinstance(value, dict) and len(typing.get_args(hint)) == 2:
        _, item_hint = typing.get_args(hint)
        return [
            problem
            for key, item in value.items()
            for problem in _misfits(f"{path}.{key}", item, item_hint)
        ]
    expected = describe_hint(hint)
    return [f"wrong type for {path!r}: expected {expected}, got {value!r} ({_kind(value)})"]


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` fits ``hint``; hints that cannot be checked accept anything."""
    if hint is Any or isinstance(hint, typing.TypeVar | typing.ForwardRef | str):
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Annotated:
        return _fits(value, args[0])
    if origin is Union or origin is types.UnionType:
        return any(_fits(value, member) for member in args)
    if origin is Literal:
        # type check too: Literal[1] must not accept True, though 1 == True
        return any(value == choice and type(value) is type(choice) for choice in args)
    if origin is list:
        return isinstance(value, list) and (not args or all(_fits(item, args[0]) for item in value))
    if origin is dict:
        return isinstance(value, dict) and (
            len(args) != 2 or all(_fits(k, args[0]) and _fits(v, args[1]) for k, v in value.items())
        )
    if origin is not None:
        return True  # tuple[...], set[...], Callable[...] and the like: not checked
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint in (str, dict, list):
        return isinstance(value, hint)
    if typing.is_typeddict(hint):
        return isinstance(value, dict)
    return True  # classes (messages, models): LangGraph or the reducer may coerce a JSON value


def describe_hint(hint: Any) -> str:
    """A type hint in the words a form shows: ``str | None``, ``'low' | 'high'``, ``list[str]``."""
    if hint is type(None) or hint is None:
        return "None"
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Annotated:
        return describe_hint(args[0])
    if origin is Union or origin is types.UnionType:
        if all(_is_message_class(member) for member in args):
            return "message"  # AnyMessage: a dozen message classes a person reads as one
        return " | ".join(describe_hint(member) for member in args)
    if origin is Literal:
        return " | ".join(repr(choice) for choice in args)
    if origin is not None and args:
        return f"{getattr(origin, '__name__', str(origin))}[{', '.join(map(describe_hint, args))}]"
    return getattr(hint, "__name__", str(hint).replace("typing.", ""))


def _is_message_class(hint: Any) -> bool:
    """A LangChain message class (``HumanMessage``, ``AIMessageChunk``...), even tagged."""
    from langchain_core.messages import BaseMessage

    if typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    return isinstance(hint, type) and issubclass(hint, BaseMessage)


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def _did_you_mean(unknown: list[str], fields: list[str]) -> str:
    matches = {
        key: match[0]
        for key in unknown
        if (match := difflib.get_close_matches(str(key), fields, n=1))
    }
    if not matches:
        return ""
    if len(unknown) == 1:
        return f" (did you mean {next(iter(matches.values()))!r}?)"
    guesses = ", ".join(f"{match!r} for {key!r}" for key, match in matches.items())
    return f" (did you mean {guesses}?)"
