"""Clone a thread, or one branch of it, from any readable place into a writable one.

A failed production thread cannot be replayed where it lives: the playground opens an app's
database read-only. A clone copies it into a place the playground writes (its own checkpoint
file, or a Postgres database), under the same id or a new one, so it can be replayed and forked
there with LangGraph's own API. The source is only read (open it read-only): nothing here
writes to it.

What is copied:

- the whole thread, or the branch from its root to one checkpoint: that checkpoint's ancestors,
  their writes, and each subgraph checkpoint whose call ran from one of them (with its own
  ancestors in its namespace, which its state is rebuilt from);
- from SQLite or Postgres, the rows themselves. Into the same kind they are the very rows;
  across kinds each checkpoint is carried in no saver's layout
  (:mod:`playground.timetravel.portable`): the value bytes are moved and laid out as the other
  kind's saver lays them out, never decoded. Either way LangGraph reads the same history from
  the copy, DeltaChannel values included (their snapshots and writes are copied as stored);
- from an Agent Server, whose API gives values and not rows, the thread rebuilt from its values
  (:mod:`playground.timetravel.rebuild`), and every copied checkpoint's metadata says so.

A thread id the target already holds is refused in one line before anything is written; the
whole copy is one transaction of the target.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from playground.timetravel.decode import UNREAD_KEY, is_unread
from playground.timetravel.errors import UnknownThread
from playground.timetravel.limits import clip
from playground.timetravel.portable import NotPortable
from playground.timetravel.storage import JAVASCRIPT, CheckpointLink, DuplicateRows, Storage
from playground.timetravel.transfer import TransferRefused
from playground.timetravel.tree import load_tree, resolve_checkpoint

BYTE_FOR_BYTE = "byte for byte"
ACROSS_KINDS = "value bytes carried across kinds, not decoded"
FROM_VALUES = "rebuilt from values"
# Checkpoint rows written per insert: a long copy reports its progress between them.
CHUNK = 1_000

# progress(what, done, total): what is "read" or "written", counted in checkpoints.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class CloneReport:
    """What a clone copied.

    Attributes:
        thread_id: the thread in the target.
        source_thread_id: the thread in the source.
        source: the source, as a label safe to show.
        target: the target, as a label safe to show.
        checkpoints: checkpoint rows written.
        writes: pending-write rows written.
        namespaces: checkpoint namespaces written ("" is the root graph), sorted.
        bytes: bytes written, counted as the target's sizes count them.
        tip: the checkpoint the copied branch ends at; None when the whole thread was copied.
        how: :data:`BYTE_FOR_BYTE`, :data:`ACROSS_KINDS` or :data:`FROM_VALUES`.
    """

    thread_id: str
    source_thread_id: str
    source: str
    target: str
    checkpoints: int
    writes: int
    namespaces: tuple[str, ...]
    bytes: int
    tip: str | None
    how: str


def branch_of(links: list[CheckpointLink], tip: str) -> frozenset[tuple[str, str]]:
    """The ``(namespace, checkpoint id)`` pairs of the branch from the root to ``tip``: the
    root graph's checkpoints up the parent links from ``tip``; each subgraph checkpoint whose
    call ran from one of them, with its ancestors in its namespace (its state is rebuilt from
    them, and a parent link of the copy never dangles)."""
    parents: dict[str, dict[str, str | None]] = {}
    for link in links:
        parents.setdefault(link.checkpoint_ns, {})[link.checkpoint_id] = link.parent_id
    chain = set(_up(parents.get("", {}), tip))
    keep = {("", cid) for cid in chain}
    for link in links:
        if link.checkpoint_ns and link.root_id in chain:
            keep.update((link.checkpoint_ns, cid)
                        for cid in _up(parents[link.checkpoint_ns], link.checkpoint_id))
    return frozenset(keep)


def _up(parents: dict[str, str | None], start: str) -> list[str]:
    """``start`` and its ancestors, stopping at a root, a parent not stored, or a loop."""
    found: list[str] = []
    seen: set[str] = set()
    at: str | None = start
    while at is not None and at in parents and at not in seen:
        seen.add(at)
        found.append(at)
        at = parents[at]
    return found


def _refuse_target(target: Storage) -> None:
    if not target.export_tables:
        raise TransferRefused(f"a clone is written into a SQLite checkpoint file or a Postgres "
                              f"database, not {target.label}")
    if not target.writable:
        raise TransferRefused(f"{target.label} is open read-only: open it writable to clone "
                              "into it")


def clone_thread(source: Storage, target: Storage, thread_id: str, *,
                 as_id: str | None = None, to_checkpoint: str | None = None,
                 progress: Progress | None = None) -> CloneReport:
    """Copy a thread, or the branch ending at one of its checkpoints, into ``target``.

    Args:
        source: where the thread lives, opened read-only (a SQLite file, a Postgres database,
            an Agent Server).
        target: a SQLite file or a Postgres database opened writable (``create=True`` may make
            it: its saver's tables are made once nothing refuses).
        thread_id: the thread to copy.
        as_id: the id it gets in the target; its own by default.
        to_checkpoint: copy only the branch from the root to this checkpoint (an id, a unique
            part of one, or ``#N`` in creation order); None copies the whole thread.
        progress: told ``(what, done, total)`` as checkpoints are read and written.

    Returns:
        What was written.

    Raises:
        UnknownThread: the source has no such thread.
        TransferRefused: the target cannot take it (read-only, not a checkpoint database, the
            id taken, values another kind's saver cannot store) or the source cannot give it
            (a place without rows or values, LangGraph.js rows). Nothing was written.
        ValueError: ``to_checkpoint`` names no checkpoint, or several.
    """
    new_id = thread_id if as_id is None else as_id
    if not isinstance(new_id, str) or not new_id:
        raise TransferRefused("the new thread id must be a non-empty string")
    _refuse_target(target)
    if source.writer == JAVASCRIPT:
        raise TransferRefused(f"{source.label} was written by LangGraph.js: its JSON rows run "
                              "only on LangGraph.js, so a copy could not be replayed here")
    tip = None
    if to_checkpoint is not None:
        tip = resolve_checkpoint(load_tree(source, thread_id), to_checkpoint)
    if source.export_tables:
        rows, how = _copied_rows(source, target, thread_id, tip)
    else:
        rows, how = _rebuilt_rows(source, target, thread_id, tip)
    found = len(rows.get("checkpoints", ()))
    if progress:
        progress("read", found, found)
    _insert(target, new_id, rows, progress)
    return CloneReport(
        thread_id=new_id, source_thread_id=thread_id, source=source.label, target=target.label,
        checkpoints=found, writes=len(rows.get("writes", ())),
        namespaces=tuple(sorted({row[0] for row in rows["checkpoints"]})),
        bytes=target.rows_bytes(rows), tip=tip, how=how)


def _copied_rows(source: Storage, target: Storage, thread_id: str, tip: str | None
                 ) -> tuple[dict[str, list[tuple]], str]:
    """The thread's (or the branch's) rows in the target's layout, and how they came."""
    if not source.has_saver_tables():
        raise TransferRefused(f"{source.label} has no {source.saver_tables}: open the "
                              "checkpoint database of a LangGraph app")
    keep = branch_of(source.checkpoint_links(thread_id), tip) if tip is not None else None
    rows = source.branch_rows(thread_id, keep)
    if not rows.get("checkpoints"):
        raise UnknownThread(f"no thread {thread_id!r} in {source.label}")
    if source.export_tables == target.export_tables:
        _refuse_unread(source, rows)
        return rows, BYTE_FOR_BYTE
    try:
        return target.rows_of_portable(source.portable_of(rows)), ACROSS_KINDS
    except NotPortable as exc:
        raise TransferRefused(f"thread {clip(thread_id, 80)} cannot be copied from a "
                              f"{source.kind} database into a {target.kind} one as it is: "
                              f"{exc}") from None


def _refuse_unread(source: Storage, rows: dict[str, list[tuple]]) -> None:
    """Refuse JSON cells the bounded loader could not read (it gave a marker): writing the
    marker would store other data than the source holds."""
    for table in source.export_tables:
        at = [i for i, kind in enumerate(table.columns.values()) if kind == "json"]
        for row in rows.get(table.key, ()) if at else ():
            for i in at:
                if is_unread(row[i]):
                    raise TransferRefused(f"a {table.key} row of the thread cannot be copied "
                                          f"as stored: {row[i][UNREAD_KEY]}")


def _rebuilt_rows(source: Storage, target: Storage, thread_id: str, tip: str | None
                  ) -> tuple[dict[str, list[tuple]], str]:
    """The thread rebuilt from the values a place gives (an Agent Server's history)."""
    tree = load_tree(source, thread_id)  # an unknown thread: one clear line
    if source.own_export(thread_id) is None:  # no values of its own to give: a saver object
        raise TransferRefused(f"a clone copies from SQLite files, Postgres databases and Agent "
                              f"Servers, not {source.label}")
    keep = None
    if tip is not None:
        keep = _up({cid: record.parent_id for cid, record in tree.nodes.items()}, tip)
    # LangGraph's serializer and types, imported only for a copy made from values.
    from playground.timetravel.rebuild import rebuilt_thread

    origin: dict[str, Any] = {"from": source.label, "thread_id": thread_id, "how": FROM_VALUES}
    try:
        return target.rows_of_portable(rebuilt_thread(source, thread_id, keep, origin)), \
            FROM_VALUES
    except NotPortable as exc:
        raise TransferRefused(f"thread {clip(thread_id, 80)} cannot be rebuilt in "
                              f"{target.label}: {exc}") from None


def _chunks(rows: dict[str, list[tuple]]) -> list[dict[str, list[tuple]]]:
    """The rows cut into inserts of about :data:`CHUNK` checkpoints (every table cut into as
    many parts, so each insert holds some of each)."""
    parts = max(1, -(-len(rows.get("checkpoints", ())) // CHUNK))
    return [{key: found[len(found) * i // parts:len(found) * (i + 1) // parts]
             for key, found in rows.items()} for i in range(parts)]


def _insert(target: Storage, thread_id: str, rows: dict[str, list[tuple]],
            progress: Progress | None) -> None:
    """Write the rows under ``thread_id`` in one transaction, refusing a taken id first."""
    if not target.has_saver_tables():  # a new database: only now that nothing refused
        target.create_saver_tables()
    total = len(rows.get("checkpoints", ()))
    done = 0
    try:
        with target.transaction():
            if target.rows_taken(thread_id):
                raise TransferRefused(
                    f"thread {clip(thread_id, 80)!r} already has checkpoints or writes in "
                    f"{target.label}: clone under another id (--as NEW_ID), or delete that "
                    "thread first")
            for chunk in _chunks(rows):
                target.insert_rows(thread_id, chunk)
                done += len(chunk.get("checkpoints", ()))
                if progress:
                    progress("written", done, total)
    except DuplicateRows as exc:
        raise TransferRefused(f"the copy holds the same row twice ({exc})") from None
