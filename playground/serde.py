"""The serializer a graph run by the playground checkpoints with: an explicit allowlist.

LangGraph's ``JsonPlusSerializer``, made without arguments, is permissive: reading a checkpoint
imports and calls any class the data names (docs/architecture.md, "Untrusted data never
runs"). A graph the
playground runs gets a serializer that rebuilds only LangGraph's own safe types
(``SAFE_MSGPACK_TYPES``: datetimes, UUIDs, sets, LangChain messages, ``Send``, ``Interrupt``...)
plus the classes that graph's state schema declares. Anything else in a checkpoint comes back as
its plain payload.

Reading a database for display never goes through here: that is ``timetravel.decode``.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import typing
from collections.abc import Iterable

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer


def graph_serde(types: Iterable[type] = ()) -> JsonPlusSerializer:
    """A serializer that rebuilds LangGraph's safe types and these classes, nothing else.

    Args:
        types: classes the graph's state holds (pydantic models, dataclasses, enums...), as
            :func:`state_types` finds them.
    """
    allowed = tuple(sorted({(t.__module__, t.__qualname__) for t in types}))
    # An empty allowlist is None: LangGraph's strict mode, SAFE_MSGPACK_TYPES only.
    return JsonPlusSerializer(allowed_msgpack_modules=allowed or None)


def _is_app_class(candidate: object) -> bool:
    if not isinstance(candidate, type) or candidate.__module__ in ("builtins", "typing"):
        return False
    return (
        dataclasses.is_dataclass(candidate)
        or issubclass(candidate, enum.Enum)
        or hasattr(candidate, "model_dump")  # pydantic v2
        or hasattr(candidate, "__fields__")  # pydantic v1
        or (issubclass(candidate, tuple) and hasattr(candidate, "_fields"))  # NamedTuple
    )


def _hints(cls: type) -> dict[str, object]:
    try:
        module = sys.modules.get(cls.__module__)
        return typing.get_type_hints(cls, globalns=vars(module) if module else None,
                                     include_extras=True)
    except Exception:  # an annotation that does not resolve here: use what is written
        return dict(getattr(cls, "__annotations__", {}))


def state_types(schema: object, limit: int = 200) -> tuple[type, ...]:
    """The classes a state schema can hold, found through its type hints.

    Walks the schema's fields, and generics inside them (``list[Order]``, ``Order | None``,
    ``Annotated[list[Item], add]``), and the fields of each class found, to ``limit`` classes.
    """
    found: list[type] = []
    seen: set[int] = set()
    pending: list[object] = [schema]
    while pending and len(found) < limit:
        hint = pending.pop()
        if id(hint) in seen:
            continue
        seen.add(id(hint))
        pending.extend(typing.get_args(hint))
        origin = typing.get_origin(hint)
        if origin is not None:
            pending.append(origin)
            continue
        if not isinstance(hint, type):
            continue
        if _is_app_class(hint):
            found.append(hint)
        if hint is schema or _is_app_class(hint) or typing.is_typeddict(hint):
            pending.extend(_hints(hint).values())
    return tuple(found)
