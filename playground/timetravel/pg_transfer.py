"""Export a thread of a PostgresSaver database to JSON, and import it into another (see transfer).

The document is ``transfer``'s (same ``format`` and ``version``) with ``"storage": "postgres"``,
because the rows differ: a checkpoint and its metadata are JSONB, carried as JSON objects, values
that are not inline live in a third list, ``blobs`` (one row per channel version), and pending
writes keep PostgresSaver's column names. Bytea cells travel as base64, so an import writes the
very same bytes. The SQLite importer cannot read these rows, and this importer refuses an export
written from a SQLite file: each says so in one line rather than writing half a thread.
"""

from __future__ import annotations

import json
from typing import Any

from psycopg.types.json import Jsonb

from playground.timetravel.postgres_source import has_postgres_saver_tables
from playground.timetravel.transfer import (
    FORMAT,
    VERSION,
    ImportReport,
    TransferRefused,
    _cell,
    _encode_blob,
    check_parent_links,
    read_header,
    rows_of,
)

STORAGE = "postgres"

# column -> kind, as in transfer: "json" cells are JSON objects (JSONB), "blob" is base64 bytea
_CHECKPOINT_COLUMNS = {
    "checkpoint_ns": "str",
    "checkpoint_id": "str",
    "parent_checkpoint_id": "str?",
    "type": "str?",
    "checkpoint": "json",
    "metadata": "json",
}
_BLOB_COLUMNS = {
    "checkpoint_ns": "str",
    "channel": "str",
    "version": "str",
    "type": "str",
    "blob": "blob",
}
_WRITE_COLUMNS = {
    "checkpoint_ns": "str",
    "checkpoint_id": "str",
    "task_id": "str",
    "task_path": "str",
    "idx": "int",
    "channel": "str",
    "type": "str?",
    "blob": "blob",
}
_TABLES = {
    "checkpoints": ("checkpoints", _CHECKPOINT_COLUMNS, "checkpoint_ns, checkpoint_id"),
    "blobs": ("checkpoint_blobs", _BLOB_COLUMNS, "checkpoint_ns, channel, version"),
    "writes": ("checkpoint_writes", _WRITE_COLUMNS, "checkpoint_ns, checkpoint_id, task_id, idx"),
}


def export_thread_pg(conn, thread_id: str) -> dict[str, Any]:
    """Export every checkpoint, blob and write of a thread, in all namespaces, as a JSON-ready dict.

    Args:
        conn: a psycopg connection (dict rows) to a PostgresSaver database.
        thread_id: the thread to export.

    Returns:
        ``{"format", "version", "storage": "postgres", "thread_id", "checkpoints", "blobs",
        "writes"}``; rows are dicts of the table's columns (without ``thread_id``), ordered by
        key, JSONB as JSON objects and bytea as base64. ``transfer.dumps_export`` gives the text.

    Raises:
        TransferRefused: the database has no PostgresSaver tables, or the thread is unknown.
    """
    if not has_postgres_saver_tables(conn):
        raise TransferRefused(
            "this database has no PostgresSaver tables (checkpoints, checkpoint_blobs, "
            "checkpoint_writes): point at the checkpoint database of a LangGraph app"
        )
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "storage": STORAGE,
        "thread_id": thread_id,
    }
    for name, (table, columns, order) in _TABLES.items():
        rows = conn.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE thread_id = %s ORDER BY {order}",
            (thread_id,),
        ).fetchall()
        if name == "checkpoints" and not rows:
            raise TransferRefused(
                f"thread {thread_id!r} has no checkpoints in this database: check the thread id"
            )
        data[name] = [
            {c: _encode_blob(row[c]) if kind == "blob" else row[c] for c, kind in columns.items()}
            for row in rows
        ]
    return data


def _pg_cell(value: Any, kind: str, where: str) -> Any:
    if kind == "json":
        if not isinstance(value, dict):
            raise TransferRefused(f"{where} must be a JSON object, not {type(value).__name__}")
        return Jsonb(value)
    return _cell(value, kind, where)


def _validate(data: Any) -> tuple[str, dict[str, list[tuple]]]:
    source = read_header(data, storage=STORAGE, writer="export_thread_pg")
    rows = {
        name: rows_of(data, name, columns, cell=_pg_cell, writer="export_thread_pg")
        for name, (_, columns, _) in _TABLES.items()
    }
    if not rows["checkpoints"]:
        raise TransferRefused("the export has no checkpoints: nothing to import")
    check_parent_links([(row[0], row[1], row[2]) for row in rows["checkpoints"]])
    blob_at = list(_WRITE_COLUMNS).index("blob")
    for i, row in enumerate(rows["writes"]):
        if row[blob_at] is None:  # checkpoint_writes.blob is NOT NULL
            raise TransferRefused(f"writes[{i}].blob must be base64 text, not null")
    return source, rows


def _size(rows: dict[str, list[tuple]]) -> int:
    total = 0
    for row in rows["checkpoints"]:
        total += sum(len(json.dumps(cell.obj).encode()) for cell in row[4:6])
    for name in ("blobs", "writes"):
        total += sum(len(row[-1]) for row in rows[name] if row[-1] is not None)
    return total


def import_thread_pg(conn, data: dict[str, Any], thread_id: str | None = None) -> ImportReport:
    """Write an exported Postgres thread into a PostgresSaver database, as one transaction.

    The whole export is validated before anything is written. The target thread must be empty
    (no checkpoints, blobs or writes in any namespace), so an import never mixes two histories.
    A database without PostgresSaver tables gets them first, created by PostgresSaver itself.

    Args:
        conn: a psycopg connection (dict rows, autocommit) to a Postgres database.
        data: what :func:`export_thread_pg` returned, or the parsed JSON of a saved export.
        thread_id: the id to import under; the export's own id by default.

    Returns:
        What was written (``writes`` counts pending writes; blob rows are not counted apart).

    Raises:
        TransferRefused: unknown format, version or storage, missing fields, bad base64,
            duplicate rows, or a target thread that already has rows. Nothing was changed.
    """
    import psycopg

    source, rows = _validate(data)
    target = source if thread_id is None else thread_id
    if not isinstance(target, str) or not target:
        raise TransferRefused("thread_id must be a non-empty string")
    if not has_postgres_saver_tables(conn):
        from playground.savers import setup_postgres_tables

        setup_postgres_tables(conn)
    try:
        with conn.transaction():
            taken = conn.execute(
                "SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = %(t)s) "
                "+ (SELECT count(*) FROM checkpoint_blobs WHERE thread_id = %(t)s) "
                "+ (SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s) AS n",
                {"t": target},
            ).fetchone()["n"]
            if taken:
                raise TransferRefused(
                    f"thread {target!r} already has checkpoints or writes in this database: "
                    "import under another id (thread_id=...), or delete that thread first"
                )
            with conn.cursor() as cur:
                for name, (table, columns, _) in _TABLES.items():
                    if rows[name]:
                        cur.executemany(
                            f"INSERT INTO {table} (thread_id, {', '.join(columns)}) "
                            f"VALUES (%s{', %s' * len(columns)})",
                            [(target, *row) for row in rows[name]],
                        )
    except psycopg.errors.UniqueViolation as exc:
        raise TransferRefused(f"the export holds the same row twice ({exc})".strip()) from None
    return ImportReport(
        thread_id=target,
        source_thread_id=source,
        checkpoints=len(rows["checkpoints"]),
        writes=len(rows["writes"]),
        namespaces=tuple(sorted({row[0] for row in rows["checkpoints"]})),
        bytes=_size(rows),
    )
