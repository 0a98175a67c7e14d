"""The one decoder for checkpoint data the playground did not write itself. It never runs code.

LangGraph's ``JsonPlusSerializer`` rebuilds a stored value by importing the module the data names
and calling what it names: msgpack extension codes 0, 1, 2 and 4, 5 (constructors and pydantic
models), ``json`` ``lc`` constructors, and ``pickle`` when allowed. On a database someone else
wrote that is remote code execution (docs/architecture.md, "Untrusted data never runs"): a
blob holding
``("os", "system", ["touch x"])`` runs the command as it is read.

This decoder reads the same bytes into plain data (dicts, lists, strings, numbers, booleans,
None, bytes) and imports nothing. A value stored as a class becomes a dict that keeps the type
name it claims, so a person still sees their values::

    {"__type__": "myapp.models.Order", "id": "o1", "total": 9.5}

What cannot be shown is a marker, never an exception, so one bad value never hides the rest of
a checkpoint::

    {"__type__": "pickle", "__unread__": "pickle, 120 bytes, not opened"}

Work per blob is bounded: a blob over :data:`MAX_BLOB_BYTES`, or nesting deeper than ormsgpack's
limit or :data:`MAX_EXT_DEPTH` extension levels, gives a "too large / too deep to show" marker.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson
import ormsgpack

from playground.timetravel.limits import limits

TYPE_KEY = "__type__"
UNREAD_KEY = "__unread__"

# A blob larger than this is not decoded: msgpack costs about 20 ns a byte of small values, so
# this bounds one blob at well under a second of work and a few hundred MB of Python objects.
MAX_BLOB_BYTES = 32 * 1024 * 1024
# Extension values nest through our own hook (ormsgpack bounds plain arrays and maps itself).
MAX_EXT_DEPTH = 32

# LangGraph's msgpack extension codes (langgraph.checkpoint.serde.jsonplus).
EXT_CONSTRUCTOR_SINGLE_ARG = 0
EXT_CONSTRUCTOR_POS_ARGS = 1
EXT_CONSTRUCTOR_KW_ARGS = 2
EXT_METHOD_SINGLE_ARG = 3
EXT_PYDANTIC_V1 = 4
EXT_PYDANTIC_V2 = 5
EXT_NUMPY_ARRAY = 6
EXT_DELTA_SNAPSHOT = 7
DELTA_SNAPSHOT_TYPE = "langgraph.checkpoint.serde.types._DeltaSnapshot"

_OPTION = ormsgpack.OPT_NON_STR_KEYS


def unread(reason: str, type_name: str | None = None) -> dict[str, str]:
    """A marker for a value that is not shown, with the one line that says why."""
    marker = {UNREAD_KEY: reason}
    if type_name:
        marker = {TYPE_KEY: type_name, **marker}
    return marker


def is_unread(value: Any) -> bool:
    """True for a marker made by :func:`unread`."""
    return isinstance(value, dict) and UNREAD_KEY in value


def type_name(value: Any) -> str | None:
    """The type a decoded value claims (``__type__``), or None for plain data."""
    if isinstance(value, dict):
        name = value.get(TYPE_KEY)
        return name if isinstance(name, str) else None
    return None


def _size(n: int) -> str:
    return f"{n:,} bytes" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"


def _too_large(n: int) -> dict[str, str]:
    return unread(f"too large to show ({_size(n)}; the limit is {_size(MAX_BLOB_BYTES)})")


def _qualified(module: Any, name: Any) -> str | None:
    if isinstance(module, str) and isinstance(name, str) and module and name:
        return f"{module}.{name}"
    return None


def _with_fields(name: str, fields: Any) -> dict[str, Any]:
    """``{"__type__": name, **fields}``; fields that are not a mapping go under ``value``."""
    if isinstance(fields, dict):
        plain = {str(k) if not isinstance(k, str) else k: v for k, v in fields.items()}
        plain.pop(TYPE_KEY, None)  # the claimed type is ours to state, not the payload's
        return {TYPE_KEY: name, **plain}
    return {TYPE_KEY: name, "value": fields}


def _ext_value(code: int, payload: Any, size: int) -> Any:
    """Plain data for one extension value whose payload is already decoded (safely)."""
    malformed = unread(f"msgpack extension {code} with a malformed payload ({_size(size)})")
    if code == EXT_DELTA_SNAPSHOT:
        return {TYPE_KEY: DELTA_SNAPSHOT_TYPE, "value": payload}
    if code == EXT_NUMPY_ARRAY:
        if not isinstance(payload, (list, tuple)) or len(payload) != 4:
            return malformed
        dtype, shape, _order, buffer = payload
        return {TYPE_KEY: "numpy.ndarray", "dtype": dtype, "shape": shape,
                "bytes": len(buffer) if isinstance(buffer, bytes) else None}
    if code not in (EXT_CONSTRUCTOR_SINGLE_ARG, EXT_CONSTRUCTOR_POS_ARGS, EXT_CONSTRUCTOR_KW_ARGS,
                    EXT_METHOD_SINGLE_ARG, EXT_PYDANTIC_V1, EXT_PYDANTIC_V2):
        return unread(f"unknown msgpack extension {code} ({_size(size)})")
    if not isinstance(payload, (list, tuple)) or len(payload) < 3:
        return malformed
    name = _qualified(payload[0], payload[1])
    if name is None:
        return malformed
    argument = payload[2]
    if code in (EXT_CONSTRUCTOR_KW_ARGS, EXT_PYDANTIC_V1, EXT_PYDANTIC_V2):
        return _with_fields(name, argument)
    if code == EXT_CONSTRUCTOR_POS_ARGS:
        if name == "langgraph.types.Send" and isinstance(argument, list) and len(argument) >= 2:
            return {TYPE_KEY: name, "node": argument[0], "arg": argument[1]}
        return {TYPE_KEY: name, "args": argument}
    if name == "uuid.UUID" and isinstance(argument, str) and len(argument) == 32:
        argument = "-".join((argument[:8], argument[8:12], argument[12:16], argument[16:20],
                             argument[20:]))
    return {TYPE_KEY: name, "value": argument}


class _TooManyValues(Exception):
    """A blob decoding into more extension values than the limit allows (aborts the decode)."""


def _ext_hook(depth: int = 0, budget: list[int] | None = None) -> Callable[[int, bytes], Any]:
    # ``budget`` is shared by every hook of one blob: extension values left before the blob is
    # "too large to show". A few bytes each, millions of them fit in a blob under the size
    # limit, and each becomes a dict: gigabytes (a crafted 30 MB blob took 2 GB).
    budget = budget if budget is not None else [limits().max_values]

    def hook(code: int, data: bytes) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TooManyValues
        if depth >= MAX_EXT_DEPTH:
            return unread(f"too deep to show (more than {MAX_EXT_DEPTH} nested objects)")
        try:
            payload = ormsgpack.unpackb(data, ext_hook=_ext_hook(depth + 1, budget),
                                        option=_OPTION)
        except (ValueError, TypeError, RecursionError) as exc:
            if budget[0] < 0:
                raise _TooManyValues from None
            return unread(_msgpack_problem(exc, code, len(data)))
        return _ext_value(code, payload, len(data))

    return hook


def _msgpack_problem(exc: BaseException, code: int | None, size: int) -> str:
    what = f"msgpack extension {code}" if code is not None else "msgpack blob"
    if isinstance(exc, RecursionError) or "recursion" in str(exc).lower():
        return f"too deep to show ({what} nests beyond the decoder's limit)"
    if "end of file" in str(exc):
        # ormsgpack checks a declared length against the bytes left before allocating, so an
        # array that claims billions of elements ends here at once.
        return f"too large to show ({what} declares more values than its {_size(size)} hold)"
    return f"{what} could not be decoded ({_size(size)}: {exc})"


def decode_msgpack(blob: bytes) -> Any:
    """Decode msgpack bytes into plain data; extension values become ``__type__`` dicts."""
    if len(blob) > MAX_BLOB_BYTES:
        return _too_large(len(blob))
    budget = [limits().max_values]
    try:
        return ormsgpack.unpackb(blob, ext_hook=_ext_hook(0, budget), option=_OPTION)
    except (ValueError, TypeError, RecursionError, _TooManyValues) as exc:
        if budget[0] < 0:  # ormsgpack reports a hook's exception as a ValueError
            return unread(f"too large to show (more than {limits().max_values:,} objects in "
                          f"{_size(len(blob))})")
        return unread(_msgpack_problem(exc, None, len(blob)))


def _lc_object(value: dict) -> Any:
    # LangChain's json envelope {"lc": 1|2, "type": "constructor", "id": [..., "AIMessage"],
    # "kwargs": {...}}: shown as the data it carries, never constructed.
    if "lc" not in value:  # most objects: the hook runs on every one
        return value
    if value.get("lc") == 2 and value.get("type") == "undefined" and len(value) == 2:
        return None  # LangChain.js's way of storing `undefined` (a ToolMessage's artifact)
    ids = value.get("id")
    if value.get("type") not in ("constructor", "secret", "not_implemented") or not (
        isinstance(ids, list) and ids and all(isinstance(part, str) for part in ids)
    ) or "lc" not in value:
        return value
    name = ".".join(ids)
    if value["type"] == "secret":
        return unread("a secret, not shown", name)
    if value["type"] == "not_implemented":
        return unread(f"not serializable when stored: {value.get('repr', '')}"[:300], name)
    fields = dict(value.get("kwargs") or {})
    if value.get("args"):
        fields["args"] = value["args"]
    return _with_fields(name, fields)


def decode_json(blob: bytes | str, *, lc_objects: bool = True) -> Any:
    """Decode JSON into plain data; LangChain ``lc`` envelopes become ``__type__`` dicts."""
    if len(blob) > MAX_BLOB_BYTES:
        return _too_large(len(blob))
    if not (lc_objects and (b'"lc"' if isinstance(blob, bytes) else '"lc"') in blob):
        # No envelope to unwrap: orjson, several times faster (a LangGraph.js checkpoint of
        # plain values). It refuses what json reads (integers past 64 bits, nesting past
        # 1,024): those go the slow way below.
        try:
            return orjson.loads(blob)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(blob, object_hook=_lc_object if lc_objects else None)
    except RecursionError:
        return unread("too deep to show (JSON nests beyond the decoder's limit)")
    except (ValueError, TypeError) as exc:
        return unread(f"JSON that could not be decoded ({_size(len(blob))}: {exc})")


def decode_typed(type_: str | None, blob: bytes | str | None) -> Any:
    """Decode one stored ``(type, bytes)`` pair, as a saver's serializer would, but safely.

    Args:
        type_: the saver's type tag: ``msgpack``, ``json``, ``null``, ``bytes``, ``bytearray``,
            ``pickle``, or anything else a database holds.
        blob: the stored bytes.

    Returns:
        Plain data, or a marker from :func:`unread` (pickle, an unknown type, a broken or
        oversized blob). Never raises for what the data holds.
    """
    if type_ in (None, "null", "empty") or blob is None:
        return None
    if isinstance(blob, str):
        blob = blob.encode()
    if type_ == "msgpack":
        return decode_msgpack(bytes(blob))
    if type_ == "json":
        return decode_json(bytes(blob))
    if type_ in ("bytes", "bytearray"):
        return bytes(blob)
    if type_ == "pickle":
        return unread(f"pickle, {_size(len(blob))}, not opened", "pickle")
    return unread(f"stored as {type_!r}, which this tool does not read ({_size(len(blob))})")


def decode_checkpoint(type_: str | None, blob: bytes | None) -> tuple[dict, str | None]:
    """Decode a checkpoint blob, which must be a mapping.

    Returns:
        ``(checkpoint, None)``, or ``({}, reason)`` with one line saying why it cannot be read.
    """
    if blob is None:
        return {}, None
    value = decode_typed(type_ or "msgpack", blob)
    if is_unread(value):
        return {}, f"checkpoint not readable: {value[UNREAD_KEY]}"
    if not isinstance(value, dict):
        kind = type(value).__name__
        return {}, f"checkpoint not readable: the blob holds a {kind}, not a mapping"
    return value, None


_FIRST_KEYS = 4  # LangGraph writes v, ts and id first; look no further for ts
# Python's LangGraph begins every msgpack checkpoint the same way: a map, "v" and a small
# integer, then "ts" and its time as a 32-byte str8 (ISO, microseconds, +00:00).
TS_HEAD_BYTES = 41  # where that time ends
_TS_AT = slice(9, TS_HEAD_BYTES)
_V_KEY, _TS_KEY = b"\xa1v", b"\xa2ts\xd9 "  # "v"; "ts" and a 32-byte str8's header


def ts_at_head(head: bytes | None) -> str | None:
    """The ``ts`` of a checkpoint that begins exactly as Python's LangGraph writes one, read at
    its fixed place in the blob's first :data:`TS_HEAD_BYTES` bytes; None for any other blob
    (:func:`checkpoint_time` reads those). Bytes that are not UTF-8 come back replaced, and
    never parse as a time."""
    if head is None or head[4:9] != _TS_KEY or head[1:3] != _V_KEY \
            or len(head) < TS_HEAD_BYTES or not 0x80 <= head[0] <= 0x8F:
        return None
    return head[_TS_AT].decode("utf-8", "replace")


def checkpoint_time(type_: str | None, blob: bytes | None) -> str | None:
    """A checkpoint blob's ``ts`` without decoding its values, or None when the blob does not
    begin as LangGraph writes one (then :func:`decode_checkpoint` is the way to read it).

    A msgpack checkpoint is a map whose first keys are ``v``, ``ts`` and ``id``: only those
    are read, as plain integers and strings, so a timeline of 10,000 checkpoints never decodes
    their values. A JSON checkpoint (LangGraph.js) is parsed whole: it holds no extension types.
    """
    if not blob:
        return None
    if type_ == "json":
        try:
            value = orjson.loads(blob)
        except orjson.JSONDecodeError:
            return None
        found = value.get("ts") if isinstance(value, dict) else None
        return found if isinstance(found, str) else None
    if type_ not in (None, "msgpack"):
        return None
    found = ts_at_head(blob[:TS_HEAD_BYTES])
    if found is not None:
        return found
    try:
        return _msgpack_ts(memoryview(blob))
    except IndexError:  # a blob cut short
        return None


def _msgpack_ts(data: memoryview) -> str | None:
    head = data[0]
    if 0x80 <= head <= 0x8F:
        count, pos = head & 0x0F, 1
    elif head == 0xDE:
        count, pos = int.from_bytes(data[1:3]), 3
    elif head == 0xDF:
        count, pos = int.from_bytes(data[1:5]), 5
    else:
        return None
    for _ in range(min(count, _FIRST_KEYS)):
        key, pos = _msgpack_str(data, pos)
        if key is None:
            return None
        if key == "ts":
            return _msgpack_str(data, pos)[0]
        pos = _msgpack_skip_scalar(data, pos)
        if pos is None:
            return None
    return None


def _msgpack_str(data: memoryview, pos: int) -> tuple[str | None, int]:
    head = data[pos]
    if 0xA0 <= head <= 0xBF:
        size, pos = head & 0x1F, pos + 1
    elif head == 0xD9:
        size, pos = data[pos + 1], pos + 2
    elif head == 0xDA:
        size, pos = int.from_bytes(data[pos + 1:pos + 3]), pos + 3
    else:
        return None, pos
    if pos + size > len(data):
        return None, pos
    try:
        return bytes(data[pos:pos + size]).decode("utf-8"), pos + size
    except UnicodeDecodeError:
        return None, pos


# The sizes of what follows a msgpack integer's or float's first byte.
_SCALAR_SIZES = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8,
                 0xCA: 4, 0xCB: 8, 0xC0: 0, 0xC2: 0, 0xC3: 0}


def _msgpack_skip_scalar(data: memoryview, pos: int) -> int | None:
    """Past one integer, float, nil, boolean or string; None for anything else."""
    head = data[pos]
    if head <= 0x7F or head >= 0xE0:
        return pos + 1
    if head in _SCALAR_SIZES:
        return pos + 1 + _SCALAR_SIZES[head]
    text, end = _msgpack_str(data, pos)
    return end if text is not None else None


# versions_seen["__interrupt__"] of a msgpack checkpoint: the key as a 13-byte fixstr.
_INTERRUPT_SEEN_KEY = b"\xad__interrupt__"
RESUME_TAIL_BYTES = 65_536  # where a blob's versions_seen is looked for: its last bytes


def interrupt_seen(type_: str | None, blob: bytes | None) -> bytes | dict | None:
    """A checkpoint's ``versions_seen["__interrupt__"]`` as a value that is equal between two
    checkpoints exactly when the mark is the same, or None where it has none or it cannot be
    read so.

    LangGraph's loop, when a run resumes (input None or a ``Command``), copies the channel
    versions into it (verified on LangGraph 1.2.24), so the first checkpoint a resumed run
    writes holds another one than its parent; every other checkpoint copies its parent's as it
    is, bytes and order alike. A msgpack blob is not decoded: the key is looked for from the end
    (``versions_seen`` follows the values), and the bytes of its map of strings and numbers are
    the value (anything else there, an extension type say, is None; nothing is ever built from
    them). ``blob`` may be the blob's last bytes only. A JSON blob (LangGraph.js) is parsed
    whole and gives the map itself.
    """
    if not blob:
        return None
    if type_ == "json":
        value = bounded_json_loads(blob)
        seen = value.get("versions_seen") if isinstance(value, dict) else None
        found = seen.get("__interrupt__") if isinstance(seen, dict) else None
        return found if isinstance(found, dict) else None
    if type_ not in (None, "msgpack"):
        return None
    at = blob.rfind(_INTERRUPT_SEEN_KEY)
    if at < 0:
        return None
    start = pos = at + len(_INTERRUPT_SEEN_KEY)
    sizes, size = _SCALAR_SIZES, len(blob)
    try:
        head = blob[pos]
        if 0x80 <= head <= 0x8F:
            count, pos = head & 0x0F, pos + 1
        elif head == 0xDE:
            count, pos = int.from_bytes(blob[pos + 1:pos + 3]), pos + 3
        else:
            return None
        for _ in range(2 * count):  # keys and values: strings and numbers only, skipped
            byte = blob[pos]
            if 0xA0 <= byte <= 0xBF:
                pos += 1 + (byte & 0x1F)
            elif byte == 0xD9:
                pos += 2 + blob[pos + 1]
            elif byte <= 0x7F or byte >= 0xE0:
                pos += 1
            elif byte in sizes:
                pos += 1 + sizes[byte]
            else:
                return None
    except IndexError:  # cut short
        return None
    return blob[start:pos] if pos <= size else None


def bounded_json_loads(data: bytes | str) -> Any:
    """``json.loads`` for JSONB columns that never raises: a marker for what it cannot read.

    LangChain envelopes are left as they are: JSONB holds LangGraph's own bookkeeping.
    """
    return decode_json(data, lc_objects=False)


def to_jsonable(value: Any, *, bytes_preview: int = 0, _depth: int = 0) -> Any:
    """Decoded data as JSON-ready data: bytes become a short marker, tuples lists, keys text.

    Nesting deeper than the ``max_depth`` limit becomes a "too deep to show" marker: a value
    from a database may nest as deep as its bytes allow, and every page, diff and export that
    walks it recursively would fail past Python's recursion limit.

    Args:
        value: what a decode function returned.
        bytes_preview: bytes of a binary value to show as hex (0: only its length).
    """
    if isinstance(value, (dict, list, tuple)) and _depth >= limits().max_depth:
        return too_deep()
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): to_jsonable(
            v, bytes_preview=bytes_preview, _depth=_depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v, bytes_preview=bytes_preview, _depth=_depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray)):
        shown = {TYPE_KEY: "bytes", "length": len(value)}
        if bytes_preview:
            shown["hex"] = bytes(value[:bytes_preview]).hex()
        return shown
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return "NaN"
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)  # only reached for values handed in by a trusted saver


def too_deep() -> dict[str, str]:
    """The marker for a value nested deeper than the ``max_depth`` limit."""
    return unread(f"too deep to show (nested more than {limits().max_depth} levels)")
