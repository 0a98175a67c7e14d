"""Export a thread to one JSON document and import it into another database.

A workshop facilitator shares a scenario, an engineer attaches a stuck thread to a bug report:
both need the thread's rows exactly as the saver wrote them. The export carries every row of the
thread, in every namespace (subgraphs included), with blobs base64-encoded, so an import writes
the very same bytes and LangGraph reads the same history from them.

Blobs are copied, never decoded: the export works for any app's types without importing its code.
Renaming the thread on import changes only the ``thread_id`` column; blobs written by old
langgraph versions that copied the thread id into checkpoint metadata keep the old id there.
"""

from __future__ import annotations

import base64
import binascii
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from playground.timetravel.limits import clip
from playground.timetravel.prune import has_saver_tables, write_transaction

FORMAT = "langgraph-playground-thread"
VERSION = 1

# column -> kind; "blob" cells travel as base64 text, "str?" and "blob" may be null
_CHECKPOINT_COLUMNS = {
    "checkpoint_ns": "str",
    "checkpoint_id": "str",
    "parent_checkpoint_id": "str?",
    "type": "str?",
    "checkpoint": "blob",
    "metadata": "blob",
}
_WRITE_COLUMNS = {
    "checkpoint_ns": "str",
    "checkpoint_id": "str",
    "task_id": "str",
    "task_path": "str",
    "idx": "int",
    "channel": "str",
    "type": "str?",
    "value": "blob",
}


class TransferRefused(ValueError):
    """An export or import that cannot be done as asked; nothing was changed."""


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote.

    Attributes:
        thread_id: the thread the rows were written under.
        source_thread_id: the thread id in the export.
        checkpoints: checkpoint rows written.
        writes: pending-write rows written.
        namespaces: checkpoint namespaces written ("" is the root graph), sorted.
        bytes: checkpoint, metadata and write value bytes written.
    """

    thread_id: str
    source_thread_id: str
    checkpoints: int
    writes: int
    namespaces: tuple[str, ...]
    bytes: int


def _encode_blob(value: bytes | str | None) -> str | None:
    if value is None:
        return None
    # A TEXT value in a blob column (hand-written rows) travels as its UTF-8 bytes.
    raw = value.encode() if isinstance(value, str) else bytes(value)
    return base64.b64encode(raw).decode("ascii")


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})"))


def export_thread(conn: sqlite3.Connection, thread_id: str) -> dict[str, Any]:
    """Export every checkpoint and write of a thread, in all namespaces, as one JSON-ready dict.

    Args:
        conn: an open connection to a SqliteSaver database.
        thread_id: the thread to export.

    Returns:
        ``{"format", "version", "thread_id", "checkpoints": [...], "writes": [...]}``; rows are
        dicts of the table's columns (without ``thread_id``), ordered by namespace and id, with
        blob columns as base64 strings. Pass it to :func:`dumps_export` to get the text.

    Raises:
        TransferRefused: the database has no SqliteSaver tables, or the thread is unknown.
    """
    if not has_saver_tables(conn):
        raise TransferRefused(
            "this database has no SqliteSaver tables (checkpoints, writes): "
            "open the checkpoint file of a LangGraph app"
        )
    # Databases made before langgraph-checkpoint-sqlite added task_path read back '' for it.
    task_path = "task_path" if _has_column(conn, "writes", "task_path") else "'' AS task_path"
    checkpoints = conn.execute(
        f"SELECT {', '.join(_CHECKPOINT_COLUMNS)} FROM checkpoints WHERE thread_id = ? "
        "ORDER BY checkpoint_ns, checkpoint_id",
        (thread_id,),
    ).fetchall()
    if not checkpoints:
        raise TransferRefused(
            f"thread {thread_id!r} has no checkpoints in this database: check the thread id"
        )
    columns = ", ".join(task_path if c == "task_path" else c for c in _WRITE_COLUMNS)
    writes = conn.execute(
        f"SELECT {columns} FROM writes WHERE thread_id = ? "
        "ORDER BY checkpoint_ns, checkpoint_id, task_id, idx",
        (thread_id,),
    ).fetchall()
    return {
        "format": FORMAT,
        "version": VERSION,
        "thread_id": thread_id,
        "checkpoints": [_export_row(row, _CHECKPOINT_COLUMNS) for row in checkpoints],
        "writes": [_export_row(row, _WRITE_COLUMNS) for row in writes],
    }


def export_from(source: Any, thread_id: str) -> dict[str, Any]:
    """Export a thread from an open checkpoint source: a SQLite file or a Postgres database.

    Raises:
        TransferRefused: the source is neither, or the thread is unknown.
    """
    if source.kind == "postgres":
        from playground.timetravel.pg_transfer import export_thread_pg

        return export_thread_pg(source.conn, thread_id)
    if source.kind == "sqlite":
        return export_thread(source.conn, thread_id)
    raise TransferRefused(
        f"export works on SQLite checkpoint files and Postgres, not {source.label}"
    )


def _export_row(row: tuple, columns: dict[str, str]) -> dict[str, Any]:
    return {
        name: _encode_blob(value) if kind == "blob" else value
        for (name, kind), value in zip(columns.items(), row, strict=True)
    }


def dumps_export(data: dict[str, Any]) -> str:
    """The export as JSON text, ready to save as a ``.json`` file."""
    return json.dumps(data, indent=1, ensure_ascii=False)


def loads_export(text: str) -> dict[str, Any]:
    """Parse export text, refusing anything that is not JSON (validation happens on import).

    Raises:
        TransferRefused: the text is not JSON.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransferRefused(f"not a thread export: the text is not JSON ({exc})") from None
    except RecursionError:
        raise TransferRefused("not a thread export: its JSON nests too deep to read") from None


def _cell(value: Any, kind: str, where: str) -> Any:
    """Check one cell of an imported row and turn it into what SQLite stores."""
    if kind == "blob":
        if value is None:
            return None
        if not isinstance(value, str):
            kind_name = type(value).__name__
            raise TransferRefused(f"{where} must be base64 text or null, not {kind_name}")
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise TransferRefused(f"{where} is not valid base64 ({exc})") from None
    if value is None and kind.endswith("?"):
        return None
    expected = int if kind == "int" else str
    # bool is an int to Python, but never an index in a real export
    if not isinstance(value, expected) or isinstance(value, bool):
        raise TransferRefused(
            f"{where} must be {'an integer' if expected is int else 'a string'}, "
            f"not {type(value).__name__}"
        )
    return value


def rows_of(
    data: dict[str, Any], table: str, columns: dict[str, str], *,
    cell: Callable[[Any, str, str], Any] = _cell, writer: str = "export_thread",
) -> list[tuple]:
    """Check one list of rows in an export and return them as tuples in column order.

    Args:
        data: The parsed export.
        table: The list's key in the export.
        columns: Column name -> kind (``str``, ``str?``, ``int``, ``blob``, ...).
        cell: Checks and converts one cell (the Postgres importer adds JSON objects).
        writer: The function that writes such exports, named when the list is missing.

    Raises:
        TransferRefused: the list is missing, or a row is not an object, lacks a column or
            holds a cell of the wrong kind.
    """
    rows = data.get(table)
    if not isinstance(rows, list):
        raise TransferRefused(f"the export has no {table!r} list: was it written by {writer}?")
    parsed = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise TransferRefused(f"{table}[{i}] is not an object")
        missing = [name for name in columns if name not in row]
        if missing:
            raise TransferRefused(f"{table}[{i}] lacks {', '.join(missing)}")
        parsed.append(
            tuple(cell(row[name], kind, f"{table}[{i}].{name}") for name, kind in columns.items())
        )
    return parsed


def read_header(data: Any, *, storage: str, writer: str) -> str:
    """Check an export's format, version and storage, and return its thread id.

    Args:
        data: The parsed export.
        storage: What this importer writes: ``sqlite`` or ``postgres``. An export without a
            ``storage`` key came from a SQLite file (the first format had none).
        writer: The function that writes such exports, named when the format is wrong.

    Raises:
        TransferRefused: not an object, another format, version or storage, or no thread id.
    """
    if not isinstance(data, dict):
        raise TransferRefused("not a thread export: expected a JSON object")
    if data.get("format") != FORMAT:
        raise TransferRefused(
            f"unknown format {data.get('format')!r}: expected {FORMAT!r}, "
            f"a file written by {writer}"
        )
    if data.get("version") != VERSION:
        raise TransferRefused(
            f"unsupported export version {data.get('version')!r}: this playground reads version "
            f"{VERSION}; export the thread again with it"
        )
    found = data.get("storage", "sqlite")
    if found != storage:
        # The rows differ (blobs vs JSONB, separate blob rows): a half-readable import is worse.
        target = {"sqlite": "a SQLite file", "postgres": "a postgresql:// URL"}
        raise TransferRefused(
            f"this export was written from a {found} checkpoint database, whose rows only fit "
            f"that kind: import it into {target.get(found, f'a {found} database')} instead"
        )
    source = data.get("thread_id")
    if not isinstance(source, str) or not source:
        raise TransferRefused("the export lacks its thread_id (a non-empty string)")
    return source


def _validate(data: Any) -> tuple[str, list[tuple], list[tuple]]:
    source = read_header(data, storage="sqlite", writer="export_thread")
    checkpoints = rows_of(data, "checkpoints", _CHECKPOINT_COLUMNS)
    if not checkpoints:
        raise TransferRefused("the export has no checkpoints: nothing to import")
    check_parent_links([(row[0], row[1], row[2]) for row in checkpoints])
    return source, checkpoints, rows_of(data, "writes", _WRITE_COLUMNS)


def check_parent_links(rows: list[tuple[Any, Any, Any]]) -> None:
    """Refuse an export whose parent links loop, or name a checkpoint it does not hold.

    Args:
        rows: ``(checkpoint_ns, checkpoint_id, parent_checkpoint_id)`` of every checkpoint.

    Raises:
        TransferRefused: a loop (a checkpoint that is its own ancestor: every tree walk would
            go round it forever), or a parent missing from the root graph's checkpoints.
    """
    from playground.timetravel.records import CheckpointRecord
    from playground.timetravel.tree import broken_links

    by_ns: dict[Any, dict[str, CheckpointRecord]] = {}
    for ns, cid, parent in rows:
        by_ns.setdefault(ns, {})[str(cid)] = CheckpointRecord(
            str(cid), None if parent is None else str(parent), str(ns), None, None, 0, 0, 0)
    for ns, nodes in by_ns.items():
        broken = broken_links(nodes, dangling=ns == "")
        if broken:
            cid, why = next(iter(broken.items()))
            raise TransferRefused(f"checkpoint {clip(cid, 80)} of the export: {why}; the "
                                  "export was changed or damaged, and is not imported")


def _size(*blobs: bytes | None) -> int:
    return sum(len(blob) for blob in blobs if blob is not None)


def import_thread(
    conn: sqlite3.Connection, data: dict[str, Any], thread_id: str | None = None
) -> ImportReport:
    """Write an exported thread into a database, as one transaction.

    The whole export is validated before anything is written. The target thread must be empty
    (no checkpoints and no writes in any namespace), so an import never mixes two histories.
    A database without SqliteSaver tables gets them first, created by SqliteSaver itself.

    Args:
        conn: an open connection to a SQLite database (a new file is fine).
        data: what :func:`export_thread` returned, or the parsed JSON of a saved export.
        thread_id: the id to import under; the export's own id by default.

    Returns:
        What was written.

    Raises:
        TransferRefused: unknown format or version, missing fields, bad base64, duplicate rows,
            or a target thread that already has checkpoints. Nothing was changed.
        RuntimeError: the connection has an open transaction (commit or roll it back first).
    """
    source, checkpoints, writes = _validate(data)
    target = source if thread_id is None else thread_id
    if not isinstance(target, str) or not target:
        raise TransferRefused("thread_id must be a non-empty string")
    if not has_saver_tables(conn):
        if conn.in_transaction:  # setup's executescript would commit the caller's transaction
            raise RuntimeError(
                "the connection has an open transaction: commit or roll it back first, "
                "so this change commits on its own"
            )
        SqliteSaver(conn).setup()
    if not _has_column(conn, "writes", "task_path"):
        raise TransferRefused(
            "this database's writes table predates task_path: open it once with a current "
            "SqliteSaver (its setup adds the column), then import again"
        )
    with write_transaction(conn) as cur:
        taken = cur.execute(
            "SELECT (SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?) "
            "+ (SELECT COUNT(*) FROM writes WHERE thread_id = ?)",
            (target, target),
        ).fetchone()[0]
        if taken:
            raise TransferRefused(
                f"thread {target!r} already has checkpoints or writes in this database: "
                "import under another id (thread_id=...), or delete that thread first"
            )
        try:
            cur.executemany(
                f"INSERT INTO checkpoints (thread_id, {', '.join(_CHECKPOINT_COLUMNS)}) "
                f"VALUES (?{', ?' * len(_CHECKPOINT_COLUMNS)})",
                [(target, *row) for row in checkpoints],
            )
            cur.executemany(
                f"INSERT INTO writes (thread_id, {', '.join(_WRITE_COLUMNS)}) "
                f"VALUES (?{', ?' * len(_WRITE_COLUMNS)})",
                [(target, *row) for row in writes],
            )
        except sqlite3.IntegrityError as exc:
            raise TransferRefused(f"the export holds the same row twice ({exc})") from None
    return ImportReport(
        thread_id=target,
        source_thread_id=source,
        checkpoints=len(checkpoints),
        writes=len(writes),
        namespaces=tuple(sorted({row[0] for row in checkpoints})),
        bytes=sum(_size(row[4], row[5]) for row in checkpoints)
        + sum(_size(row[7]) for row in writes),
    )
