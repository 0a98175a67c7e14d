"""A thread's rows in no saver's layout: what a clone carries from one kind of place to another.

SqliteSaver and PostgresSaver store the same checkpoint differently. SqliteSaver writes it as one
msgpack map with every channel value inline; PostgresSaver writes it as JSONB with only
``None``, strings, numbers and booleans inline (and ``true`` where a DeltaChannel snapshot lives
apart), each other value once per channel version in ``checkpoint_blobs`` as (type, bytes), and
its metadata as JSONB where SQLite keeps JSON text. Their writes are the same columns.

A :class:`PortableThread` is the meeting point. Each kind turns its own rows into one and one
into its own rows (:meth:`Storage.portable_of`, :meth:`Storage.rows_of_portable`), so a clone
between any two kinds is two conversions and no kind knows another's layout. A checkpoint is
its frame (plain JSON data: ``v``, ``ts``, ``id``, versions) and its channel values as msgpack
bytes exactly as stored: a PostgresSaver ``msgpack`` blob is those bytes already, a ``bytes``
blob is wrapped as msgpack bin, an inline scalar is packed. Values are moved, never decoded
(:mod:`playground.timetravel.msgpack_frames`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# Where a SqliteSaver blob puts each part of a checkpoint (Python's ``Checkpoint`` order):
# ``v`` and ``ts`` first is also what the thread list's quick read of a time expects.
FRAME_ORDER = ("v", "ts", "id", "channel_values", "channel_versions", "versions_seen",
               "updated_channels")
VALUES = "channel_values"
NIL = b"\xc0"  # msgpack nil: how a None value is encoded


class NotPortable(ValueError):
    """Rows one kind of place holds that another cannot take as they are; one line saying
    which row and why."""


@dataclass(frozen=True)
class PortableCheckpoint:
    """One checkpoint, whichever saver wrote it.

    Attributes:
        checkpoint_ns: its namespace ("" for the root graph).
        checkpoint_id: the checkpoint.
        parent_id: its stored parent, None for a root.
        frame: the checkpoint without its channel values, as plain JSON data.
        values: each channel's value as stored, as msgpack bytes (never decoded here).
        metadata: its metadata, as plain JSON data.
    """

    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    frame: dict[str, Any]
    values: dict[str, bytes]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class PortableWrite:
    """One pending write, as both savers store it: the value's (type, bytes) untouched."""

    checkpoint_ns: str
    checkpoint_id: str
    task_id: str
    task_path: str
    idx: int
    channel: str
    type: str | None
    value: bytes | None


@dataclass
class PortableThread:
    """A thread's checkpoints and writes in no saver's layout (see the module's docstring)."""

    checkpoints: list[PortableCheckpoint] = field(default_factory=list)
    writes: list[PortableWrite] = field(default_factory=list)


def framed(frame: dict[str, Any]) -> Iterator[str]:
    """A frame's keys in the order a SqliteSaver blob holds them (unknown keys last), with
    ``channel_values`` in its place."""
    yield from (key for key in FRAME_ORDER if key in frame or key == VALUES)
    yield from (key for key in frame if key not in FRAME_ORDER)


def jsonb_problem(value: Any, limit: int = 100_000) -> str | None:
    """Why PostgreSQL's JSONB could not hold a plain value, or None: a string with a NUL
    character (JSONB refuses ``\\u0000``), a number that is not finite (JSON has no NaN). A
    real PostgresSaver fails on the same values."""
    stack, seen = [value], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > limit:
            return None  # bounded work: the database says the rest
        if isinstance(item, str):
            if "\x00" in item:
                return "a text holding a NUL character, which JSONB cannot store"
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return f"the number {item}, which JSON cannot hold"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return None
