"""msgpack read by its framing only: where each value starts and ends, never what it holds.

A clone moves stored values between savers that lay them out differently (a SqliteSaver blob
holds a checkpoint with every channel value inline, PostgresSaver keeps each value apart). msgpack
is concatenative: a map is its header, then each key's bytes and each value's bytes one after the
other. So a checkpoint's values can be cut out of one blob, and a blob built from values already
encoded, by reading only the type bytes and lengths of the framing: an extension value (an app's
class, a LangChain message) is skipped by its length and its payload is never looked at, let alone
decoded (docs/architecture.md, "Untrusted data never runs").

Every function here raises :class:`NotMsgpack` on bytes that do not frame as msgpack; none
recurses, so a deeply nested value costs a loop, never Python's stack.
"""

from __future__ import annotations

import ormsgpack

__all__ = [
    "NotMsgpack",
    "bin_of",
    "ext_code",
    "is_bin",
    "is_scalar",
    "map_header",
    "map_items",
    "packed_map",
    "value_end",
]

# What follows a first byte, for the types whose size the first byte fixes: nil, false, true,
# the integers, the floats and the fixext types (whose size counts their type byte).
_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,
          0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}
# str, bin and ext whose length follows the first byte in 1, 2 or 4 bytes (ext: then its type
# byte, counted as the one extra byte).
_SIZED = {0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0), 0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0),
          0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1)}
# array16/32 and map16/32: the count follows in 2 or 4 bytes; a map's entries are two values.
_COUNTED = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}
_EXT_HEADS = {0xD4: 1, 0xD5: 1, 0xD6: 1, 0xD7: 1, 0xD8: 1, 0xC7: 2, 0xC8: 3, 0xC9: 5}


class NotMsgpack(ValueError):
    """Bytes that do not frame as msgpack (cut short, or a byte msgpack never uses)."""


def value_end(data: bytes, pos: int = 0) -> int:
    """Where the msgpack value that starts at ``pos`` ends (the index just past it).

    Raises:
        NotMsgpack: the bytes end before the value does, or hold the unused byte 0xC1.
    """
    size = len(data)
    pending = 1
    try:
        while pending:
            pending -= 1
            head = data[pos]
            if head <= 0x7F or head >= 0xE0:
                pos += 1
            elif head <= 0x8F:  # fixmap
                pending += 2 * (head & 0x0F)
                pos += 1
            elif head <= 0x9F:  # fixarray
                pending += head & 0x0F
                pos += 1
            elif head <= 0xBF:  # fixstr
                pos += 1 + (head & 0x1F)
            elif head in _FIXED:
                pos += 1 + _FIXED[head]
            elif head in _SIZED:
                width, extra = _SIZED[head]
                pos += 1 + width + extra + int.from_bytes(data[pos + 1:pos + 1 + width])
            elif head in _COUNTED:
                width, per_entry = _COUNTED[head]
                pending += per_entry * int.from_bytes(data[pos + 1:pos + 1 + width])
                pos += 1 + width
            else:
                raise NotMsgpack(f"byte 0x{head:02X} at {pos} is not msgpack")
    except IndexError:
        raise NotMsgpack("the bytes end inside a value") from None
    if pos > size:
        raise NotMsgpack("the bytes end inside a value")
    return pos


def _map_count(data: bytes, pos: int) -> tuple[int, int]:
    """(entries, where the first key starts) of the map at ``pos``."""
    try:
        head = data[pos]
    except IndexError:
        raise NotMsgpack("no map: the bytes are empty") from None
    if 0x80 <= head <= 0x8F:
        return head & 0x0F, pos + 1
    if head in (0xDE, 0xDF):
        width = 2 if head == 0xDE else 4
        if pos + 1 + width > len(data):
            raise NotMsgpack("the bytes end inside a map's header")
        return int.from_bytes(data[pos + 1:pos + 1 + width]), pos + 1 + width
    raise NotMsgpack(f"byte 0x{head:02X} at {pos} does not start a map")


def _key_at(data: bytes, pos: int) -> tuple[str, int]:
    """A map key that is a string: (its text, where its value starts)."""
    head = data[pos]
    if 0xA0 <= head <= 0xBF:
        size, start = head & 0x1F, pos + 1
    elif head in (0xD9, 0xDA, 0xDB):
        width = _SIZED[head][0]
        size, start = int.from_bytes(data[pos + 1:pos + 1 + width]), pos + 1 + width
    else:
        raise NotMsgpack(f"a map key at {pos} is not a string")
    if start + size > len(data):
        raise NotMsgpack("the bytes end inside a map key")
    try:
        return data[start:start + size].decode("utf-8"), start + size
    except UnicodeDecodeError:
        raise NotMsgpack(f"the map key at {pos} is not UTF-8") from None


def map_items(data: bytes, pos: int = 0) -> list[tuple[str, int, int]]:
    """The entries of the map at ``pos`` whose keys are strings: ``(key, value start, value
    end)`` each, in stored order; the values are located, not read.

    Raises:
        NotMsgpack: not a map, a key that is not a string, or bytes cut short.
    """
    count, pos = _map_count(data, pos)
    found = []
    for _ in range(count):
        try:
            key, start = _key_at(data, pos)
        except IndexError:
            raise NotMsgpack("the bytes end inside a map") from None
        pos = value_end(data, start)
        found.append((key, start, pos))
    return found


def map_header(count: int) -> bytes:
    """The header of a map of ``count`` entries, as msgpack (and ormsgpack) writes it."""
    if count < 16:
        return bytes((0x80 | count,))
    if count < 1 << 16:
        return b"\xde" + count.to_bytes(2)
    return b"\xdf" + count.to_bytes(4)


def packed_map(entries: list[tuple[str, bytes]]) -> bytes:
    """A map of string keys to values already encoded (each value's bytes as they are)."""
    return map_header(len(entries)) + b"".join(
        ormsgpack.packb(key) + value for key, value in entries)


def is_scalar(value: bytes) -> bool:
    """Whether an encoded value is nil, a boolean, a number or a string: a value that holds
    nothing else, which reading can never turn into an object."""
    head = value[0] if value else 0xC1
    return (head <= 0x7F or head >= 0xE0 or 0xA0 <= head <= 0xBF
            or head in (0xC0, 0xC2, 0xC3, 0xD9, 0xDA, 0xDB) or 0xCA <= head <= 0xD3)


def is_bin(value: bytes) -> bool:
    """Whether an encoded value is msgpack bin (Python ``bytes``)."""
    return bool(value) and value[0] in (0xC4, 0xC5, 0xC6)


def ext_code(value: bytes) -> int | None:
    """The extension type code of an encoded extension value, or None for any other value."""
    if not value or value[0] not in _EXT_HEADS:
        return None
    at = _EXT_HEADS[value[0]]
    return value[at] if at < len(value) else None


def bin_of(raw: bytes) -> bytes:
    """``raw`` as a msgpack bin value (a SqliteSaver blob holds ``bytes`` values so)."""
    return ormsgpack.packb(bytes(raw))
