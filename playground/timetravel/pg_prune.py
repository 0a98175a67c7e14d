"""Prune a thread in a PostgresSaver database: keep the newest N checkpoints, or delete a branch.

The plans (which ids go, what refuses) are the SQLite module's; only the storage differs.
PostgresSaver keeps each channel value once per version in ``checkpoint_blobs``, shared by every
checkpoint that holds that version, so after deleting checkpoints the blobs no kept checkpoint
refers to are deleted too. Bytes count the JSONB rows, blobs and writes, as the engine's Postgres
source does.
"""

from __future__ import annotations

from playground.timetravel.prune import (
    PlanRow,
    PruneRefused,
    PruneReport,
    branch_plan,
    keep_latest_plan,
)


def _rows(conn, thread_id: str, ns: str) -> tuple[list[PlanRow], dict[str, dict]]:
    rows, versions = [], {}
    for row in conn.execute(
        "SELECT checkpoint_id, parent_checkpoint_id, metadata::text AS metadata, "
        "octet_length(checkpoint::text) + octet_length(metadata::text) AS size, "
        "checkpoint->'channel_versions' AS versions FROM checkpoints "
        "WHERE thread_id = %s AND checkpoint_ns = %s ORDER BY checkpoint_id",
        (thread_id, ns),
    ):
        rows.append(PlanRow(row["checkpoint_id"], row["parent_checkpoint_id"], row["size"],
                            row["metadata"]))
        versions[row["checkpoint_id"]] = row["versions"] or {}
    if not rows:
        raise PruneRefused(
            f"thread {thread_id!r} has no checkpoints in this database: check the thread id "
            "against the thread list"
        )
    return rows, versions


def _plan(conn, thread_id: str, ns: str, rows, versions, doomed: set[str], dry_run: bool):
    blobs = {
        (row["channel"], row["version"]): row["size"] or 0
        for row in conn.execute(
            "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
            "WHERE thread_id = %s AND checkpoint_ns = %s",
            (thread_id, ns),
        )
    }
    writes = {
        row["checkpoint_id"]: (row["n"], row["size"] or 0)
        for row in conn.execute(
            "SELECT checkpoint_id, count(*) AS n, sum(octet_length(blob)) AS size "
            "FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = %s "
            "GROUP BY checkpoint_id",
            (thread_id, ns),
        )
    }
    kept = [row for row in rows if row.checkpoint_id not in doomed]
    referenced = {
        (channel, str(version))
        for row in kept
        for channel, version in versions[row.checkpoint_id].items()
    }
    unreferenced = [key for key in blobs if key not in referenced]
    before = (
        sum(row.size for row in rows) + sum(blobs.values())
        + sum(size for _, size in writes.values())
    )
    after = (
        sum(row.size for row in kept) + sum(blobs[key] for key in blobs if key in referenced)
        + sum(size for cid, (_, size) in writes.items() if cid not in doomed)
    )
    report = PruneReport(
        thread_id=thread_id,
        checkpoint_ns=ns,
        dry_run=dry_run,
        checkpoints_before=len(rows),
        checkpoints_after=len(kept),
        writes_deleted=sum(n for cid, (n, _) in writes.items() if cid in doomed),
        bytes_before=int(before),
        bytes_after=int(after),
        deleted_ids=tuple(row.checkpoint_id for row in rows if row.checkpoint_id in doomed),
        detached_ids=tuple(row.checkpoint_id for row in kept if row.parent_id in doomed),
    )
    return report, unreferenced


def _run(conn, thread_id: str, ns: str, dry_run: bool, plan) -> PruneReport:
    if dry_run:
        rows, versions = _rows(conn, thread_id, ns)
        return _plan(conn, thread_id, ns, rows, versions, plan(rows), True)[0]
    # Plan again inside the transaction that deletes: a saver may have written since a dry run.
    with conn.transaction():
        rows, versions = _rows(conn, thread_id, ns)
        report, unreferenced = _plan(conn, thread_id, ns, rows, versions, plan(rows), False)
        _apply(conn, report, unreferenced)
    return report


def _apply(conn, report: PruneReport, unreferenced: list[tuple[str, str]]) -> None:
    key = (report.thread_id, report.checkpoint_ns)
    doomed = list(report.deleted_ids)
    # Runs inside the caller's transaction.
    conn.execute(
        "DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = %s "
        "AND checkpoint_id = ANY(%s)", (*key, doomed),
    )
    conn.execute(
        "DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s "
        "AND checkpoint_id = ANY(%s)", (*key, doomed),
    )
    conn.execute(
        "UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = %s "
        "AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)",
        (*key, list(report.detached_ids)),
    )
    for channel, version in unreferenced:
        conn.execute(
            "DELETE FROM checkpoint_blobs WHERE thread_id = %s AND checkpoint_ns = %s "
            "AND channel = %s AND version = %s", (*key, channel, version),
        )


def prune_keep_latest_pg(
    conn, thread_id: str, keep: int, *, checkpoint_ns: str = "", dry_run: bool = True
) -> PruneReport:
    """Keep the newest ``keep`` checkpoints of a thread on Postgres (see ``prune_keep_latest``).

    Args:
        conn: a psycopg connection (dict rows) to a PostgresSaver database.
        thread_id: the thread.
        keep: how many of the newest checkpoints stay (at least 1; the head always does).
        checkpoint_ns: the namespace ("" is the root graph).
        dry_run: report only (the default).

    Raises:
        PruneRefused: ``keep`` < 1, an unknown thread, or a DeltaChannel that would lose its
            ancestors. Nothing was changed.
    """
    if keep < 1:
        raise PruneRefused(f"keep must be at least 1 (got {keep}): the head is what resumes")
    return _run(conn, thread_id, checkpoint_ns, dry_run, lambda rows: keep_latest_plan(rows, keep))


def delete_branch_pg(
    conn, thread_id: str, checkpoint_id: str, *, checkpoint_ns: str = "", dry_run: bool = True
) -> PruneReport:
    """Delete a checkpoint and everything made from it, on Postgres; never the head's branch.

    Raises:
        PruneRefused: an unknown thread or checkpoint, or the branch holds the head.
    """
    return _run(conn, thread_id, checkpoint_ns, dry_run,
                lambda rows: branch_plan(rows, thread_id, checkpoint_id))
