"""Delete old checkpoints or a whole branch of a thread, with SQL on a SqliteSaver database.

The open-source savers raise ``NotImplementedError`` for ``prune``, so this module deletes rows
itself. Every function is a dry run unless told otherwise: it returns the same report either way,
so a page can show what would go before anyone confirms.

Two rules keep a pruned thread usable:

* the head (the newest checkpoint, the one ``invoke(None, config)`` resumes from) is never
  deleted, because its blob holds every channel value inline and that is all a resume loads;
* a kept checkpoint whose parent is deleted gets ``parent_checkpoint_id`` NULL, so its history
  simply starts there instead of pointing at a row that no longer exists.

Only the given namespace is touched: subgraph checkpoints live under their own ``checkpoint_ns``
and are pruned by passing that namespace.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

# length() of a TEXT value counts characters; the cast makes every size a byte count.
_CHECKPOINT_BYTES = (
    "COALESCE(length(CAST(checkpoint AS BLOB)), 0) + COALESCE(length(CAST(metadata AS BLOB)), 0)"
)
_WRITE_BYTES = "COALESCE(length(CAST(value AS BLOB)), 0)"
# Written into checkpoint metadata by langgraph's DeltaChannel (beta): the channels listed there
# are rebuilt from ancestor writes, so their ancestors must not be deleted.
_DELTA_COUNTERS = "counters_since_delta_snapshot"


class PruneRefused(ValueError):
    """A prune or branch deletion that would break the thread; nothing was changed."""


@dataclass(frozen=True)
class PruneReport:
    """What a prune did, or would do on a dry run.

    Attributes:
        thread_id: the thread.
        checkpoint_ns: the namespace pruned ("" is the root graph).
        dry_run: True when nothing was changed.
        checkpoints_before: checkpoints of the thread and namespace before.
        checkpoints_after: checkpoints left after.
        writes_deleted: pending-write rows deleted with their checkpoints.
        bytes_before: checkpoint + metadata + write value bytes of the thread and namespace before.
        bytes_after: the same sum after.
        deleted_ids: checkpoint ids deleted, oldest first.
        detached_ids: kept checkpoints whose parent was deleted (their parent link is now NULL).
    """

    thread_id: str
    checkpoint_ns: str
    dry_run: bool
    checkpoints_before: int
    checkpoints_after: int
    writes_deleted: int
    bytes_before: int
    bytes_after: int
    deleted_ids: tuple[str, ...]
    detached_ids: tuple[str, ...]

    @property
    def bytes_freed(self) -> int:
        """Bytes the deletion frees (before minus after)."""
        return self.bytes_before - self.bytes_after


@dataclass(frozen=True)
class PlanRow:
    """What planning a deletion needs of a checkpoint, whatever database holds it."""

    checkpoint_id: str
    parent_id: str | None
    size: int
    metadata: bytes | str | None


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Cursor]:
    """Run the body in one write transaction: commit on success, roll back on any error.

    ``BEGIN IMMEDIATE`` takes the write lock before the body reads anything, so the rows a
    change was planned on cannot change underneath it (a saver in another process waits).

    Raises:
        RuntimeError: the connection already has an open transaction; commit or roll it back
            first, so this change commits (or rolls back) on its own.
    """
    if conn.in_transaction:
        raise RuntimeError(
            "the connection has an open transaction: commit or roll it back first, "
            "so this change commits on its own"
        )
    cur = conn.cursor()
    try:
        cur.execute("BEGIN IMMEDIATE")
        try:
            yield cur
            conn.commit()
        except BaseException:  # a failed commit too: never leave the transaction open
            conn.rollback()
            raise
    finally:
        cur.close()


def has_saver_tables(conn: sqlite3.Connection) -> bool:
    """True when the database has SqliteSaver's ``checkpoints`` and ``writes`` tables."""
    names = {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master "
            "WHERE type = 'table' AND name IN ('checkpoints', 'writes')"
        )
    }
    return names == {"checkpoints", "writes"}


def stored_bytes(conn: sqlite3.Connection, thread_id: str, checkpoint_ns: str = "") -> int:
    """Bytes a thread's namespace stores: checkpoint and metadata blobs plus write values."""
    key = (thread_id, checkpoint_ns)
    (checkpoints,) = conn.execute(
        f"SELECT COALESCE(SUM({_CHECKPOINT_BYTES}), 0) FROM checkpoints "
        "WHERE thread_id = ? AND checkpoint_ns = ?",
        key,
    ).fetchone()
    (writes,) = conn.execute(
        f"SELECT COALESCE(SUM({_WRITE_BYTES}), 0) FROM writes "
        "WHERE thread_id = ? AND checkpoint_ns = ?",
        key,
    ).fetchone()
    return checkpoints + writes


def _load_rows(conn: sqlite3.Connection, thread_id: str, checkpoint_ns: str) -> list[PlanRow]:
    if not has_saver_tables(conn):
        raise PruneRefused(
            "this database has no SqliteSaver tables (checkpoints, writes): "
            "open the checkpoint file of a LangGraph app"
        )
    rows = [
        PlanRow(*row)
        for row in conn.execute(
            f"SELECT checkpoint_id, parent_checkpoint_id, {_CHECKPOINT_BYTES}, metadata "
            "FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id",
            (thread_id, checkpoint_ns),
        )
    ]
    if not rows:
        where = f" in namespace {checkpoint_ns!r}" if checkpoint_ns else ""
        raise PruneRefused(
            f"thread {thread_id!r} has no checkpoints{where} in this database: "
            "check the thread id (and namespace) against the thread list"
        )
    return rows


def _writes_by_checkpoint(
    conn: sqlite3.Connection, thread_id: str, checkpoint_ns: str
) -> dict[str, tuple[int, int]]:
    # checkpoint_id -> (number of write rows, bytes of their values)
    return {
        checkpoint_id: (count, size)
        for checkpoint_id, count, size in conn.execute(
            f"SELECT checkpoint_id, COUNT(*), COALESCE(SUM({_WRITE_BYTES}), 0) FROM writes "
            "WHERE thread_id = ? AND checkpoint_ns = ? GROUP BY checkpoint_id",
            (thread_id, checkpoint_ns),
        )
    }


def _delta_channels(metadata: bytes | str | None) -> list[str]:
    """Channels a checkpoint rebuilds from ancestor writes (DeltaChannel), from its metadata."""
    if metadata is None:
        return []
    try:
        counters = json.loads(metadata).get(_DELTA_COUNTERS)
    except (ValueError, AttributeError):  # not JSON, or not an object: nothing to protect
        return []
    return sorted(counters) if isinstance(counters, dict) else []


def _report(
    conn: sqlite3.Connection,
    thread_id: str,
    checkpoint_ns: str,
    rows: list[PlanRow],
    doomed: set[str],
    dry_run: bool,
) -> PruneReport:
    """The report of deleting ``doomed`` from ``rows``, computed without changing anything."""
    writes = _writes_by_checkpoint(conn, thread_id, checkpoint_ns)
    bytes_before = stored_bytes(conn, thread_id, checkpoint_ns)
    freed = sum(row.size for row in rows if row.checkpoint_id in doomed)
    freed += sum(size for cid, (_, size) in writes.items() if cid in doomed)
    return PruneReport(
        thread_id=thread_id,
        checkpoint_ns=checkpoint_ns,
        dry_run=dry_run,
        checkpoints_before=len(rows),
        checkpoints_after=len(rows) - len(doomed),
        writes_deleted=sum(count for cid, (count, _) in writes.items() if cid in doomed),
        bytes_before=bytes_before,
        bytes_after=bytes_before - freed,
        deleted_ids=tuple(row.checkpoint_id for row in rows if row.checkpoint_id in doomed),
        detached_ids=tuple(
            row.checkpoint_id
            for row in rows
            if row.checkpoint_id not in doomed and row.parent_id in doomed
        ),
    )


def _delete(cur: sqlite3.Cursor, report: PruneReport) -> None:
    key = (report.thread_id, report.checkpoint_ns)
    deleted = [(*key, checkpoint_id) for checkpoint_id in report.deleted_ids]
    where = "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
    cur.executemany(f"DELETE FROM writes {where}", deleted)
    cur.executemany(f"DELETE FROM checkpoints {where}", deleted)
    cur.executemany(
        f"UPDATE checkpoints SET parent_checkpoint_id = NULL {where}",
        [(*key, checkpoint_id) for checkpoint_id in report.detached_ids],
    )


def keep_latest_plan(rows: list[PlanRow], keep: int) -> set[str]:
    """Ids to delete so that the newest ``keep`` rows remain (rows are sorted oldest first)."""
    doomed = {row.checkpoint_id for row in rows[: max(len(rows) - keep, 0)]}
    for row in rows:
        if row.checkpoint_id in doomed or row.parent_id not in doomed:
            continue
        channels = _delta_channels(row.metadata)
        if channels:
            raise PruneRefused(
                f"checkpoint {row.checkpoint_id} would lose its parent, but it rebuilds "
                f"{', '.join(channels)} from ancestor writes (DeltaChannel): keep more "
                "checkpoints, back to one that stores a snapshot of those channels"
            )
    return doomed


def prune_keep_latest(
    conn: sqlite3.Connection,
    thread_id: str,
    keep: int,
    *,
    checkpoint_ns: str = "",
    dry_run: bool = True,
) -> PruneReport:
    """Keep the newest ``keep`` checkpoints of a thread's namespace and delete the older ones.

    Checkpoint ids sort in creation order (uuid6), so "newest" is the largest ids, across all
    branches. Deleted checkpoints take their pending writes with them; kept checkpoints whose
    parent goes get ``parent_checkpoint_id`` NULL. The head is always among the kept ones, so the
    thread still resumes.

    Args:
        conn: an open connection to a SqliteSaver database.
        thread_id: the thread to prune.
        keep: how many of the newest checkpoints to keep (at least 1).
        checkpoint_ns: the namespace ("" is the root graph; subgraphs have their own).
        dry_run: report only, change nothing (the default).

    Returns:
        The report; identical for a dry run and the real run, except ``dry_run``.

    Raises:
        PruneRefused: ``keep`` < 1, the thread is unknown, or a kept checkpoint rebuilds a
            DeltaChannel from ancestors that would be deleted. Nothing was changed.
    """
    if keep < 1:
        raise PruneRefused(
            f"keep must be at least 1 (got {keep}): the newest checkpoint is what a resume "
            "loads; to remove the whole thread use the saver's delete_thread"
        )
    if dry_run:
        rows = _load_rows(conn, thread_id, checkpoint_ns)
        return _report(conn, thread_id, checkpoint_ns, rows, keep_latest_plan(rows, keep), True)
    with write_transaction(conn) as cur:
        # plan again inside the transaction: a saver may have added checkpoints since a dry run
        rows = _load_rows(conn, thread_id, checkpoint_ns)
        report = _report(conn, thread_id, checkpoint_ns, rows, keep_latest_plan(rows, keep), False)
        _delete(cur, report)
        return report


def branch_plan(rows: list[PlanRow], thread_id: str, checkpoint_id: str) -> set[str]:
    """The checkpoint and all its descendants, refusing when the head is among them."""
    children: dict[str | None, list[str]] = {}
    for row in rows:
        children.setdefault(row.parent_id, []).append(row.checkpoint_id)
    if checkpoint_id not in {row.checkpoint_id for row in rows}:
        raise PruneRefused(
            f"thread {thread_id!r} has no checkpoint {checkpoint_id!r} in this namespace: "
            "pick one from the thread's history"
        )
    branch: set[str] = set()
    stack = [checkpoint_id]
    while stack:
        current = stack.pop()
        if current not in branch:
            branch.add(current)
            stack.extend(children.get(current, ()))
    head = rows[-1].checkpoint_id
    if head in branch:
        raise PruneRefused(
            f"checkpoint {checkpoint_id} is the head {head} or one of its ancestors: the head "
            "must still resume; delete a branch that does not lead to it, or prune old "
            "checkpoints with prune_keep_latest"
        )
    return branch


def delete_branch(
    conn: sqlite3.Connection,
    thread_id: str,
    checkpoint_id: str,
    *,
    checkpoint_ns: str = "",
    dry_run: bool = True,
) -> PruneReport:
    """Delete a checkpoint and every checkpoint descending from it, with their writes.

    Descendants are found by following ``parent_checkpoint_id`` links, so a branch is whatever
    grew from the checkpoint: a fork's edit and all its resumes, or a replay and what followed.
    Ancestors are untouched, so no kept checkpoint loses its parent.

    Args:
        conn: an open connection to a SqliteSaver database.
        thread_id: the thread.
        checkpoint_id: the first checkpoint of the branch to delete.
        checkpoint_ns: the namespace ("" is the root graph).
        dry_run: report only, change nothing (the default).

    Returns:
        The report; identical for a dry run and the real run, except ``dry_run``.

    Raises:
        PruneRefused: the thread or checkpoint is unknown, or the branch holds the head (the
            newest checkpoint). Nothing was changed.
    """
    if dry_run:
        rows = _load_rows(conn, thread_id, checkpoint_ns)
        doomed = branch_plan(rows, thread_id, checkpoint_id)
        return _report(conn, thread_id, checkpoint_ns, rows, doomed, True)
    with write_transaction(conn) as cur:
        rows = _load_rows(conn, thread_id, checkpoint_ns)
        doomed = branch_plan(rows, thread_id, checkpoint_id)
        report = _report(conn, thread_id, checkpoint_ns, rows, doomed, False)
        _delete(cur, report)
        return report
