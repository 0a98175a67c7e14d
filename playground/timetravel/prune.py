"""Delete old checkpoints or a whole branch of a thread, on any checkpoint database.

The open-source savers raise ``NotImplementedError`` for ``prune``, so this module deletes rows
itself, through the primitives of :class:`~playground.timetravel.storage.Storage`: the plan
(which ids go, what refuses) and the report are written once, here; each backend only deletes
(and on Postgres also removes the values no kept checkpoint refers to). Every function is a dry
run unless told otherwise: it returns the same report either way, so a page can show what would
go before anyone confirms.

Two rules keep a pruned thread usable:

* the head (the newest checkpoint, the one ``invoke(None, config)`` resumes from) is never
  deleted, because it is all a resume loads;
* a kept checkpoint whose parent is deleted gets ``parent_checkpoint_id`` NULL, so its history
  simply starts there instead of pointing at a row that no longer exists.

Only the given namespace is touched: subgraph checkpoints live under their own ``checkpoint_ns``
and are pruned by passing that namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

from playground.timetravel.records import delta_channels
from playground.timetravel.storage import PlanRow, Storage


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


def keep_latest_plan(rows: list[PlanRow], keep: int) -> set[str]:
    """Ids to delete so that the newest ``keep`` rows remain (rows are sorted oldest first)."""
    doomed = {row.checkpoint_id for row in rows[: max(len(rows) - keep, 0)]}
    for row in rows:
        if row.checkpoint_id in doomed or row.parent_id not in doomed:
            continue
        channels = delta_channels(row.metadata)
        if channels:
            raise PruneRefused(
                f"checkpoint {row.checkpoint_id} would lose its parent, but it rebuilds "
                f"{', '.join(channels)} from ancestor writes (DeltaChannel): keep more "
                "checkpoints, back to one that stores a snapshot of those channels"
            )
    return doomed


def _refuse_without_tables(storage: Storage) -> None:
    if not storage.has_saver_tables():
        raise PruneRefused(f"this database has no {storage.saver_tables}: open the checkpoint "
                           "database of a LangGraph app")


def _run(storage: Storage, thread_id: str, checkpoint_ns: str, dry_run: bool,
         plan: Callable[[list[PlanRow]], set[str]]) -> PruneReport:
    """Plan a deletion on the thread's rows, report it, and carry it out unless a dry run."""
    _refuse_without_tables(storage)
    if not dry_run and not storage.writable:
        raise PruneRefused(f"{storage.label} is open read-only: open it writable to prune")
    # Plan again inside the transaction that deletes: a saver may have written since a dry run.
    with nullcontext() if dry_run else storage.transaction():
        rows = storage.plan_rows(thread_id, checkpoint_ns)
        if not rows:
            where = f" in namespace {checkpoint_ns!r}" if checkpoint_ns else ""
            raise PruneRefused(
                f"thread {thread_id!r} has no checkpoints{where} in this database: "
                "check the thread id (and namespace) against the thread list"
            )
        doomed = plan(rows)
        before, after, writes_deleted = storage.deletion_bytes(thread_id, checkpoint_ns, rows,
                                                               doomed)
        report = PruneReport(
            thread_id=thread_id,
            checkpoint_ns=checkpoint_ns,
            dry_run=dry_run,
            checkpoints_before=len(rows),
            checkpoints_after=len(rows) - len(doomed),
            writes_deleted=writes_deleted,
            bytes_before=before,
            bytes_after=after,
            deleted_ids=tuple(row.checkpoint_id for row in rows if row.checkpoint_id in doomed),
            detached_ids=tuple(row.checkpoint_id for row in rows
                               if row.checkpoint_id not in doomed and row.parent_id in doomed),
        )
        if not dry_run:
            storage.delete_checkpoints(thread_id, checkpoint_ns, rows, report.deleted_ids,
                                       report.detached_ids)
    return report


def prune_keep_latest(
    storage: Storage,
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
        storage: the checkpoint database (opened writable unless ``dry_run``).
        thread_id: the thread to prune.
        keep: how many of the newest checkpoints to keep (at least 1).
        checkpoint_ns: the namespace ("" is the root graph; subgraphs have their own).
        dry_run: report only, change nothing (the default).

    Returns:
        The report; identical for a dry run and the real run, except ``dry_run``.

    Raises:
        PruneRefused: ``keep`` < 1, no saver tables, an unknown thread, or a kept checkpoint
            that rebuilds a DeltaChannel from ancestors that would be deleted. Nothing changed.
    """
    if keep < 1:
        raise PruneRefused(
            f"keep must be at least 1 (got {keep}): the newest checkpoint is what a resume "
            "loads; to remove the whole thread use the saver's delete_thread"
        )
    return _run(storage, thread_id, checkpoint_ns, dry_run,
                lambda rows: keep_latest_plan(rows, keep))


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
    storage: Storage,
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
        storage: the checkpoint database (opened writable unless ``dry_run``).
        thread_id: the thread.
        checkpoint_id: the first checkpoint of the branch to delete.
        checkpoint_ns: the namespace ("" is the root graph).
        dry_run: report only, change nothing (the default).

    Returns:
        The report; identical for a dry run and the real run, except ``dry_run``.

    Raises:
        PruneRefused: no saver tables, the thread or checkpoint is unknown, or the branch holds
            the head (the newest checkpoint). Nothing was changed.
    """
    return _run(storage, thread_id, checkpoint_ns, dry_run,
                lambda rows: branch_plan(rows, thread_id, checkpoint_id))
