"""What a SQLite file's writes are made of: the saver's tables, a transaction that locks first,
and the primitives prune, migrate and transfer run on (planning and deleting rows, a thread's head
rewritten byte for byte, export and insert rows). The flows are the engine's
(``timetravel/prune.py``, ``migrate.py``, ``transfer.py``); this module holds only their SQL and
how it is run here. A mixin of :class:`~playground.places.sqlite.SqliteStorage`, which holds the
connection.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import orjson
import ormsgpack

from playground.timetravel.decode import bounded_json_loads, is_unread
from playground.timetravel.msgpack_frames import NotMsgpack, map_items, packed_map
from playground.timetravel.portable import (
    VALUES,
    NotPortable,
    PortableCheckpoint,
    PortableThread,
    PortableWrite,
    framed,
)
from playground.timetravel.storage import (
    CheckpointLink,
    DuplicateRows,
    ExportTable,
    Head,
    PlanRow,
    export_columns,
    kept_rows,
)

# What writes are made of: the saver's tables, and a transaction that locks first.
_SELECT_SAVER_TABLES = (
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
    "('checkpoints', 'writes')")
_BEGIN_IMMEDIATE = "BEGIN IMMEDIATE"

# Sizes. length() of a TEXT value counts characters; the cast makes every size a byte count.
_CHECKPOINT_BYTES = (
    "COALESCE(length(CAST(checkpoint AS BLOB)), 0) + COALESCE(length(CAST(metadata AS BLOB)), 0)"
)
_WRITE_BYTES = "COALESCE(length(CAST(value AS BLOB)), 0)"
_SUM_CHECKPOINT_BYTES = (
    f"SELECT COALESCE(SUM({_CHECKPOINT_BYTES}), 0) FROM checkpoints "
    "WHERE thread_id = ? AND checkpoint_ns = ?")
_SUM_WRITE_BYTES = (
    f"SELECT COALESCE(SUM({_WRITE_BYTES}), 0) FROM writes "
    "WHERE thread_id = ? AND checkpoint_ns = ?")

# Prune.
_SELECT_PLAN_ROWS = (
    f"SELECT checkpoint_id, parent_checkpoint_id, {_CHECKPOINT_BYTES}, metadata "
    "FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id")
_SELECT_WRITES_BY_CHECKPOINT = (
    f"SELECT checkpoint_id, COUNT(*), COALESCE(SUM({_WRITE_BYTES}), 0) FROM writes "
    "WHERE thread_id = ? AND checkpoint_ns = ? GROUP BY checkpoint_id")
_ONE_CHECKPOINT = "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?"
_DELETE_WRITES = f"DELETE FROM writes {_ONE_CHECKPOINT}"
_DELETE_CHECKPOINTS = f"DELETE FROM checkpoints {_ONE_CHECKPOINT}"
_DETACH_CHECKPOINTS = f"UPDATE checkpoints SET parent_checkpoint_id = NULL {_ONE_CHECKPOINT}"

# Migrate. The head is the largest checkpoint_id, the same row SqliteSaver.get_tuple resumes
# from; {where} narrows the heads to one thread (_HEADS_OF_THREAD) or is empty.
_SELECT_HEADS = (
    "SELECT c.thread_id, c.checkpoint_id, c.type, c.checkpoint, c.metadata "
    "FROM checkpoints c JOIN ("
    "  SELECT thread_id, MAX(checkpoint_id) AS newest FROM checkpoints "
    "  WHERE checkpoint_ns = '' {where} GROUP BY thread_id"
    ") n ON c.thread_id = n.thread_id AND c.checkpoint_id = n.newest "
    "WHERE c.checkpoint_ns = '' ORDER BY c.thread_id")
_HEADS_OF_THREAD = "AND thread_id = ?"
_COUNT_CHANNEL_WRITES = (
    "SELECT COUNT(*) FROM writes WHERE thread_id = ? AND checkpoint_ns = '' "
    "AND checkpoint_id = ? AND channel = ?")
_UPDATE_HEAD_BLOB = ("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = ? "
                     "AND checkpoint_ns = '' AND checkpoint_id = ?")
_RENAME_HEAD_WRITES = ("UPDATE writes SET channel = ? WHERE thread_id = ? AND "
                       "checkpoint_ns = '' AND checkpoint_id = ? AND channel = ?")

# Transfer: {columns} and {names} are an ExportTable's column list, {marks} its ? marks.
_EXPORT_ROWS = "SELECT {columns} FROM {table} WHERE thread_id = ? ORDER BY {order}"
_COUNT_THREAD_ROWS = (
    "SELECT (SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?) "
    "+ (SELECT COUNT(*) FROM writes WHERE thread_id = ?)")
_INSERT_ROWS = "INSERT INTO {table} (thread_id, {names}) VALUES ({marks})"

# Clone: each checkpoint's place in its thread; a subgraph's metadata names the root checkpoint
# its call ran from (parsed here: json_extract of a BLOB reads it as SQLite's binary JSONB).
_SELECT_LINKS = (
    "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
    "CASE WHEN checkpoint_ns = '' THEN NULL ELSE metadata END FROM checkpoints "
    "WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id")


_REWRITABLE = ("channel_values", "channel_versions", "versions_seen")
_PACK_OPTIONS = ormsgpack.OPT_NON_STR_KEYS | ormsgpack.OPT_PASSTHROUGH_DATACLASS


@dataclass(frozen=True)
class _Ext:
    """A msgpack extension value (an app's own class), carried as its exact bytes."""

    code: int
    data: bytes


def _ext_default(value: object) -> object:
    if isinstance(value, _Ext):
        return ormsgpack.Ext(value.code, value.data)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _pack(value: object) -> bytes:
    return ormsgpack.packb(value, default=_ext_default, option=_PACK_OPTIONS)


def _structure(type_: str | None, blob: bytes | None) -> tuple[dict | None, str | None]:
    """A head blob as plain msgpack structure for a rename, or (None, why it cannot be)."""
    if type_ != "msgpack" or not isinstance(blob, bytes):
        return None, f"stored as {type_!r}; only 'msgpack' blobs can be rewritten"
    try:
        value = ormsgpack.unpackb(blob, ext_hook=_Ext, option=ormsgpack.OPT_NON_STR_KEYS)
    except (ValueError, TypeError) as exc:
        return None, f"the blob does not decode ({exc})"
    if not isinstance(value, dict) or not all(isinstance(value.get(k), dict)
                                              for k in _REWRITABLE):
        return None, ("the blob lacks channel_values, channel_versions or versions_seen, so it "
                      "is not a checkpoint this tool understands")
    return value, None


def _no_object(code: int, data: bytes) -> object:
    raise NotMsgpack(f"an extension value (type {code})")


def _frame_part(blob: bytes, start: int, end: int, where: str) -> object:
    """A part of a checkpoint beside its values (versions, ``ts``...) as plain data: it holds
    strings and numbers; an extension value there is refused, never built."""
    try:
        return ormsgpack.unpackb(blob[start:end], ext_hook=_no_object,
                                 option=ormsgpack.OPT_NON_STR_KEYS)
    except (NotMsgpack, ValueError, TypeError) as exc:
        raise NotPortable(f"{where} holds what is not plain data ({exc}): it cannot be "
                          "carried to another kind of database without decoding it") from None


def _portable_checkpoint(row: tuple) -> PortableCheckpoint:
    """One SqliteSaver row cut into its frame and its values' bytes (never decoded)."""
    ns, cid, parent, type_, blob, metadata = row
    if type_ != "msgpack" or not isinstance(blob, bytes):
        raise NotPortable(f"checkpoint {cid} is stored as {type_!r}: only msgpack checkpoints "
                          "(LangGraph in Python) can be carried to another kind of database")
    frame: dict = {}
    values: dict[str, bytes] = {}
    try:
        for key, start, end in map_items(blob):
            if key == VALUES:
                values = {channel: blob[at:stop] for channel, at, stop in map_items(blob, start)}
            else:
                frame[key] = _frame_part(blob, start, end, f"checkpoint {cid}'s {key}")
    except NotMsgpack as exc:
        raise NotPortable(f"checkpoint {cid} is not a msgpack checkpoint ({exc})") from None
    meta = bounded_json_loads(metadata) if metadata else {}
    if is_unread(meta) or not isinstance(meta, dict):
        raise NotPortable(f"checkpoint {cid}'s metadata is not a JSON object")
    return PortableCheckpoint(ns, cid, parent, frame, values, meta)


def _checkpoint_blob(checkpoint: PortableCheckpoint) -> bytes:
    """The SqliteSaver blob of a checkpoint: one msgpack map, its values' bytes laid in as
    they are (msgpack is concatenative), its frame packed as plain data."""
    try:
        return packed_map([
            (key, packed_map(list(checkpoint.values.items())) if key == VALUES
             else ormsgpack.packb(checkpoint.frame[key]))
            for key in framed(checkpoint.frame)])
    except (TypeError, ValueError) as exc:
        raise NotPortable(f"checkpoint {checkpoint.checkpoint_id}'s frame cannot be written "
                          f"as msgpack ({exc})") from None


class SqliteWrites:
    """The write primitives of :class:`~playground.places.sqlite.SqliteStorage` (a mixin)."""

    saver_tables = "SqliteSaver tables (checkpoints, writes)"
    export_tables = (
        ExportTable("checkpoints", "checkpoints", {
            "checkpoint_ns": "str", "checkpoint_id": "str", "parent_checkpoint_id": "str?",
            "type": "str?", "checkpoint": "blob", "metadata": "blob"},
            "checkpoint_ns, checkpoint_id"),
        ExportTable("writes", "writes", {
            "checkpoint_ns": "str", "checkpoint_id": "str", "task_id": "str", "task_path": "str",
            "idx": "int", "channel": "str", "type": "str?", "value": "blob"},
            "checkpoint_ns, checkpoint_id, task_id, idx"),
    )

    def has_saver_tables(self) -> bool:
        """True when the file has SqliteSaver's ``checkpoints`` and ``writes`` tables."""
        names = {row[0] for row in self.conn.execute(_SELECT_SAVER_TABLES)}
        return names == {"checkpoints", "writes"}

    def create_saver_tables(self) -> None:
        """Make SqliteSaver's tables, by SqliteSaver itself (a new file an import fills)."""
        from langgraph.checkpoint.sqlite import SqliteSaver

        SqliteSaver(self.conn).setup()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: the write lock is taken before the body reads, so
        the rows a change was planned on cannot change under it (a saver in another process
        waits); rolled back on any error, a failed commit included.

        Raises:
            RuntimeError: the connection already has an open transaction.
        """
        if self.conn.in_transaction:
            raise RuntimeError("the connection has an open transaction: commit or roll it back "
                               "first, so this change commits on its own")
        self.conn.execute(_BEGIN_IMMEDIATE)
        try:
            yield
            self.conn.commit()
        except BaseException:
            self.conn.rollback()
            raise

    def stored_bytes(self, thread_id: str, checkpoint_ns: str = "") -> int:
        """Bytes of a thread's namespace: checkpoint and metadata blobs plus write values."""
        key = (thread_id, checkpoint_ns)
        (checkpoints,) = self.conn.execute(_SUM_CHECKPOINT_BYTES, key).fetchone()
        (writes,) = self.conn.execute(_SUM_WRITE_BYTES, key).fetchone()
        return checkpoints + writes

    def plan_rows(self, thread_id: str, checkpoint_ns: str) -> list[PlanRow]:
        """The thread's checkpoints in a namespace, oldest first, with their sizes."""
        return [PlanRow(*row) for row in self.conn.execute(
            _SELECT_PLAN_ROWS, (thread_id, checkpoint_ns))]

    def deletion_bytes(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                       doomed: set[str]) -> tuple[int, int, int]:
        """Before, after and writes deleted: the doomed rows' blobs and their writes go."""
        writes = {cid: (count, size) for cid, count, size in self.conn.execute(
            _SELECT_WRITES_BY_CHECKPOINT, (thread_id, checkpoint_ns))}
        # The rows are every checkpoint of the namespace, each sized as stored_bytes sizes it.
        before = sum(row.size for row in rows) + sum(size for _, size in writes.values())
        freed = sum(row.size for row in rows if row.checkpoint_id in doomed)
        freed += sum(size for cid, (_, size) in writes.items() if cid in doomed)
        return before, before - freed, sum(n for cid, (n, _) in writes.items() if cid in doomed)

    def delete_checkpoints(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                           deleted: Iterable[str], detached: Iterable[str]) -> None:
        """Delete checkpoints and their writes; detached ones lose their parent link."""
        gone = [(thread_id, checkpoint_ns, cid) for cid in deleted]
        self.conn.executemany(_DELETE_WRITES, gone)
        self.conn.executemany(_DELETE_CHECKPOINTS, gone)
        self.conn.executemany(_DETACH_CHECKPOINTS,
                              [(thread_id, checkpoint_ns, cid) for cid in detached])

    def heads(self, thread_id: str | None = None) -> Iterator[Head]:
        """Each thread's newest root checkpoint, its blob read as plain msgpack structure (an
        app's own values kept as their exact bytes)."""
        where, params = (_HEADS_OF_THREAD, (thread_id,)) if thread_id is not None else ("", ())
        rows = self.conn.execute(_SELECT_HEADS.format(where=where), params).fetchall()
        for tid, cid, type_, blob, metadata in rows:
            checkpoint, problem = _structure(type_, blob)
            try:
                meta = orjson.loads(metadata) if metadata else {}
            except orjson.JSONDecodeError:
                meta = {}
            held = frozenset(key for key, value in (checkpoint or {}).get(
                "channel_values", {}).items() if isinstance(key, str) and value is not None)
            yield Head(tid, cid, checkpoint, meta if isinstance(meta, dict) else {}, held,
                       problem, blob)

    def rewrite_problem(self, head: Head) -> str | None:
        """A blob that would not re-encode to the very same bytes is not rewritten (say a
        float32 that would come back as a float64)."""
        if _pack(head.checkpoint) != head.stored:
            return "the blob does not re-encode byte for byte"
        return None

    def count_writes(self, thread_id: str, checkpoint_id: str, channel: str) -> int:
        """Pending writes on ``channel`` under a root checkpoint."""
        (count,) = self.conn.execute(
            _COUNT_CHANNEL_WRITES, (thread_id, checkpoint_id, channel)
        ).fetchone()
        return count

    def rename_extra(self, head: Head, old: str, new: str) -> tuple[list[str], None]:
        """Nothing beyond the blob and its writes: SQLite keeps every value inline."""
        return [], None

    def rewrite_head(self, head: Head, checkpoint: dict, old: str, new: str,
                     plan: object) -> None:
        """Store the renamed blob as the head and move its pending writes to ``new``."""
        key = (head.thread_id, head.checkpoint_id)
        self.conn.execute(_UPDATE_HEAD_BLOB, (_pack(checkpoint), *key))
        self.conn.execute(_RENAME_HEAD_WRITES, (new, *key, old))

    def export_rows(self, thread_id: str) -> dict[str, list[tuple]]:
        """The thread's checkpoints and writes, as stored."""
        return {table.key: self.conn.execute(
            _EXPORT_ROWS.format(columns=export_columns(table, self.keeps_task_paths),
                                table=table.table, order=table.order), (thread_id,)).fetchall()
            for table in self.export_tables}

    def rows_taken(self, thread_id: str) -> int:
        """Checkpoint and write rows the thread already has."""
        (taken,) = self.conn.execute(_COUNT_THREAD_ROWS, (thread_id, thread_id)).fetchone()
        return taken

    def insert_rows(self, thread_id: str, rows: dict[str, list[tuple]]) -> None:
        """Insert checked export rows under ``thread_id``."""
        try:
            for table in self.export_tables:
                names = ", ".join(table.columns)
                marks = ", ".join("?" * (len(table.columns) + 1))
                self.conn.executemany(
                    _INSERT_ROWS.format(table=table.table, names=names, marks=marks),
                    [(thread_id, *row) for row in rows.get(table.key, ())])
        except sqlite3.IntegrityError as exc:
            raise DuplicateRows(str(exc)) from None

    def rows_bytes(self, rows: dict[str, list[tuple]]) -> int:
        """Checkpoint, metadata and write value bytes of export rows."""
        def size(*blobs: bytes | None) -> int:
            return sum(len(blob) for blob in blobs if blob is not None)

        return (sum(size(row[4], row[5]) for row in rows.get("checkpoints", ()))
                + sum(size(row[7]) for row in rows.get("writes", ())))

    def checkpoint_links(self, thread_id: str) -> list[CheckpointLink]:
        """Every checkpoint's namespace, id and parent from the columns; a subgraph's root
        checkpoint from its metadata (``parents[""]``)."""
        links = []
        for ns, cid, parent, metadata in self.conn.execute(_SELECT_LINKS, (thread_id,)):
            root = None
            if metadata:
                meta = bounded_json_loads(metadata)
                parents = meta.get("parents") if isinstance(meta, dict) else None
                found = parents.get("") if isinstance(parents, dict) else None
                root = found if isinstance(found, str) else None
            links.append(CheckpointLink(ns, cid, parent, root))
        return links

    def branch_rows(self, thread_id: str, keep: frozenset[tuple[str, str]] | None
                    ) -> dict[str, list[tuple]]:
        """The thread's checkpoints and writes as stored, of the kept checkpoints."""
        rows = self.export_rows(thread_id)
        return {table.key: kept_rows(table, rows.get(table.key, []), keep)
                for table in self.export_tables}

    def portable_of(self, rows: dict[str, list[tuple]]) -> PortableThread:
        """Each checkpoint blob cut at its framing into the frame (plain data) and each
        channel's value bytes; writes as stored."""
        return PortableThread(
            [_portable_checkpoint(row) for row in rows.get("checkpoints", ())],
            [PortableWrite(*row) for row in rows.get("writes", ())])

    def rows_of_portable(self, thread: PortableThread) -> dict[str, list[tuple]]:
        """Rows as SqliteSaver.put writes them: one msgpack blob per checkpoint with every
        value inline, metadata as JSON text (``json.dumps``, as the saver dumps it)."""
        return {
            "checkpoints": [
                (c.checkpoint_ns, c.checkpoint_id, c.parent_id, "msgpack", _checkpoint_blob(c),
                 json.dumps(c.metadata, ensure_ascii=False).encode("utf-8", "ignore"))
                for c in thread.checkpoints],
            "writes": [
                (w.checkpoint_ns, w.checkpoint_id, w.task_id, w.task_path, w.idx, w.channel,
                 w.type, w.value) for w in thread.writes],
        }
