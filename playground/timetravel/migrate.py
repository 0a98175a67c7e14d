"""Find threads stranded by a schema change, and repair one by renaming a key in its head.

Renaming or deleting a state key strands paused threads: the newest checkpoint still carries the
old channel, the new graph has no such channel, and a resume returns the old values, runs nothing
and raises nothing. Renaming the channel inside the newest checkpoint blob (channel_values,
channel_versions, versions_seen, updated_channels) repairs the thread, because that blob is all a
resume loads.

The flow (find, plan, refuse, report) is written once, over the primitives of
:class:`~playground.timetravel.storage.Storage`; each backend reads and rewrites its own
form of the head. A SQLite head is rewritten at the msgpack level, never through the app's
classes: values the app stored as its own types stay the exact bytes they were, so this works on
the database of any LangGraph app without importing its code, and a blob that would not
re-encode to the very same bytes is refused rather than rewritten. A Postgres head is JSONB, and
a value not inline in it gets a copy of its blob row under the new name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass

from playground.timetravel.records import delta_channels
from playground.timetravel.storage import Head, Storage

_REQUIRED = ("channel_values", "channel_versions", "versions_seen")
_BRANCH = "branch:to:"  # langgraph >= 0.3: a node is triggered by writing branch:to:<node>


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


def is_internal(channel: str) -> bool:
    """True for LangGraph's own channels (``__start__``, ``branch:to:x``, join barriers)."""
    return channel.startswith("__") or ":" in channel


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


def _suggest(checkpoint: dict, unknown: list[str], schema: set[str], held: frozenset[str]
             ) -> list[RenameSuggestion]:
    values, versions = checkpoint["channel_values"], checkpoint["channel_versions"]
    # A rename target must be free: rename_channel refuses a key that has a value or a version.
    free = sorted(key for key in schema if key not in versions and values.get(key) is None)
    holding = [key for key in unknown if key in held]
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


def find_stranded(storage: Storage, schema_keys: Iterable[str]) -> list[StrandedThread]:
    """Threads whose newest root checkpoint holds state channels the schema does not have.

    Internal channels (``__start__``, ``__pregel_tasks``, ``branch:to:x``, join barriers with a
    ``:``) are never unknown. Threads whose head this tool cannot read are skipped: they cannot
    be repaired here.

    Args:
        storage: the checkpoint database.
        schema_keys: the state keys of the graph as it is now, e.g. ``State.__annotations__``.

    Returns:
        One entry per thread with unknown channels, ordered by thread id. ``paused`` ones are
        stranded now; finished ones will be on their next turn.

    Raises:
        TypeError: ``schema_keys`` is a single string (pass a list of keys).
        MigrationRefused: the database has no saver tables.
    """
    schema = schema_set(schema_keys)
    _require_tables(storage)
    stranded = []
    for head in list(storage.heads()):
        found = None if head.checkpoint is None else stranded_head(
            head.thread_id, head.checkpoint_id, head.checkpoint, schema, head.held)
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
    held: frozenset[str],
) -> StrandedThread | None:
    """The thread as stranded when its decoded head holds state channels outside ``schema``
    (``held``: the channels that hold a value, wherever the database keeps it)."""
    unknown = [c for c in _channels(checkpoint) if not is_internal(c) and c not in schema]
    if not unknown:
        return None
    return StrandedThread(
        thread_id=thread_id,
        checkpoint_id=checkpoint_id,
        next=pending_nodes(checkpoint),
        unknown_channels=tuple(unknown),
        suggestions=tuple(_suggest(checkpoint, unknown, schema, held)),
    )


def threads_with_channel(storage: Storage, channel: str) -> list[str]:
    """Ids of the threads whose newest root checkpoint holds ``channel`` (value or version).

    Raises:
        MigrationRefused: the database has no saver tables.
    """
    _require_tables(storage)
    return [head.thread_id for head in list(storage.heads())
            if head.checkpoint is not None and channel in _channels(head.checkpoint)]


def _require_tables(storage: Storage) -> None:
    if not storage.has_saver_tables():
        raise MigrationRefused(f"this database has no {storage.saver_tables}: open the "
                               "checkpoint database of a LangGraph app")


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


def _plan(storage: Storage, thread_id: str, old: str, new: str
          ) -> tuple[MigrationReport, Head, dict, object]:
    """The report, the head, its renamed checkpoint and the backend's plan; refuses anything
    unsafe before anything is written."""
    keep_both = refuse_bad_names(old, new)
    _require_tables(storage)
    head = next(iter(storage.heads(thread_id)), None)
    if head is None:
        raise MigrationRefused(
            f"thread {thread_id!r} has no checkpoints in this database: check the id; "
            f"threads_with_channel(storage, {old!r}) lists the threads that hold {old!r}"
        )
    where = f"thread {thread_id!r}, checkpoint {head.checkpoint_id}"
    if head.checkpoint is None:
        raise MigrationRefused(f"{where}: {head.problem}: {keep_both}")
    refuse_unknown_layout(head.checkpoint, f"{where}: the checkpoint", keep_both)
    problem = storage.rewrite_problem(head)
    if problem:
        raise MigrationRefused(f"{where}: {problem}: {keep_both}")
    pending_old = storage.count_writes(thread_id, head.checkpoint_id, old)
    refuse_unsafe_rename(
        head.checkpoint, old, new, where=where, keep_both=keep_both,
        pending_writes=pending_old, delta_channels=set(delta_channels(head.metadata)),
        listing_hint="find_stranded lists the unknown channels of each thread",
    )
    extra = storage.rename_extra(head, old, new)
    if isinstance(extra, str):
        raise MigrationRefused(f"{where}: {extra}: {keep_both}")
    also, plan = extra
    checkpoint = head.checkpoint
    changed = rename_in_checkpoint(checkpoint, old, new) + list(also)
    if pending_old:
        changed.append("writes")
    report = MigrationReport(
        thread_id=thread_id, checkpoint_id=head.checkpoint_id, old=old, new=new,
        changed=tuple(changed), writes_renamed=pending_old, applied=False,
    )
    return report, head, checkpoint, plan


def rename_channel(
    storage: Storage, thread_id: str, old: str, new: str, *, apply: bool = False
) -> MigrationReport:
    """Rename state channel ``old`` to ``new`` in a thread's newest root checkpoint.

    The rename covers every place the head names the channel (channel_values,
    channel_versions, each node's versions_seen, updated_channels; on Postgres the value's blob
    row, copied under ``new`` at the same version, the old row staying for the older
    checkpoints that share it) and the pending writes of that checkpoint, so a task that already
    finished before the pause keeps its output. Older checkpoints keep the old name: they are
    history, and replaying from one needs the schema they were written under.

    Args:
        storage: the checkpoint database (opened writable to apply).
        thread_id: the thread to repair.
        old: the key the thread was written with (e.g. ``etag``).
        new: the key the current schema uses (e.g. ``version``).
        apply: change the database; by default only report what would change.

    Returns:
        The report, with ``applied`` telling whether the database changed.

    Raises:
        MigrationRefused: the thread is unknown; the head is not a checkpoint this tool can
            rewrite exactly; ``old`` is absent; ``new`` already holds a value or version;
            ``old`` is a DeltaChannel. Nothing was changed.
    """
    if apply and not storage.writable:
        raise MigrationRefused(f"{storage.label} is open read-only: open it writable to apply")
    # Plan again inside the transaction that writes: a saver may have written since a dry run.
    with storage.transaction() if apply else nullcontext():
        report, head, checkpoint, plan = _plan(storage, thread_id, old, new)
        if apply:
            storage.rewrite_head(head, checkpoint, old, new, plan)
    if not apply:
        return report
    return MigrationReport(**{**report.__dict__, "applied": True})
