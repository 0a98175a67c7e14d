"""Decoding checkpoint blobs, two ways.

``decode_for_structure`` reads only what the tree needs (versions, timestamps) and never builds the
app's own classes: msgpack extension values become :class:`Opaque` markers. That is fast, and safe
on a database from an app whose code is not installed here. ``decode_values`` uses LangGraph's
serializer to show real values, and falls back to the safe decoding when it cannot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import ormsgpack
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

_SERDE = JsonPlusSerializer()


@dataclass(frozen=True)
class Opaque:
    """A value stored as a msgpack extension (an app's own class), not rebuilt here."""

    code: int
    size: int

    def __repr__(self) -> str:
        return f"<object, {self.size} bytes>"


# jsonplus's extension code for "call this constructor with one argument" (set, frozenset, ...).
_EXT_CONSTRUCTOR_SINGLE_ARG = 0
_SAFE_BUILTINS = {"set": set, "frozenset": frozenset, "tuple": tuple}


def _opaque(code: int, data: bytes) -> object:
    # Rebuild only builtin containers (a join barrier's set of seen nodes lives in one); any
    # other class stays opaque, so no module of the inspected app is ever imported.
    if code == _EXT_CONSTRUCTOR_SINGLE_ARG:
        try:
            module, name, arg = ormsgpack.unpackb(data, ext_hook=_opaque)
        except (ValueError, TypeError):
            return Opaque(code, len(data))
        if module == "builtins" and name in _SAFE_BUILTINS and isinstance(arg, list):
            try:
                return _SAFE_BUILTINS[name](arg)
            except TypeError:  # unhashable members
                return Opaque(code, len(data))
    return Opaque(code, len(data))


def decode_for_structure(type_: str | None, blob: bytes | None) -> dict:
    """Decode a checkpoint blob without rebuilding custom classes.

    Raises:
        ValueError: when the blob is neither msgpack nor JSON.
    """
    if blob is None:
        return {}
    if type_ == "msgpack":
        value = ormsgpack.unpackb(blob, ext_hook=_opaque)
    elif type_ == "json":
        value = json.loads(blob)
    else:
        raise ValueError(f"checkpoint stored as {type_!r}, which this tool cannot read")
    if not isinstance(value, dict):
        raise ValueError("checkpoint blob is not a mapping")
    return value


def decode_values(type_: str | None, blob: bytes | None) -> dict[str, Any]:
    """Decode a blob with LangGraph's serializer; fall back to :func:`decode_for_structure`."""
    if blob is None:
        return {}
    try:
        return _SERDE.loads_typed((type_ or "msgpack", blob))
    except Exception:  # an app class that is not importable here: show it opaque
        return decode_for_structure(type_, blob)


def decode_write(type_: str | None, blob: bytes | None) -> Any:
    """Decode one pending write's value, opaque when it cannot be rebuilt."""
    if type_ in (None, "null") or blob is None:
        return None
    try:
        return _SERDE.loads_typed((type_, blob))
    except Exception:
        try:
            return ormsgpack.unpackb(blob, ext_hook=_opaque)
        except Exception:
            return Opaque(-1, len(blob))
