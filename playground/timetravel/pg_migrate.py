"""Repair a thread stranded by a schema change in a PostgresSaver database (see ``migrate``).

The rename and its refusals are the SQLite module's; only the storage differs. PostgresSaver
keeps the checkpoint as JSONB: primitive values inline in ``channel_values``, every channel's
version in ``channel_versions``, and any other value as a ``checkpoint_blobs`` row keyed by
``(channel, version)``, which the saver finds by joining on the head's ``channel_versions``.

So renaming ``old`` in the head also needs a blob row under the new name. Older checkpoints of
the thread hold the same ``(old, version)`` and still join on that row, so it is never renamed:
the rename inserts a copy under ``(new, version)`` and leaves the old row to the history that
needs it (replaying an old checkpoint then still works under the old schema). Prune deletes the
old row once no kept checkpoint refers to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from psycopg.types.json import Jsonb

from playground.timetravel.migrate import (
    _DELTA_COUNTERS,
    MigrationRefused,
    MigrationReport,
    StrandedThread,
    refuse_bad_names,
    refuse_unknown_layout,
    refuse_unsafe_rename,
    rename_in_checkpoint,
    schema_set,
    stranded_head,
)
from playground.timetravel.postgres_source import has_postgres_saver_tables


def _require_tables(conn) -> None:
    if not has_postgres_saver_tables(conn):
        raise MigrationRefused(
            "this database has no PostgresSaver tables (checkpoints, checkpoint_blobs, "
            "checkpoint_writes): point at the checkpoint database of a LangGraph app"
        )


def threads_with_channel_pg(conn, channel: str) -> list[str]:
    """Ids of the threads whose newest root checkpoint holds ``channel`` (value or version).

    Args:
        conn: a psycopg connection (dict rows) to a PostgresSaver database.
        channel: the state key, e.g. ``etag``.

    Raises:
        MigrationRefused: the database has no PostgresSaver tables.
    """
    _require_tables(conn)
    # The head is the largest checkpoint_id, the row PostgresSaver.get_tuple resumes from.
    rows = conn.execute(
        "SELECT thread_id FROM ("
        "  SELECT DISTINCT ON (thread_id) thread_id, checkpoint FROM checkpoints "
        "  WHERE checkpoint_ns = '' ORDER BY thread_id, checkpoint_id DESC"
        ") heads WHERE jsonb_typeof(checkpoint -> 'channel_values') = 'object' "
        "AND (checkpoint -> 'channel_values' ? %(c)s OR checkpoint -> 'channel_versions' ? %(c)s) "
        "ORDER BY thread_id",
        {"c": channel},
    ).fetchall()
    return [row["thread_id"] for row in rows]


@dataclass(frozen=True)
class _Plan:
    report: MigrationReport
    checkpoint: dict
    blob_version: str | None  # the version of old's blob row to copy under new, if any


def _plan(conn, thread_id: str, old: str, new: str) -> _Plan:
    """Work out the rewritten JSONB, the blob to copy and the report, refusing anything unsafe."""
    keep_both = refuse_bad_names(old, new)
    _require_tables(conn)
    head = conn.execute(
        "SELECT checkpoint_id, checkpoint, metadata FROM checkpoints "
        "WHERE thread_id = %s AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    ).fetchone()
    if head is None:
        raise MigrationRefused(
            f"thread {thread_id!r} has no checkpoints in this database: check the id; "
            f"threads_with_channel_pg(conn, {old!r}) lists the threads that hold {old!r}"
        )
    checkpoint_id, checkpoint = head["checkpoint_id"], head["checkpoint"]
    where = f"thread {thread_id!r}, checkpoint {checkpoint_id}"
    refuse_unknown_layout(checkpoint, f"{where}: the checkpoint", keep_both)
    # JSON read into Python and written back must be the same JSONB, or the rewrite would
    # change more than the rename (the JSONB twin of migrate's byte-for-byte check).
    same = conn.execute(
        "SELECT checkpoint = %s AS same FROM checkpoints WHERE thread_id = %s "
        "AND checkpoint_ns = '' AND checkpoint_id = %s",
        (Jsonb(checkpoint), thread_id, checkpoint_id),
    ).fetchone()
    if not same["same"]:
        raise MigrationRefused(f"{where}: the JSONB does not round-trip exactly: {keep_both}")

    versions = checkpoint["channel_versions"]
    pending_old = conn.execute(
        "SELECT count(*) AS n FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = '' "
        "AND checkpoint_id = %s AND channel = %s",
        (thread_id, checkpoint_id, old),
    ).fetchone()["n"]
    counters = (head["metadata"] or {}).get(_DELTA_COUNTERS)
    refuse_unsafe_rename(
        checkpoint, old, new, where=where, keep_both=keep_both, pending_writes=pending_old,
        delta_channels=set(counters) if isinstance(counters, dict) else set(),
        listing_hint="threads_with_channel_pg lists the threads whose head holds a channel",
    )

    blob_version = None
    if old in versions:
        version = str(versions[old])
        blob = conn.execute(
            "SELECT type, blob FROM checkpoint_blobs WHERE thread_id = %s AND checkpoint_ns = '' "
            "AND channel = %s AND version = %s",
            (thread_id, old, version),
        ).fetchone()
        if blob is not None:
            taken = conn.execute(
                "SELECT type, blob FROM checkpoint_blobs WHERE thread_id = %s "
                "AND checkpoint_ns = '' AND channel = %s AND version = %s",
                (thread_id, new, version),
            ).fetchone()
            if taken is not None and (taken["type"], taken["blob"]) != (blob["type"], blob["blob"]):
                raise MigrationRefused(
                    f"{where}: a different blob is already stored for {new!r} at version "
                    f"{version} (an older checkpoint used that name): {keep_both}"
                )
            blob_version = version

    changed = rename_in_checkpoint(checkpoint, old, new)
    if blob_version is not None:
        changed.append("checkpoint_blobs")
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
    return _Plan(report, checkpoint, blob_version)


def rename_channel_pg(
    conn, thread_id: str, old: str, new: str, *, apply: bool = False
) -> MigrationReport:
    """Rename state channel ``old`` to ``new`` in a thread's newest root checkpoint, on Postgres.

    Covers the head's JSONB (channel_values, channel_versions, each node's versions_seen,
    updated_channels), the value's blob row (copied under ``new`` at the same version; the old
    row stays for the older checkpoints that share it) and the head's pending writes.

    Args:
        conn: a psycopg connection (dict rows, autocommit) to a PostgresSaver database.
        thread_id: the thread to repair.
        old: the key the thread was written with (e.g. ``etag``).
        new: the key the current schema uses (e.g. ``version``).
        apply: change the database; by default only report what would change.

    Returns:
        The report, with ``applied`` telling whether the database changed; ``changed`` names
        ``checkpoint_blobs`` when a blob row was copied.

    Raises:
        MigrationRefused: the thread is unknown; the head is not a checkpoint this tool
            understands; ``old`` is absent; ``new`` already holds a value or version; ``old``
            is a DeltaChannel. Nothing was changed.
    """
    if not apply:
        return _plan(conn, thread_id, old, new).report
    # Plan again inside the transaction that writes: a saver may have written since a dry run.
    with conn.transaction():
        # Like migrate's BEGIN IMMEDIATE: no saver can add a newer head between plan and write
        # (this mode conflicts with the ROW EXCLUSIVE lock every INSERT/UPDATE takes; readers
        # go on). Held for the few statements below only.
        conn.execute("LOCK TABLE checkpoints IN SHARE ROW EXCLUSIVE MODE")
        plan = _plan(conn, thread_id, old, new)
        key = (thread_id, plan.report.checkpoint_id)
        conn.execute(
            "UPDATE checkpoints SET checkpoint = %s "
            "WHERE thread_id = %s AND checkpoint_ns = '' AND checkpoint_id = %s",
            (Jsonb(plan.checkpoint), *key),
        )
        if plan.blob_version is not None:
            conn.execute(
                "INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, "
                "blob) SELECT thread_id, checkpoint_ns, %s, version, type, blob "
                "FROM checkpoint_blobs WHERE thread_id = %s AND checkpoint_ns = '' "
                "AND channel = %s AND version = %s "
                "ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING",
                (new, thread_id, old, plan.blob_version),
            )
        conn.execute(
            "UPDATE checkpoint_writes SET channel = %s WHERE thread_id = %s "
            "AND checkpoint_ns = '' AND checkpoint_id = %s AND channel = %s",
            (new, *key, old),
        )
    return MigrationReport(**{**plan.report.__dict__, "applied": True})


def find_stranded_pg(conn, schema_keys: Iterable[str]) -> list[StrandedThread]:
    """Threads whose newest root checkpoint holds channels the schema lacks, on Postgres.

    The same rules as :func:`playground.timetravel.migrate.find_stranded`, read from the JSONB
    head rows (small values are inline there, which is all the suggestions need).
    """
    schema = schema_set(schema_keys)
    stranded = []
    for row in conn.execute(
        "SELECT DISTINCT ON (thread_id) thread_id, checkpoint_id, checkpoint FROM checkpoints "
        "WHERE checkpoint_ns = '' ORDER BY thread_id, checkpoint_id DESC"
    ):
        found = stranded_head(row["thread_id"], row["checkpoint_id"], row["checkpoint"] or {},
                              schema)
        if found is not None:
            stranded.append(found)
    return stranded
