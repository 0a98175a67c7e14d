"""Checkpoints of a SqliteSaver database, read with SQL.

Ids, parent links and sizes come from SQL columns and aggregates; blobs are decoded only for what
SQL cannot answer (next nodes, timestamps, values), always by the safe decoder, which never
imports or calls what a blob names. Inspection opens the file read-only (``mode=ro``).
"""

from __future__ import annotations

import functools
import hashlib
import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

import orjson

from playground.timetravel.decode import decode_checkpoint, decode_typed
from playground.timetravel.errors import CheckpointDbError, UnknownThread, UnreadableCheckpoint
from playground.timetravel.limits import ReadStopped, clip, limits, took_too_long
from playground.timetravel.records import (
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    detail_of,
    next_nodes,
    state_values,
    task_node,
)
from playground.timetravel.signals import SIGNAL_CHANNELS, TaskSignal, signals_of
from playground.timetravel.source import PendingWrite
from playground.timetravel.store_items import (
    MAX_STORE_VALUE_BYTES,
    SHOWN_STORE_ITEMS,
    StoreItem,
    store_item,
)

_REQUIRED = {
    "checkpoints": {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id",
                    "type", "checkpoint", "metadata"},
    "writes": {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "task_path", "idx",
               "channel", "type", "value"},
}
_SQLITE_MAGIC = b"SQLite format 3\x00"
_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit
_PROGRESS_EVERY = 10_000  # SQLite VM instructions between two deadline checks


_MAX_METADATA = 1024 * 1024  # metadata is a small JSON object; past this it is not parsed


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)


def _stoppable(method):
    """A read that says "took longer than N s to read: stopped" when its deadline stopped it."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.OperationalError as exc:
            if _interrupted(exc):
                raise took_too_long(self.label, limits().read_seconds) from None
            raise

    return guarded


def _too_many(label: str, what: str) -> ReadStopped:
    cap = limits().max_rows
    return ReadStopped(f"{label}: {what} more than {cap:,} checkpoints: stopped (set "
                       "PLAYGROUND_MAX_ROWS to read more)")


class SqliteSource:
    """A SqliteSaver database file.

    Args:
        path: the ``.sqlite`` file.
        writable: open for writing (edit, fork, prune, migrate, import); read-only otherwise.

    Raises:
        CheckpointDbError: the file is missing, empty, not SQLite, corrupt, or has no
            LangGraph checkpoint tables. Nothing is created or changed.
    """

    kind = "sqlite"

    def __init__(self, path: str | Path, writable: bool = False) -> None:
        self.path = Path(path)
        self.writable = writable
        self.label = str(self.path)
        self._check_file()
        mode = "rw" if writable else "ro"
        bounds = limits()
        try:
            self.conn = sqlite3.connect(
                f"file:{quote(str(self.path.resolve()))}?mode={mode}",
                uri=True,
                check_same_thread=False,
                timeout=30,
            )
            if not writable:
                # A read of a file someone else wrote has a deadline: SQLite calls this every
                # few thousand instructions and stops the statement when it answers non-zero,
                # so an endless query ends and the server's core is free again.
                self._deadline = time.monotonic() + bounds.read_seconds
                self.conn.set_progress_handler(self._past_deadline, _PROGRESS_EVERY)
            self._check_tables()
        except sqlite3.OperationalError as exc:
            if _interrupted(exc):
                raise took_too_long(self.label, bounds.read_seconds) from None
            raise CheckpointDbError(
                f"{self.path}: not a readable SQLite database ({exc})"
            ) from None
        except sqlite3.DatabaseError as exc:
            raise CheckpointDbError(
                f"{self.path}: not a readable SQLite database ({exc})"
            ) from None

    def _past_deadline(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _tick(self) -> None:
        """Stop a loop of many short statements past the deadline (SQLite's progress handler
        runs inside a statement, and a short one may never reach it)."""
        if not self.writable and time.monotonic() > self._deadline:
            raise took_too_long(self.label, limits().read_seconds)

    def _check_file(self) -> None:
        if not self.path.exists():
            raise CheckpointDbError(f"{self.path}: no such file")
        if not self.path.is_file():
            raise CheckpointDbError(f"{self.path}: not a file")
        with self.path.open("rb") as handle:
            header = handle.read(len(_SQLITE_MAGIC))
        if not header:
            raise CheckpointDbError(f"{self.path}: the file is empty")
        if header != _SQLITE_MAGIC:
            raise CheckpointDbError(f"{self.path}: not a SQLite database")

    def _check_tables(self) -> None:
        # Only real tables are read: PRAGMA table_info answers for a view too, and a view can
        # be any query (an endless recursive one); a virtual table runs a module's code.
        kinds = {name: (kind, sql or "") for name, kind, sql in self.conn.execute(
            "SELECT name, type, sql FROM sqlite_master WHERE name IN (?, ?)", tuple(_REQUIRED))}
        for table, (kind, sql) in kinds.items():
            if kind != "table" or sql.lstrip().upper().startswith("CREATE VIRTUAL"):
                what = "a virtual table" if kind == "table" else f"a {kind}"
                raise CheckpointDbError(
                    f"{self.path}: not a LangGraph checkpoint database ({table} is {what}, not "
                    "a table; it is not read)")
        found = {}
        for table in _REQUIRED:
            found[table] = {row[1] for row in self.conn.execute(f"PRAGMA table_info({table})")}
        missing = [table for table, columns in _REQUIRED.items() if not columns <= found[table]]
        if missing:
            raise CheckpointDbError(
                f"{self.path}: not a LangGraph checkpoint database "
                f"(no {' or '.join(missing)} table of SqliteSaver)"
            )
        # Touch the data: a damaged file often passes the schema read and fails here.
        self.conn.execute("SELECT checkpoint_id FROM checkpoints LIMIT 1").fetchone()

    def saver(self, serde=None):
        """A SqliteSaver on this file (for edits and replays, which need a graph too).

        Args:
            serde: the serializer of the graph that will run on it; by default LangGraph's with
                only its own safe types allowed (:func:`playground.serde.graph_serde`).
        """
        if not self.writable:
            raise CheckpointDbError(f"{self.path} is open read-only: reopen it writable to edit")
        # Imported here: reading a file needs none of LangGraph, and a CLI that only reads
        # should not pay for importing it.
        from langgraph.checkpoint.sqlite import SqliteSaver

        from playground.serde import graph_serde

        return SqliteSaver(self.conn, serde=serde or graph_serde())

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    # -- threads ---------------------------------------------------------------------------

    @_stoppable
    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first."""
        rows = self.conn.execute(
            "SELECT thread_id, checkpoint_id, parent_checkpoint_id, "
            "length(checkpoint) + length(metadata) FROM checkpoints WHERE checkpoint_ns = '' "
            "LIMIT ?", (limits().max_rows + 1,)
        ).fetchall()
        if len(rows) > limits().max_rows:
            raise _too_many(self.label, "its threads hold")
        writes = dict(
            self.conn.execute("SELECT thread_id, sum(length(value)) FROM writes GROUP BY thread_id")
        )
        by_thread: dict[str, list[tuple]] = defaultdict(list)
        for row in rows:
            by_thread[row[0]].append(row)
        summaries = []
        for thread_id, items in by_thread.items():
            self._tick()
            parents = {row[2] for row in items}
            leaves = sum(1 for row in items if row[1] not in parents)
            head_id = max(row[1] for row in items)
            type_, blob = self.conn.execute(
                "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND "
                "checkpoint_ns = '' AND checkpoint_id = ?",
                (thread_id, head_id),
            ).fetchone()
            head, _problem = decode_checkpoint(type_, blob)
            summaries.append(
                ThreadSummary(
                    thread_id=thread_id,
                    checkpoints=len(items),
                    newest_at=head.get("ts"),
                    head_next=next_nodes(head),
                    branches=leaves,
                    stored_bytes=sum(row[3] or 0 for row in items) + (writes.get(thread_id) or 0),
                )
            )
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    @_stoppable
    def namespaces(self, thread_id: str) -> list[str]:
        """Checkpoint namespaces of a thread: "" for the root, then subgraphs."""
        return [
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ? "
                "ORDER BY checkpoint_ns",
                (thread_id,),
            )
        ]

    # -- checkpoints ---------------------------------------------------------------------

    @_stoppable
    def records(self, thread_id: str, checkpoint_ns: str = "") -> list[CheckpointRecord]:
        """Every checkpoint of a thread and namespace, oldest first, from SQL columns alone.

        Raises:
            UnknownThread: the thread has no checkpoints in this namespace.
        """
        # Two plain queries merged here: a LEFT JOIN on the grouped writes is several times slower.
        writes = dict(
            self.conn.execute(
                "SELECT checkpoint_id, sum(length(value)) FROM writes "
                "WHERE thread_id = ? AND checkpoint_ns = ? GROUP BY checkpoint_id",
                (thread_id, checkpoint_ns),
            )
        )
        # Metadata is parsed with orjson here (SQLite's json_extract is several times slower),
        # and rows are streamed, not fetched whole, so a long thread's metadata is never all held.
        rows = self.conn.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, CASE WHEN length(metadata) > ? THEN "
            "NULL ELSE metadata END, length(checkpoint), length(metadata) "
            "FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id "
            "LIMIT ?",
            (_MAX_METADATA, thread_id, checkpoint_ns, limits().max_rows + 1),
        )
        records = []
        append, loads, record = records.append, orjson.loads, CheckpointRecord  # hot loop
        for cid, parent, metadata, blob_bytes, metadata_bytes in rows:
            try:
                meta = loads(metadata) if metadata else {}
            except orjson.JSONDecodeError:
                meta = {}
            if not isinstance(meta, dict):
                meta = {}
            append(record(cid, parent, checkpoint_ns, meta.get("step"), meta.get("source"),
                          blob_bytes or 0, metadata_bytes or 0, writes.get(cid) or 0))
        if len(records) > limits().max_rows:
            raise _too_many(self.label, f"thread {clip(thread_id, 80)!r} has")
        if not records:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        return records

    @_stoppable
    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """A cheap value that changes whenever the thread's stored checkpoints change.

        Counts and the newest id catch new, pruned and imported checkpoints; a hash of the head
        blob catches a migration that rewrote it in place. All of it is read through the
        primary-key index, so it stays fast on long threads.
        """
        count, newest = self.conn.execute(
            "SELECT count(*), max(checkpoint_id) FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = ?",
            (thread_id, checkpoint_ns),
        ).fetchone()
        if not count:
            return None
        head = self.conn.execute(
            "SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
            "AND checkpoint_id = ?",
            (thread_id, checkpoint_ns, newest),
        ).fetchone()[0]
        writes = self.conn.execute(
            "SELECT count(*) FROM writes WHERE thread_id = ? AND checkpoint_ns = ?",
            (thread_id, checkpoint_ns),
        ).fetchone()[0]
        return (count, newest, hashlib.blake2b(head or b"", digest_size=16).digest(), writes)

    @_stoppable
    def details(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, CheckpointDetail]:
        """Decode the blobs of some checkpoints (and of their parents) into details."""
        wanted = list(dict.fromkeys(checkpoint_ids))
        # id -> (parent id, decoded blob, why it could not be decoded)
        blobs: dict[str, tuple[str | None, dict, str | None]] = {}

        def fetch(ids: list[str]) -> None:
            for start in range(0, len(ids), _CHUNK):
                part = ids[start : start + _CHUNK]
                marks = ",".join("?" * len(part))
                for cid, parent, type_, blob in self.conn.execute(
                    "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint FROM "
                    "checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
                    f"AND checkpoint_id IN ({marks})",
                    (thread_id, checkpoint_ns, *part),
                ):
                    blobs[cid] = (parent, *decode_checkpoint(type_, blob))
                self._tick()

        fetch(wanted)
        fetch(list({p for p, _, _ in blobs.values() if p and p not in blobs}))
        details = {}
        for cid in wanted:
            if cid in blobs:
                parent_id, checkpoint, problem = blobs[cid]
                parent = blobs[parent_id][1] if parent_id in blobs else None
                details[cid] = detail_of(cid, checkpoint, parent, problem)
        return details

    @_stoppable
    def values(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = "") -> dict:
        """The state values stored in one checkpoint (LangGraph's bookkeeping channels left out).

        Raises:
            UnreadableCheckpoint: the blob cannot be decoded; the message says why in one line.
        """
        row = self.conn.execute(
            "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
            "AND checkpoint_id = ?",
            (thread_id, checkpoint_ns, checkpoint_id),
        ).fetchone()
        if row is None:
            raise CheckpointDbError(f"no checkpoint {checkpoint_id} in thread {thread_id!r}")
        checkpoint, problem = decode_checkpoint(*row)
        if problem:
            raise UnreadableCheckpoint(problem)
        return state_values(checkpoint)

    @_stoppable
    def store_items(self, limit: int = SHOWN_STORE_ITEMS) -> list[StoreItem] | None:
        """The items of the file's LangGraph store table, if it has one (None when not)."""
        if self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                             "name = 'store'").fetchone() is None:
            return None
        rows = self.conn.execute(
            "SELECT prefix, key, CASE WHEN length(value) > ? THEN NULL ELSE value END, "
            "length(value), created_at, updated_at FROM store ORDER BY prefix, key LIMIT ?",
            (MAX_STORE_VALUE_BYTES, int(limit)),
        ).fetchall()
        return [store_item(*row) for row in rows]

    @_stoppable
    def pending_writes(
        self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
    ) -> list[PendingWrite]:
        """Writes stored under one checkpoint by the tasks that ran from it."""
        rows = self.conn.execute(
            "SELECT task_path, channel, type, value FROM writes WHERE thread_id = ? "
            "AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_path, idx",
            (thread_id, checkpoint_ns, checkpoint_id),
        ).fetchall()
        return [
            PendingWrite(task_node(path) or "?", channel, decode_typed(type_, value),
                         len(value or b""))
            for path, channel, type_, value in rows
        ]

    @_stoppable
    def signals(self, thread_id: str, checkpoint_ns: str = "") -> dict[str, tuple[TaskSignal, ...]]:
        """Questions, answers and errors tasks stored under each checkpoint of a thread."""
        marks = ",".join("?" * len(SIGNAL_CHANNELS))
        rows = self.conn.execute(
            "SELECT checkpoint_id, task_path, channel, type, value FROM writes "
            f"WHERE thread_id = ? AND checkpoint_ns = ? AND channel IN ({marks}) "
            "ORDER BY checkpoint_id, task_path, idx",
            (thread_id, checkpoint_ns, *SIGNAL_CHANNELS),
        ).fetchall()
        by_checkpoint: dict[str, list[tuple]] = defaultdict(list)
        for cid, path, channel, type_, value in rows:
            by_checkpoint[cid].append((task_node(path), channel, decode_typed(type_, value)))
        return {cid: signals_of(writes) for cid, writes in by_checkpoint.items()}
