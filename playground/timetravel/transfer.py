"""Export a thread to one JSON document and import it into another database of the same kind.

A workshop facilitator shares a scenario, an engineer attaches a stuck thread to a bug report:
both need the thread's rows exactly as the saver wrote them. The export carries every row of the
thread, in every namespace (subgraphs included): for a SQLite file its checkpoints and writes,
blobs base64-encoded; for Postgres its checkpoints (JSONB as JSON objects), value blobs and
writes. An import writes the very same bytes, so LangGraph reads the same history from them.

The flow (header, checks, refusals, the report) is written once, here, over the primitives of
:class:`~playground.timetravel.storage.Storage`; a backend names its tables and inserts.
Blobs are copied, never decoded: the export works for any app's types without importing its code.
Renaming the thread on import changes only the ``thread_id`` column; blobs written by old
langgraph versions that copied the thread id into checkpoint metadata keep the old id there.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from playground.timetravel.decode import is_unread
from playground.timetravel.limits import clip
from playground.timetravel.storage import DuplicateRows, ExportTable, Storage

FORMAT = "langgraph-playground-thread"
VERSION = 1


class TransferRefused(ValueError):
    """An export or import that cannot be done as asked; nothing was changed."""


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote.

    Attributes:
        thread_id: the thread the rows were written under.
        source_thread_id: the thread id in the export.
        checkpoints: checkpoint rows written.
        writes: pending-write rows written (value blob rows are not counted apart).
        namespaces: checkpoint namespaces written ("" is the root graph), sorted.
        bytes: bytes written, counted as the database's sizes count them.
    """

    thread_id: str
    source_thread_id: str
    checkpoints: int
    writes: int
    namespaces: tuple[str, ...]
    bytes: int


def encode_blob(value: bytes | str | None) -> str | None:
    """A blob column's value as export text (base64; a TEXT value as its UTF-8 bytes)."""
    if value is None:
        return None
    raw = value.encode() if isinstance(value, str) else bytes(value)
    return base64.b64encode(raw).decode("ascii")


def _refuse_without_tables(storage: Storage) -> None:
    if not storage.has_saver_tables():
        raise TransferRefused(f"this database has no {storage.saver_tables}: open the "
                              "checkpoint database of a LangGraph app")


def export_thread(storage: Storage, thread_id: str) -> dict[str, Any]:
    """Export every row of a thread, in all namespaces, as one JSON-ready dict.

    Args:
        storage: the checkpoint database (a SQLite file or a Postgres database).
        thread_id: the thread to export.

    Returns:
        ``{"format", "version", "storage", "thread_id", <one list per table>}``; rows are dicts
        of the table's columns (without ``thread_id``), in key order. Pass it to
        :func:`dumps_export` to get the text.

    Raises:
        TransferRefused: a database that cannot be exported (a saver object), no saver tables,
            or an unknown thread.
    """
    own = storage.own_export(thread_id)
    if own is not None:
        return {"format": FORMAT, "version": VERSION, "storage": storage.kind,
                "thread_id": thread_id, **own}
    if not storage.export_tables:
        raise TransferRefused(
            f"export works on SQLite checkpoint files and Postgres, not {storage.label}")
    _refuse_without_tables(storage)
    found = storage.export_rows(thread_id)
    if not found.get("checkpoints"):
        raise TransferRefused(
            f"thread {thread_id!r} has no checkpoints in this database: check the thread id")
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "storage": storage.kind,
                            "thread_id": thread_id}
    for table in storage.export_tables:
        data[table.key] = [
            {name: _exported(value, kind, f"{table.key}[{i}].{name}")
             for (name, kind), value in zip(table.columns.items(), row, strict=True)}
            for i, row in enumerate(found.get(table.key, ()))]
    return data


def _exported(value: Any, kind: str, where: str) -> Any:
    """One stored cell as export JSON: a blob as base64, a JSON object as itself."""
    if kind in ("blob", "blob!"):
        return encode_blob(value)
    if kind == "json" and is_unread(value):
        # The bounded decoder gave a marker: writing it would export other data than stored.
        raise TransferRefused(f"{where} cannot be exported: {value['__unread__']}")
    return value


def dumps_export(data: dict[str, Any]) -> str:
    """The export as JSON text, ready to save as a ``.json`` file."""
    return json.dumps(data, indent=1, ensure_ascii=False)


def loads_export(text: str) -> dict[str, Any]:
    """Parse export text, refusing anything that is not JSON (validation happens on import).

    Raises:
        TransferRefused: the text is not JSON, or nests too deep to read.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransferRefused(f"not a thread export: the text is not JSON ({exc})") from None
    except RecursionError:
        raise TransferRefused("not a thread export: its JSON nests too deep to read") from None


def _cell(value: Any, kind: str, where: str) -> Any:
    """Check one cell of an imported row; a blob becomes bytes, a JSON object stays a dict."""
    if kind in ("blob", "blob!"):
        if value is None:
            if kind == "blob!":  # a NOT NULL column
                raise TransferRefused(f"{where} must be base64 text, not null")
            return None
        if not isinstance(value, str):
            kind_name = type(value).__name__
            raise TransferRefused(f"{where} must be base64 text or null, not {kind_name}")
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise TransferRefused(f"{where} is not valid base64 ({exc})") from None
    if kind == "json":
        if not isinstance(value, dict):
            raise TransferRefused(f"{where} must be a JSON object, not {type(value).__name__}")
        return value
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


def rows_of(data: dict[str, Any], table: ExportTable) -> list[tuple]:
    """Check one list of rows in an export and return them as tuples in column order.

    Raises:
        TransferRefused: the list is missing, or a row is not an object, lacks a column or
            holds a cell of the wrong kind.
    """
    rows = data.get(table.key)
    if not isinstance(rows, list):
        raise TransferRefused(f"the export has no {table.key!r} list: was it written by "
                              "playground export?")
    parsed = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise TransferRefused(f"{table.key}[{i}] is not an object")
        missing = [name for name in table.columns if name not in row]
        if missing:
            raise TransferRefused(f"{table.key}[{i}] lacks {', '.join(missing)}")
        parsed.append(tuple(_cell(row[name], kind, f"{table.key}[{i}].{name}")
                            for name, kind in table.columns.items()))
    return parsed


def read_header(data: Any, *, storage: str) -> str:
    """Check an export's format, version and storage, and return its thread id.

    Args:
        data: The parsed export.
        storage: What the importing database is: ``sqlite`` or ``postgres``. An export without
            a ``storage`` key came from a SQLite file (the first format had none).

    Raises:
        TransferRefused: not an object, another format, version or storage, or no thread id.
    """
    if not isinstance(data, dict):
        raise TransferRefused("not a thread export: expected a JSON object")
    if data.get("format") != FORMAT:
        raise TransferRefused(
            f"unknown format {data.get('format')!r}: expected {FORMAT!r}, a file written by "
            "playground export"
        )
    if data.get("version") != VERSION:
        raise TransferRefused(
            f"unsupported export version {data.get('version')!r}: this playground reads version "
            f"{VERSION}; export the thread again with it"
        )
    found = data.get("storage", "sqlite")
    if found == "server":
        raise TransferRefused(
            "this export is an Agent Server thread's history (its values, not a saver's rows): "
            "no checkpoint database can take it; read the thread on its server with "
            "`playground history URL --thread T`")
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


def checked_rows(storage: Storage, data: Any) -> tuple[str, dict[str, list[tuple]]]:
    """An export checked whole for this database: (its thread id, its rows per table).

    Raises:
        TransferRefused: any reason :func:`import_thread` gives before writing.
    """
    source = read_header(data, storage=storage.kind)
    rows = {table.key: rows_of(data, table) for table in storage.export_tables}
    if not rows.get("checkpoints"):
        raise TransferRefused("the export has no checkpoints: nothing to import")
    check_parent_links([row[:3] for row in rows["checkpoints"]])
    return source, rows


def import_thread(storage: Storage, data: dict[str, Any], thread_id: str | None = None
                  ) -> ImportReport:
    """Write an exported thread into a database of the same kind, as one transaction.

    The whole export is validated before anything is written. The target thread must be empty
    (no rows in any namespace), so an import never mixes two histories.

    Args:
        storage: the database to write into, opened writable; one opened with
            ``open_storage(target, writable=True, create=True)`` may be a new SQLite file or
            a database without tables, which get the saver's own once the export is checked.
        data: what :func:`export_thread` returned, or the parsed JSON of a saved export.
        thread_id: the id to import under; the export's own id by default.

    Returns:
        What was written.

    Raises:
        TransferRefused: unknown format, version or storage, missing fields, bad base64, a
            parent loop, duplicate rows, or a target thread that already has rows. Nothing was
            changed.
    """
    # A place without saver rows (an Agent Server) takes none: refused before it is asked
    # anything.
    if not storage.export_tables:
        raise TransferRefused(f"import works into SQLite files and Postgres, not {storage.label}")
    if not storage.writable:
        raise TransferRefused(f"{storage.label} is open read-only: open it writable to import")
    source, rows = checked_rows(storage, data)
    target = source if thread_id is None else thread_id
    if not isinstance(target, str) or not target:
        raise TransferRefused("thread_id must be a non-empty string")
    if not storage.has_saver_tables():  # a new database: only now that nothing refuses
        storage.create_saver_tables()
    try:
        with storage.transaction():
            if storage.rows_taken(target):
                raise TransferRefused(
                    f"thread {target!r} already has checkpoints or writes in this database: "
                    "import under another id (thread_id=...), or delete that thread first"
                )
            storage.insert_rows(target, rows)
    except DuplicateRows as exc:
        raise TransferRefused(f"the export holds the same row twice ({exc})") from None
    return ImportReport(
        thread_id=target,
        source_thread_id=source,
        checkpoints=len(rows["checkpoints"]),
        writes=len(rows.get("writes", ())),
        namespaces=tuple(sorted({row[0] for row in rows["checkpoints"]})),
        bytes=storage.rows_bytes(rows),
    )
