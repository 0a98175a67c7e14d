"""How much one read of a database the playground did not write may cost: time, rows, bytes.

A file, an export or a URL from someone else can be built to make a reader loop, wait or
allocate without end: an endless recursive view, a ``pg_sleep`` view, a value nested thousands
of levels deep, a blob of millions of tiny extension values. Every read of untrusted data runs
under these limits, and stops past one with a line that says which (never a hang, a traceback
or an exhausted server). Each is an environment setting with a default sized for honest
databases far larger than the benchmarks' 10,000-checkpoint thread; docs/security.md
lists them.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from playground.timetravel.errors import CheckpointDbError


class ReadStopped(CheckpointDbError):
    """A read went past one of the limits and was stopped; the message says which."""


def _number(name: str, default: float, *, integer: bool = False) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a {'whole ' if integer else ''}number, got {raw!r}"
                         ) from None
    if not value > 0:
        raise ValueError(f"{name} must be more than 0, got {raw!r}")
    return value


@dataclass(frozen=True)
class Limits:
    """The bounds of one read (each from its environment variable, else the default).

    Attributes:
        read_seconds: ``PLAYGROUND_READ_TIMEOUT`` (20): the longest one read of a database may
            take: a SQLite progress handler and a Postgres ``statement_timeout`` stop it.
        connect_seconds: ``PLAYGROUND_CONNECT_TIMEOUT`` (10): the longest a connection to a
            typed Postgres URL may take, in all.
        max_rows: ``PLAYGROUND_MAX_ROWS`` (200,000): checkpoints (or threads) one read returns.
        max_values: ``PLAYGROUND_MAX_VALUES`` (200,000): extension values (messages, classes)
            one blob may decode into; past it the blob is "too large to show".
        max_depth: ``PLAYGROUND_MAX_DEPTH`` (100): how deep a value may nest before the rest
            shows as "too deep to show" (in diffs, messages, exports and on pages).
        max_text: ``PLAYGROUND_MAX_TEXT`` (2,000): characters of one id or label shown.
        cache_mb: ``PLAYGROUND_CACHE_MB`` (256): what the server's tree and values caches may
            hold in all, estimated from the bytes they were read from.
    """

    read_seconds: float = 20.0
    connect_seconds: float = 10.0
    max_rows: int = 200_000
    max_values: int = 200_000
    max_depth: int = 100
    max_text: int = 2_000
    cache_mb: float = 256.0


@functools.lru_cache(maxsize=1)
def limits() -> Limits:
    """The limits this process runs with, read from the environment once (a decode of every
    blob asks: reading seven variables each time cost a tenth of a decode).
    :func:`reset_limits` reads them again.

    Raises:
        ValueError: a setting that is not a positive number.
    """
    return Limits(
        read_seconds=_number("PLAYGROUND_READ_TIMEOUT", 20.0),
        connect_seconds=_number("PLAYGROUND_CONNECT_TIMEOUT", 10.0),
        max_rows=int(_number("PLAYGROUND_MAX_ROWS", 200_000, integer=True)),
        max_values=int(_number("PLAYGROUND_MAX_VALUES", 200_000, integer=True)),
        max_depth=int(_number("PLAYGROUND_MAX_DEPTH", 100, integer=True)),
        max_text=int(_number("PLAYGROUND_MAX_TEXT", 2_000, integer=True)),
        cache_mb=_number("PLAYGROUND_CACHE_MB", 256.0),
    )


def reset_limits() -> None:
    """Read the limits from the environment again on the next :func:`limits` (tests change it)."""
    limits.cache_clear()


def took_too_long(label: str, seconds: float) -> ReadStopped:
    """The one line a reader gets when a read ran past its deadline."""
    return ReadStopped(f"{label}: this database took longer than {seconds:g} s to read: stopped")


def clip(text: str, limit: int | None = None) -> str:
    """``text`` cut to ``limit`` characters (the ``max_text`` setting by default), with "…"."""
    limit = limits().max_text if limit is None else limit
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
