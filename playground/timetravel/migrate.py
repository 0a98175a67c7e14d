"""Find threads stranded by a schema change, and repair one by renaming a key in its head.

Renaming or deleting a state key strands paused threads: the newest checkpoint still carries the
old channel, the new graph has no such channel, and a resume returns the old values, runs nothing
and raises nothing. Renaming the channel inside the newest checkpoint blob (channel_values,
channel_versions, versions_seen, updated_channels) repairs the thread, because that blob is all a
resume loads.

Blobs are rewritten at the msgpack level, never through the app's classes: values the app stored
as its own types stay the exact bytes they were (they are msgpack extensions, kept opaque), so this
works on the database of any LangGraph app without importing its code. A blob that would not
re-encode to the very same bytes is refused rather than rewritten.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import ormsgpack

from playground.timetravel.prune import has_saver_tables, write_transaction

_REQUIRED = ("channel_values", "channel_versions", "versions_seen")
_BRANCH = "branch:to:"  # langgraph >= 0.3: a node is triggered by writing branch:to:<node>
_DELTA_COUNTERS = "counters_since_delta_snapshot"  # metadata of DeltaChannel (beta) threads
_OPTIONS = ormsgpack.OPT_NON_STR_KEYS | ormsgpack.OPT_PASSTHROUGH_DATACLASS


class MigrationRefused(ValueError):
    """A rename that cannot be done safely; nothing was changed."""


@dataclass(frozen=True)
class RenameSuggestion:
    """A rename that would probably repair a thread: ``old`` -> ``new``, and why."""

    old: str
    new: str
    reason: str


@dataclass(frozen=True)
class StrandedThread:
    """A thread whose newest root checkpoint holds channels the current schema lacks.

    Attributes:
        thread_id: the thread.
        checkpoint_id: its newest checkpoint in the root namespace (what a resume loads).
        next: nodes whose ``branch:to:`` trigger is pending there (paused before them).
        unknown_channels: state channels not in the schema, in blob order.
        suggestions: renames that would probably repair it, best first.
    """

    thread_id: str
    checkpoint_id: str
    next: tuple[str, ...]
    unknown_channels: tuple[str, ...]
    suggestions: tuple[RenameSuggestion, ...]

    @property
    def paused(self) -> bool:
        """True when a node is waiting to run: a resume would run it under the new schema."""
        return bool(self.next)


@dataclass(frozen=True)
class MigrationReport:
    """What a rename changed, or would change on a dry run.

    Attributes:
        thread_id: the thread.
        checkpoint_id: the newest root checkpoint, the only one rewritten.
        old: the channel renamed.
        new: its new name.
        changed: the places that changed: ``channel_values``, ``channel_versions``,
            ``versions_seen[<node>]``, ``updated_channels``, ``writes``.
        writes_renamed: pending-write rows of that checkpoint moved from ``old`` to ``new``.
        applied: True when the database was changed, False for a dry run.
    """

    thread_id: str
    checkpoint_id: str
    old: str
    new: str
    changed: tuple[str, ...]
    writes_renamed: int
    applied: bool


@dataclass(frozen=True)
class _Ext:
    """A msgpack extension value (an app's own class), carried as its exact bytes."""

    code: int
    data: bytes


def _ext_default(value: Any) -> Any:
    if isinstance(value, _Ext):
        return ormsgpack.Ext(value.code, value.data)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _unpack(blob: bytes) -> Any:
    return ormsgpack.unpackb(blob, ext_hook=_Ext, option=ormsgpack.OPT_NON_STR_KEYS)


def _pack(value: Any) -> bytes:
    return ormsgpack.packb(value, default=_ext_default, option=_OPTIONS)


def is_internal(channel: str) -> bool:
    """True for LangGraph's own channels (``__start__``, ``branch:to:x``, join barriers)."""
    return channel.startswith("__") or ":" in channel


def _newest_rows(conn: sqlite3.Connection, thread_id: str | None = None) -> Iterator[tuple]:
    """(thread_id, checkpoint_id, type, checkpoint, metadata) of each thread's root head."""
    # The head is the largest checkpoint_id, the same row SqliteSaver.get_tuple resumes from.
    where, params = ("AND thread_id = ?", (thread_id,)) if thread_id is not None else ("", ())
    yield from conn.execute(
        "SELECT c.thread_id, c.checkpoint_id, c.type, c.checkpoint, c.metadata "
        "FROM checkpoints c JOIN ("
        "  SELECT thread_id, MAX(checkpoint_id) AS newest FROM checkpoints "
        f"  WHERE checkpoint_ns = '' {where} GROUP BY thread_id"
        ") n ON c.thread_id = n.thread_id AND c.checkpoint_id = n.newest "
        "WHERE c.checkpoint_ns = '' ORDER BY c.thread_id",
        params,
    )


def _decode(type_: str | None, blob: bytes | None) -> dict | None:
    """The blob as plain msgpack structure, or None when it is not a msgpack checkpoint."""
    if type_ != "msgpack" or blob is None:
        return None
    try:
        value = _unpack(blob)
    except (ValueError, TypeError):
        return None
    if not isinstance(value, dict) or not all(isinstance(value.get(k), dict) for k in _REQUIRED):
        return None
    return value


def _channels(checkpoint: dict) -> list[str]:
    # A JSONB head may lack a part; a msgpack one may hold non-string keys: neither is a channel.
    seen = dict.fromkeys(checkpoint.get("channel_values") or {})
    seen.update(dict.fromkeys(checkpoint.get("channel_versions") or {}))
    return [channel for channel in seen if isinstance(channel, str)]


def pending_nodes(checkpoint: dict) -> tuple[str, ...]:
    """Nodes whose trigger is pending in a decoded checkpoint (paused before them)."""
    # branch:to:<node> is an ephemeral channel: it is in channel_values only until <node> runs.
    return tuple(
        sorted(
            channel[len(_BRANCH) :]
            for channel in checkpoint["channel_values"]
            if isinstance(channel, str) and channel.startswith(_BRANCH)
        )
    )


def _suggest(checkpoint: dict, unknown: list[str], schema: set[str]) -> list[RenameSuggestion]:
    values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
    # A rename target must be free: rename_channel refuses a key that has a value or a version.
    free = sorted(key for key in schema if key not in versions and values.get(key) is None)
    holding = [key for key in unknown if values.get(key) is not None]
    suggestions = []
    for key in unknown:
        close = difflib.get_close_matches(key, free, n=1, cutoff=0.6)
        if close:
            suggestions.append(RenameSuggestion(key, close[0], "similar name"))
        elif len(free) == 1 and holding == [key]:
            # etag -> version shares no letters worth a match, but it is the one unknown key that
            # holds a value and version is the one schema key the checkpoint never set.
            suggestions.append(
                RenameSuggestion(key, free[0], "the only schema key this checkpoint never set")
            )
    return suggestions


def find_stranded(conn: sqlite3.Connection, schema_keys: Iterable[str]) -> list[StrandedThread]:
    """Threads whose newest root checkpoint holds state channels the schema does not have.

    Internal channels (``__start__``, ``__pregel_tasks``, ``branch:to:x``, join barriers with a
    ``:``) are never unknown. Threads whose head is not a msgpack checkpoint are skipped: they
    cannot be repaired here.

    Args:
        conn: an open connection to a SqliteSaver database.
        schema_keys: the state keys of the graph as it is now, e.g. ``State.__annotations__``.

    Returns:
        One entry per thread with unknown channels, ordered by thread id. ``paused`` ones are
        stranded now; finished ones will be on their next turn.

    Raises:
        TypeError: ``schema_keys`` is a single string (pass a list of keys).
        MigrationRefused: the database has no SqliteSaver tables.
    """
    schema = schema_set(schema_keys)
    _require_tables(conn)
    stranded = []
    for thread_id, checkpoint_id, type_, blob, _ in list(_newest_rows(conn)):
        checkpoint = _decode(type_, blob)
        found = None if checkpoint is None else stranded_head(
            thread_id, checkpoint_id, checkpoint, schema
        )
        if found is not None:
            stranded.append(found)
    return stranded


def schema_set(schema_keys: Iterable[str]) -> set[str]:
    """The schema's keys as a set, refusing one string (whose letters would become keys)."""
    if isinstance(schema_keys, str):
        raise TypeError("schema_keys is one string: pass the keys as a list, e.g. ['ticket_id']")
    return set(schema_keys)


def stranded_head(
    thread_id: str, checkpoint_id: str, checkpoint: dict, schema: set[str],
) -> StrandedThread | None:
    """The thread as stranded when its decoded head holds state channels outside ``schema``."""
    unknown = [c for c in _channels(checkpoint) if not is_internal(c) and c not in schema]
    if not unknown:
        return None
    return StrandedThread(
        thread_id=thread_id,
        checkpoint_id=checkpoint_id,
        next=pending_nodes(checkpoint),
        unknown_channels=tuple(unknown),
        suggestions=tuple(_suggest(checkpoint, unknown, schema)),
    )


def threads_with_channel(conn: sqlite3.Connection, channel: str) -> list[str]:
    """Ids of the threads whose newest root checkpoint holds ``channel`` (value or version)."""
    _require_tables(conn)
    found = []
    for thread_id, _, type_, blob, _ in list(_newest_rows(conn)):
        checkpoint = _decode(type_, blob)
        if checkpoint is not None and channel in _channels(checkpoint):
            found.append(thread_id)
    return found


def _require_tables(conn: sqlite3.Connection) -> None:
    if not has_saver_tables(conn):
        raise MigrationRefused(
            "this database has no SqliteSaver tables (checkpoints, writes): "
            "open the checkpoint file of a LangGraph app"
        )


def _renamed_keys(mapping: dict, old: str, new: str) -> dict:
    # Same order, old key under the new name; a None-valued new entry is replaced by old's.
    return {(new if key == old else key): value for key, value in mapping.items() if key != new}


def refuse_bad_names(old: str, new: str) -> str:
    """Refuse renaming a key onto itself or any internal channel; return the safe alternative
    that every later refusal suggests."""
    if old == new:
        raise MigrationRefused(f"old and new are both {old!r}: nothing to rename")
    for name in (old, new):
        if is_internal(name):
            raise MigrationRefused(
                f"{name!r} is one of LangGraph's internal channels: only state keys can be renamed"
            )
    return f"keep {old!r} in the schema next to {new!r} (add-then-remove) instead"


def refuse_unknown_layout(checkpoint: object, what: str, keep_both: str) -> None:
    """Refuse a head that is not a dict holding the three parts a rename rewrites.

    Args:
        checkpoint: The decoded head.
        what: Names it at the start of the message (``thread 't', checkpoint 1: the blob``).
        keep_both: The alternative to suggest.
    """
    missing = [k for k in _REQUIRED if not isinstance(checkpoint, dict) or k not in checkpoint]
    if missing or not all(isinstance(checkpoint[k], dict) for k in _REQUIRED):
        raise MigrationRefused(
            f"{what} lacks {', '.join(missing or _REQUIRED)}, so it is not a "
            f"checkpoint this tool understands: {keep_both}"
        )


def refuse_unsafe_rename(
    checkpoint: dict, old: str, new: str, *, where: str, keep_both: str, pending_writes: int,
    delta_channels: set[str], listing_hint: str,
) -> None:
    """Raise MigrationRefused unless renaming ``old`` to ``new`` in this checkpoint is safe.

    Shared by the SQLite and Postgres migrations; the storage checks (decoding, byte-for-byte
    round trips) stay with each of them.

    Args:
        checkpoint: The decoded head checkpoint (with the ``_REQUIRED`` keys as dicts).
        old: The key to rename.
        new: The key it becomes.
        where: Names the thread and checkpoint at the start of each message.
        keep_both: The alternative to suggest (keeping both keys in the schema).
        pending_writes: How many of the head's pending writes are stored under ``old``.
        delta_channels: Channels the thread keeps as DeltaChannels (rebuilt from old writes).
        listing_hint: Where to look for the channels that can be renamed.
    """
    values, versions, seen = (checkpoint[k] for k in _REQUIRED)
    if old not in values and old not in versions and not pending_writes:
        state_channels = [c for c in _channels(checkpoint) if not is_internal(c)]
        raise MigrationRefused(
            f"{where}: channel {old!r} is not in the newest checkpoint (its channels: "
            f"{', '.join(state_channels) or 'none'}): nothing to rename; {listing_hint}"
        )
    if values.get(new) is not None or new in versions or any(
        isinstance(node_seen, dict) and new in node_seen for node_seen in seen.values()
    ):
        raise MigrationRefused(
            f"{where}: channel {new!r} already holds a value or version; renaming {old!r} onto "
            f"it would overwrite it: rename to a free key, or {keep_both}"
        )
    if old in delta_channels:
        raise MigrationRefused(
            f"{where}: {old!r} is a DeltaChannel rebuilt from ancestor writes stored under that "
            f"name, which renaming the newest checkpoint cannot move: {keep_both}"
        )


def rename_in_checkpoint(checkpoint: dict, old: str, new: str) -> list[str]:
    """Rename a channel everywhere a checkpoint names it, in place; return the parts changed.

    The parts are ``channel_values``, ``channel_versions``, each node's ``versions_seen`` and
    ``updated_channels``: all of them, or LangGraph would see the renamed value as never
    written (and run the node that reads it again) or miss it on resume.
    """
    values, versions, seen = (checkpoint[k] for k in _REQUIRED)
    changed = []
    if old in values:
        checkpoint["channel_values"] = _renamed_keys(values, old, new)
        changed.append("channel_values")
    if old in versions:
        checkpoint["channel_versions"] = _renamed_keys(versions, old, new)
        changed.append("channel_versions")
    for node, node_seen in seen.items():
        if isinstance(node_seen, dict) and old in node_seen:
            seen[node] = _renamed_keys(node_seen, old, new)
            changed.append(f"versions_seen[{node}]")
    updated = checkpoint.get("updated_channels")
    if isinstance(updated, list) and old in updated:
        checkpoint["updated_channels"] = list(
            dict.fromkeys(new if channel == old else channel for channel in updated)
        )
        changed.append("updated_channels")
    return changed


def _delta_channels(metadata: bytes | str | None) -> set[str]:
    try:
        counters = json.loads(metadata or b"{}").get(_DELTA_COUNTERS)
    except (ValueError, AttributeError):
        return set()
    return set(counters) if isinstance(counters, dict) else set()


@dataclass(frozen=True)
class _Plan:
    report: MigrationReport
    blob: bytes


def _plan(conn: sqlite3.Connection, thread_id: str, old: str, new: str) -> _Plan:
    """Work out the rewritten blob and the report, refusing anything unsafe."""
    keep_both = refuse_bad_names(old, new)
    _require_tables(conn)
    rows = list(_newest_rows(conn, thread_id))
    if not rows:
        raise MigrationRefused(
            f"thread {thread_id!r} has no checkpoints in this database: check the id; "
            f"threads_with_channel(conn, {old!r}) lists the threads that hold {old!r}"
        )
    _, checkpoint_id, type_, blob, metadata = rows[0]
    where = f"thread {thread_id!r}, checkpoint {checkpoint_id}"
    if type_ != "msgpack" or not isinstance(blob, bytes):
        raise MigrationRefused(
            f"{where}: stored as {type_!r}; only 'msgpack' blobs can be rewritten: {keep_both}"
        )
    try:
        checkpoint = _unpack(blob)
    except (ValueError, TypeError) as exc:
        raise MigrationRefused(f"{where}: the blob does not decode ({exc}): {keep_both}") from None
    refuse_unknown_layout(checkpoint, f"{where}: the blob", keep_both)
    if _pack(checkpoint) != blob:
        # Rewriting would change bytes other than the rename (say a float32 read as float64).
        raise MigrationRefused(f"{where}: the blob does not re-encode byte for byte: {keep_both}")

    (pending_old,) = conn.execute(
        "SELECT COUNT(*) FROM writes WHERE thread_id = ? AND checkpoint_ns = '' "
        "AND checkpoint_id = ? AND channel = ?",
        (thread_id, checkpoint_id, old),
    ).fetchone()
    refuse_unsafe_rename(
        checkpoint, old, new, where=where, keep_both=keep_both, pending_writes=pending_old,
        delta_channels=_delta_channels(metadata),
        listing_hint="find_stranded lists the unknown channels of each thread",
    )
    changed = rename_in_checkpoint(checkpoint, old, new)
    if pending_old:
        changed.append("writes")
    report = MigrationReport(
        thread_id=thread_id,
        checkpoint_id=checkpoint_id,
        old=old,
        new=new,
        changed=tuple(changed),
        writes_renamed=pending_old,
        applied=False,
    )
    return _Plan(report, _pack(checkpoint))


def rename_channel(
    conn: sqlite3.Connection, thread_id: str, old: str, new: str, *, apply: bool = False
) -> MigrationReport:
    """Rename state channel ``old`` to ``new`` in a thread's newest root checkpoint.

    The rename covers every place the blob names the channel (channel_values, channel_versions,
    each node's versions_seen, updated_channels) and the pending writes of that checkpoint, so a
    task that already finished before the pause keeps its output. Older checkpoints keep the old
    name: they are history, and replaying from one needs the schema they were written under.

    Args:
        conn: an open connection to a SqliteSaver database.
        thread_id: the thread to repair.
        old: the key the thread was written with (e.g. ``etag``).
        new: the key the current schema uses (e.g. ``version``).
        apply: change the database; by default only report what would change.

    Returns:
        The report, with ``applied`` telling whether the database changed.

    Raises:
        MigrationRefused: the thread is unknown; the head is not a msgpack checkpoint this tool
            understands; ``old`` is absent; ``new`` already holds a value or version; ``old``
            is a DeltaChannel. Nothing was changed.
    """
    if not apply:
        return _plan(conn, thread_id, old, new).report
    with write_transaction(conn) as cur:
        plan = _plan(conn, thread_id, old, new)
        key = (thread_id, plan.report.checkpoint_id)
        cur.execute(
            "UPDATE checkpoints SET checkpoint = ? "
            "WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
            (plan.blob, *key),
        )
        cur.execute(
            "UPDATE writes SET channel = ? "
            "WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ? AND channel = ?",
            (new, *key, old),
        )
    return MigrationReport(**{**plan.report.__dict__, "applied": True})
