"""What a SQLite file's writes are made of: the saver's tables, a transaction that locks first,
and the primitives prune, migrate and transfer run on (planning and deleting rows, a thread's head
rewritten byte for byte, export and insert rows). The flows are the engine's
(``timetravel/prune.py``, ``migrate.py``, ``transfer.py``); this module holds only their SQL and
how it is run here. A mixin of :class:`~playground.places.sqlite.SqliteStorage`, which holds the
connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import orjson
import ormsgpack

from playground.timetravel.storage import (
    DuplicateRows,
    ExportTable,
    Head,
    PlanRow,
    export_columns,
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
