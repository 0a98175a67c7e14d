"""The engine's reads of a SQLite file (the read seam): SqliteSaver's tables, read with SQL.

Ids, parent links and sizes come from SQL columns and aggregates; blobs are decoded only for what
SQL cannot answer (next nodes, timestamps, values), always by the safe decoder, which never
imports or calls what a blob names. Inspection opens the file read-only (``mode=ro``).
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from playground.places.base import (
    written_by_another,
)
from playground.places.settings import sqlite_timeout
from playground.places.sqlite.guard import interrupted, locked, stoppable
from playground.places.sqlite.sql import (
    AND_CHANNEL_IN,
    AND_CHECKPOINT_ID_IN,
    CHECKPOINTS_OF_NAMESPACE,
    COUNT_NAMESPACE_WRITES,
    HAS_STORE_TABLE,
    SELECT_ANCESTRY,
    SELECT_BLOBS_AND_META_IN,
    SELECT_BLOBS_IN,
    SELECT_CHECKPOINT_BLOB,
    SELECT_CHECKPOINT_WRITE_BYTES,
    SELECT_COUNT_AND_NEWEST,
    SELECT_HEAD_BLOB,
    SELECT_NAMESPACES,
    SELECT_ONE_THREAD_ROWS,
    SELECT_ONE_THREAD_WRITE_BYTES,
    SELECT_RECORDS,
    SELECT_REQUIRED_TABLES,
    SELECT_ROW_TYPES,
    SELECT_STORE_ITEMS,
    SELECT_TAILS,
    SELECT_THREAD_ROWS,
    SELECT_THREAD_WRITE_BYTES,
    SELECT_TIME_HEADS,
    SELECT_TIMES,
    SELECT_TYPED_BLOB,
    STORED_CHECKPOINTS,
    TABLE_INFO,
    THREAD_IDS,
    TIME_HEAD,
    TOUCH_CHECKPOINTS,
    WITH_TASK_PATH,
    WITHOUT_TASK_PATH,
    WRITE_OWNERS,
    WRITES,
    WRITES_OF_NAMESPACE,
)
from playground.places.sqlite.thread_list import SqliteThreadList, metadata_of
from playground.places.sqlite.writes import SqliteWrites
from playground.timetravel.decode import (
    checkpoint_time,
    decode_checkpoint,
    decode_typed,
    interrupt_seen,
    ts_at_head,
)
from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.limits import ReadStopped, clip, limits, took_too_long
from playground.timetravel.records import (
    UNKNOWN_NODE,
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    detail_of,
    next_nodes,
    task_node,
)
from playground.timetravel.runs import ACTION_KEY, RUN_ID_KEY, RUN_STARTED_KEY
from playground.timetravel.storage import (
    JAVASCRIPT,
    OLDER_PYTHON,
    PYTHON,
    Storage,
    StoredCheckpoint,
    StoredWrite,
    growing_batches,
)
from playground.timetravel.store_items import (
    MAX_STORE_VALUE_BYTES,
    SHOWN_STORE_ITEMS,
    StoreItem,
    store_item,
)

_REQUIRED = {
    "checkpoints": {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id",
                    "type", "checkpoint", "metadata"},
    # task_path is optional: LangGraph.js never wrote it, nor Python before
    # langgraph-checkpoint-sqlite 3.1.2 (Python's own SqliteSaver reads such files too).
    "writes": {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type",
               "value"},
}
# Errors a file being written by another process gives for a moment: retried until the read's
# deadline (docs/architecture.md, "Files in use").
TRANSIENT = ("database is locked", "disk i/o error", "database schema has changed",
              "database table is locked")
_RETRY_PAUSE_S = 0.05
_SQLITE_MAGIC = b"SQLite format 3\x00"
LANGGRAPH_DEV_PICKLES = (
    "langgraph dev's in-memory store (pickle): never opened, since unpickling runs code; open "
    "the server's URL instead (playground threads http://127.0.0.1:2024, or playground run "
    "--server http://127.0.0.1:2024)")
_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit
# Ids that are at least this share of their namespace's checkpoints are read in one pass over
# the namespace (see SqliteStorage._rows_under).
_ONE_PASS_SHARE = 0.25
_PROGRESS_EVERY = 10_000  # SQLite VM instructions between two deadline checks


_ANCESTRY_BATCH = 32  # blobs fetched at once on a walk up the parent links
_MAX_METADATA = 1024 * 1024  # metadata is a small JSON object; past this it is not parsed

def _too_many(label: str, what: str) -> ReadStopped:
    cap = limits().max_rows
    return ReadStopped(f"{label}: {what} more than {cap:,} checkpoints: stopped (set "
                       "PLAYGROUND_MAX_ROWS to read more)")


class SqliteStorage(SqliteThreadList, SqliteWrites, Storage):
    """A SqliteSaver database file.

    Args:
        path: the ``.sqlite`` file.
        writable: open for writing (edit, fork, prune, migrate, import); read-only otherwise.
        create: with ``writable``, make the file when it does not exist (an import into a new
            file); its tables come with :meth:`create_saver_tables`.

    Raises:
        CheckpointDbError: the file is missing, empty, not SQLite, corrupt, or has no
            LangGraph checkpoint tables. Nothing is created or changed (unless ``create``).
    """

    kind = "sqlite"
    _writes_sql = WRITES.format(where="{where}", **WITH_TASK_PATH)

    def __init__(self, path: str | Path, writable: bool = False, create: bool = False,
                 label: str | None = None) -> None:
        self.path = Path(path)
        self.writable = writable
        self.label = label or str(self.path)
        self.writer = PYTHON
        new = create and writable and not self.path.exists()
        if new:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        else:
            self._check_file()
        mode = "rwc" if new else "rw" if writable else "ro"
        bounds = limits()
        try:
            self.conn = sqlite3.connect(
                f"file:{quote(str(self.path.resolve()))}?mode={mode}",
                uri=True,
                check_same_thread=False,
                timeout=sqlite_timeout(),
            )
            if not writable:
                # A read of a file someone else wrote has a deadline: SQLite calls this every
                # few thousand instructions and stops the statement when it answers non-zero,
                # so an endless query ends and the server's core is free again.
                self._deadline = time.monotonic() + bounds.read_seconds
                self.conn.set_progress_handler(self._past_deadline, _PROGRESS_EVERY)
            if not new:
                self._retrying(self._check_tables)
        except BaseException as exc:
            if hasattr(self, "conn"):
                self.conn.close()  # a file refused here keeps no connection behind
            if isinstance(exc, sqlite3.OperationalError) and interrupted(exc):
                raise took_too_long(self.label, bounds.read_seconds) from None
            if isinstance(exc, sqlite3.OperationalError) and locked(exc):
                raise CheckpointDbError(
                    f"{self.label}: another program held a write lock on it for longer than "
                    f"{bounds.read_seconds:g} s: open it again when that program is done "
                    "writing") from None
            if isinstance(exc, sqlite3.DatabaseError):
                raise CheckpointDbError(
                    f"{self.label}: not a readable SQLite database ({exc})") from None
            raise
        if writable and self.writer != PYTHON:
            self.conn.close()
            raise CheckpointDbError(written_by_another(self.label, self.writer))

    @property
    def identity(self) -> str:
        """The file itself, resolved (two uploads may share a name)."""
        return str(self.path.resolve())

    def _retrying(self, read):
        """Run a read again while another process's write makes it fail for a moment, until
        the read's deadline."""
        deadline = time.monotonic() + limits().read_seconds
        while True:
            try:
                return read()
            except sqlite3.OperationalError as exc:
                if not str(exc).lower().startswith(TRANSIENT) or time.monotonic() > deadline:
                    raise
                time.sleep(_RETRY_PAUSE_S)

    def _past_deadline(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _tick(self) -> None:
        """Stop a loop of many short statements past the deadline (SQLite's progress handler
        runs inside a statement, and a short one may never reach it)."""
        if not self.writable and time.monotonic() > self._deadline:
            raise took_too_long(self.label, limits().read_seconds)

    def _check_file(self) -> None:
        if not self.path.exists():
            raise CheckpointDbError(f"{self.label}: no such file")
        if self.path.is_dir():
            if self.path.name == ".langgraph_api" or any(self.path.glob("*.pckl")):
                raise CheckpointDbError(f"{self.label}: {LANGGRAPH_DEV_PICKLES}")
            raise CheckpointDbError(f"{self.label}: a folder, not a file: name the checkpoint "
                                    "file in it (a .sqlite or .db file)")
        if not self.path.is_file():
            raise CheckpointDbError(f"{self.label}: not a file")
        with self.path.open("rb") as handle:
            header = handle.read(len(_SQLITE_MAGIC))
        if not header:
            raise CheckpointDbError(f"{self.label}: the file is empty")
        if self.path.suffix == ".pckl" or header[:1] == b"\x80":
            raise CheckpointDbError(f"{self.label}: {LANGGRAPH_DEV_PICKLES}")
        if header != _SQLITE_MAGIC:
            raise CheckpointDbError(f"{self.label}: not a SQLite database")

    def _check_tables(self) -> None:
        # Only real tables are read: PRAGMA table_info answers for a view too, and a view can
        # be any query (an endless recursive one); a virtual table runs a module's code.
        kinds = {name: (kind, sql or "") for name, kind, sql in self.conn.execute(
            SELECT_REQUIRED_TABLES, tuple(_REQUIRED))}
        for table, (kind, sql) in kinds.items():
            if kind != "table" or sql.lstrip().upper().startswith("CREATE VIRTUAL"):
                what = "a virtual table" if kind == "table" else f"a {kind}"
                raise CheckpointDbError(
                    f"{self.label}: not a LangGraph checkpoint database ({table} is {what}, not "
                    "a table; it is not read)")
        found = {}
        for table in _REQUIRED:
            found[table] = {row[1] for row in self.conn.execute(TABLE_INFO.format(table=table))}
        absent = [table for table in _REQUIRED if not found[table]]
        if absent:
            raise CheckpointDbError(
                f"{self.label}: not a LangGraph checkpoint database (no "
                f"{' or '.join(absent)} table: a LangGraph SqliteSaver file has checkpoints and "
                "writes)")
        for table, columns in _REQUIRED.items():
            lacking = sorted(columns - found[table])
            if lacking:
                raise CheckpointDbError(
                    f"{self.label}: not a checkpoint file this tool knows (its {table} table "
                    f"has no {', '.join(lacking)} column)")
        # Touch the data: a damaged file often passes the schema read and fails here.
        self.conn.execute(TOUCH_CHECKPOINTS).fetchone()
        self.keeps_task_paths = "task_path" in found["writes"]
        self._writes_sql = WRITES.format(
            where="{where}", **(WITH_TASK_PATH if self.keeps_task_paths else WITHOUT_TASK_PATH))
        types = {row[0] for row in self.conn.execute(SELECT_ROW_TYPES)}
        if self.keeps_task_paths:
            self.writer = PYTHON
        else:
            self.writer = JAVASCRIPT if types == {"json"} else OLDER_PYTHON

    def _saver_on_connection(self, serde):
        """A SqliteSaver on this connection (the storage base checks it is writable)."""
        # Imported here: reading needs none of LangGraph, and a CLI that only reads should
        # not pay for importing it.
        from langgraph.checkpoint.sqlite import SqliteSaver

        return SqliteSaver(self.conn, serde=serde)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    # -- threads ---------------------------------------------------------------------------

    @stoppable
    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first."""
        rows = self.conn.execute(SELECT_THREAD_ROWS, (limits().max_rows + 1,)).fetchall()
        if len(rows) > limits().max_rows:
            raise _too_many(self.label, "its threads hold")
        writes = dict(self.conn.execute(SELECT_THREAD_WRITE_BYTES))
        by_thread: dict[str, list[tuple]] = defaultdict(list)
        for row in rows:
            by_thread[row[0]].append(row)
        summaries = []
        for thread_id, items in by_thread.items():
            self._tick()
            summaries.append(self._summary(thread_id, items, writes.get(thread_id) or 0))
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    def _summary(self, thread_id: str, items: list[tuple], write_bytes: int) -> ThreadSummary:
        """A thread's line from its rows (thread, id, parent, bytes) and its writes' bytes."""
        parents = {row[2] for row in items}
        head_id = max(row[1] for row in items)
        type_, blob = self.conn.execute(SELECT_HEAD_BLOB, (thread_id, head_id)).fetchone()
        head, _problem = decode_checkpoint(type_, blob)
        return ThreadSummary(
            thread_id=thread_id, checkpoints=len(items), newest_at=head.get("ts"),
            head_next=next_nodes(head),
            branches=sum(1 for row in items if row[1] not in parents),
            stored_bytes=sum(row[3] or 0 for row in items) + write_bytes, head_id=head_id)

    @stoppable
    def thread_summary(self, thread_id: str) -> ThreadSummary:
        """One thread's line of the thread list, from its own rows only."""
        items = self.conn.execute(SELECT_ONE_THREAD_ROWS, (thread_id,)).fetchall()
        if not items:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        writes = self.conn.execute(SELECT_ONE_THREAD_WRITE_BYTES, (thread_id,)).fetchone()[0]
        return self._summary(thread_id, items, writes or 0)

    @stoppable
    def namespaces(self, thread_id: str) -> list[str]:
        """Checkpoint namespaces of a thread: "" for the root, then subgraphs."""
        return [
            row[0]
            for row in self.conn.execute(SELECT_NAMESPACES, (thread_id,))
        ]

    # -- checkpoints ---------------------------------------------------------------------

    @stoppable
    def records(self, thread_id: str, checkpoint_ns: str = "", times: bool = False
                ) -> list[CheckpointRecord]:
        """Every checkpoint of a thread and namespace, oldest first, from SQL columns alone
        (the run that wrote each one, and its start, from the metadata parsed anyway); with
        ``times``, each one's time cut from its blob's first bytes in the same pass (where
        Python's LangGraph puts it: :func:`~playground.timetravel.decode.ts_at_head`).

        Raises:
            UnknownThread: the thread has no checkpoints in this namespace.
        """
        # Two plain queries merged here: a LEFT JOIN on the grouped writes is several times slower.
        writes = dict(
            self.conn.execute(SELECT_CHECKPOINT_WRITE_BYTES, (thread_id, checkpoint_ns))
        )
        # Metadata is parsed with orjson here (SQLite's json_extract is several times slower),
        # and rows are streamed, not fetched whole, so a long thread's metadata is never all held.
        # The heads cost a tenth of the pass (measured): read only for a page that shows times.
        rows = self.conn.execute(
            SELECT_RECORDS.format(head=TIME_HEAD if times else "NULL"),
            (_MAX_METADATA, thread_id, checkpoint_ns, limits().max_rows + 1)
        )
        records = []
        append, loads, record = records.append, orjson.loads, CheckpointRecord  # hot loop
        for cid, parent, metadata, blob_bytes, metadata_bytes, head in rows:
            try:
                meta = loads(metadata) if metadata else {}
            except orjson.JSONDecodeError:
                meta = {}
            if not isinstance(meta, dict):
                meta = {}
            run_id, started = meta.get(RUN_ID_KEY), meta.get(RUN_STARTED_KEY)
            action = meta.get(ACTION_KEY)
            append(record(cid, parent, checkpoint_ns, meta.get("step"), meta.get("source"),
                          blob_bytes or 0, metadata_bytes or 0, writes.get(cid) or 0,
                          None if head is None else ts_at_head(head),
                          run_id if type(run_id) is str else None,
                          started if type(started) is str else None,
                          action if type(action) is str else None))
        if len(records) > limits().max_rows:
            raise _too_many(self.label, f"thread {clip(thread_id, 80)!r} has")
        if not records:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        return records

    @stoppable
    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """A cheap value that changes whenever the thread's stored checkpoints change.

        Counts and the newest id catch new, pruned and imported checkpoints; a hash of the head
        blob catches a migration that rewrote it in place. All of it is read through the
        primary-key index, so it stays fast on long threads.
        """
        count, newest = self.conn.execute(
            SELECT_COUNT_AND_NEWEST, (thread_id, checkpoint_ns)
        ).fetchone()
        if not count:
            return None
        head = self.conn.execute(
            SELECT_CHECKPOINT_BLOB, (thread_id, checkpoint_ns, newest)
        ).fetchone()[0]
        writes = self.conn.execute(
            COUNT_NAMESPACE_WRITES, (thread_id, checkpoint_ns)
        ).fetchone()[0]
        return (count, newest, hashlib.blake2b(head or b"", digest_size=16).digest(), writes)

    @stoppable
    def checkpoint_times(self, thread_id: str, checkpoint_ids: Iterable[str],
                         checkpoint_ns: str = "") -> dict[str, str | None]:
        """Each checkpoint's ``ts``, read from the head of its blob (its values not decoded;
        a blob that does not begin as LangGraph writes one is decoded whole)."""
        where, params = CHECKPOINTS_OF_NAMESPACE, (thread_id, checkpoint_ns)
        # First each blob's first bytes, where Python's LangGraph puts the time; then the rest
        # (a LangGraph.js file's JSON, whole; another layout's longer head).
        found: dict[str, str | None] = {cid: ts_at_head(head) for cid, head in self._rows_under(
            SELECT_TIME_HEADS, where, params, checkpoint_ids)}
        elsewhere = [cid for cid, time in found.items() if time is None]
        if not elsewhere:
            return found
        for cid, head, type_ in self._rows_under(SELECT_TIMES, where, params, elsewhere):
            time = checkpoint_time(type_, head)
            if time is None:  # not where LangGraph puts it: the whole blob, decoded
                whole = self.conn.execute(SELECT_TYPED_BLOB,
                                          (thread_id, checkpoint_ns, cid)).fetchone()
                ts = decode_checkpoint(*whole)[0].get("ts") if whole else None
                time = ts if isinstance(ts, str) else None
            found[cid] = time
        return found

    @stoppable
    def resume_marks(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> dict[str, Any]:
        """Each checkpoint's ``versions_seen["__interrupt__"]``, read from its blob's last
        bytes, values not decoded (:func:`~playground.timetravel.decode.interrupt_seen`)."""
        return {cid: interrupt_seen(type_, tail) for cid, type_, tail in self._rows_under(
            SELECT_TAILS, CHECKPOINTS_OF_NAMESPACE, (thread_id, checkpoint_ns),
            checkpoint_ids)}

    @stoppable
    def write_owners(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> list[tuple[str, str, str, str]]:
        """(checkpoint, node, task, channel) of the writes under some checkpoints, from their
        task paths, without reading their values."""
        if not self.keeps_task_paths:
            return super().write_owners(thread_id, checkpoint_ids, checkpoint_ns)
        found = []
        append, nodes = found.append, {}  # a long thread repeats a few paths: each read once
        for cid, path, task_id, channel in self._rows_under(
                WRITE_OWNERS, WRITES_OF_NAMESPACE, (thread_id, checkpoint_ns),
                checkpoint_ids):
            node = nodes.get(path)
            if node is None:
                node = nodes[path] = task_node(path or "") or UNKNOWN_NODE
            append((cid, node, task_id or "", channel))
        return found

    def _rows_under(self, select: str, where: str, params: tuple,
                    checkpoint_ids: Iterable[str] | None) -> Iterable[tuple]:
        """The rows of ``select`` (its condition left as ``{where}``, its first column the
        checkpoint id) under some checkpoints of a namespace, or under all with None.

        A few ids go as IN lists. Ids that are a good share of their namespace go as one pass
        over its rows, kept here by id: SQLite walks a range of its primary key several times
        faster than it looks thousands of ids up one by one (a 10,000-step branch's times:
        about 50 ms through IN lists, 16 ms in one pass).
        """
        if checkpoint_ids is None:
            return self._rows_of(select.format(where=where), params)
        ids = list(dict.fromkeys(checkpoint_ids))
        if len(ids) > _CHUNK:
            stored = self.conn.execute(SELECT_COUNT_AND_NEWEST, params[:2]).fetchone()[0]
            if len(ids) >= stored * _ONE_PASS_SHARE:
                wanted = frozenset(ids)
                kept = [row for row in self.conn.execute(select.format(where=where), params)
                        if row[0] in wanted]
                self._tick()
                return kept
        return self._rows_in_lists(select, where, params, ids)

    def _rows_of(self, sql: str, params: tuple) -> Iterator[tuple]:
        yield from self.conn.execute(sql, params)
        self._tick()

    def _rows_in_lists(self, select: str, where: str, params: tuple, ids: list[str]
                       ) -> Iterator[tuple]:
        for start in range(0, len(ids), _CHUNK):
            part = ids[start : start + _CHUNK]
            clause = where + AND_CHECKPOINT_ID_IN.format(marks=",".join("?" * len(part)))
            yield from self.conn.execute(select.format(where=clause), (*params, *part))
            self._tick()

    @stoppable
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
                    SELECT_BLOBS_IN.format(marks=marks), (thread_id, checkpoint_ns, *part)
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

    def ancestry(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
                 ) -> Iterator[StoredCheckpoint]:
        """The checkpoint and its ancestors, newest first, by the parent links in the file (one
        primary-key lookup a step, as SqliteSaver's own DeltaChannel walk does), the next
        :data:`_ANCESTRY_BATCH` links at a time; blobs are read in growing batches (the
        checkpoint's own first, alone) and each decoded only when the caller reaches it, so a
        walk that stops at a snapshot reads no further."""
        seen: set[str] = set()
        at: str | None = checkpoint_id
        while at is not None and len(seen) < limits().max_rows:
            links = self._links(thread_id, at, checkpoint_ns)
            part = []
            for cid, _ in links:
                if cid in seen:
                    break  # a parent link that loops back: stop where LangGraph's walk stops
                part.append(cid)
                seen.add(cid)
            at = links[-1][1] if links and len(part) == len(links) else None
            for batch in growing_batches(part):
                rows = {row[0]: row for row in self._blob_rows(thread_id, checkpoint_ns, batch)}
                for cid in batch:
                    if cid not in rows:
                        return
                    _, parent, type_, blob, metadata = rows[cid]
                    checkpoint, problem = decode_checkpoint(type_, blob)
                    yield StoredCheckpoint(cid, parent, metadata_of(metadata), checkpoint,
                                           len(blob or b""), len(metadata or b""), problem)

    @stoppable
    def _links(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str
               ) -> list[tuple[str, str | None]]:
        return self.conn.execute(SELECT_ANCESTRY, (
            thread_id, checkpoint_ns, checkpoint_id, _ANCESTRY_BATCH - 1)).fetchall()

    @stoppable
    def _blob_rows(self, thread_id: str, checkpoint_ns: str, ids: list[str]) -> list[tuple]:
        marks = ",".join("?" * len(ids))
        return self.conn.execute(SELECT_BLOBS_AND_META_IN.format(marks=marks), (
            _MAX_METADATA, thread_id, checkpoint_ns, *ids)).fetchall()

    @stoppable
    def store_items(self, limit: int = SHOWN_STORE_ITEMS) -> list[StoreItem] | None:
        """The items of the file's LangGraph store table, if it has one (None when not)."""
        if self.conn.execute(HAS_STORE_TABLE).fetchone() is None:
            return None
        rows = self.conn.execute(
            SELECT_STORE_ITEMS, (MAX_STORE_VALUE_BYTES, int(limit))
        ).fetchall()
        return [store_item(*row) for row in rows]

    @stoppable
    def thread_ids(self) -> list[str]:
        """Every thread with a root checkpoint."""
        return [row[0] for row in self.conn.execute(THREAD_IDS)]

    @stoppable
    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = "") -> list[StoredCheckpoint]:
        """A thread's checkpoints in a namespace, oldest first, each blob decoded safely."""
        found = []
        for cid, parent, type_, blob, metadata in self.conn.execute(
                STORED_CHECKPOINTS, (_MAX_METADATA, thread_id, checkpoint_ns,
                                      limits().max_rows + 1)):
            checkpoint, problem = decode_checkpoint(type_, blob)
            found.append(StoredCheckpoint(cid, parent, metadata_of(metadata), checkpoint,
                                          len(blob or b""), len(metadata or b""), problem))
            if len(found) > limits().max_rows:
                raise _too_many(self.label, f"thread {clip(thread_id, 80)!r} has")
        return found

    @stoppable
    def stored_writes(self, thread_id: str, checkpoint_ns: str = "",
                      checkpoint_ids: Iterable[str] | None = None,
                      channels: Iterable[str] | None = None) -> list[StoredWrite]:
        """Pending writes of a thread's namespace (or under some checkpoints, or on some
        channels), ordered by checkpoint, task and index."""
        where, params = WRITES_OF_NAMESPACE, [thread_id, checkpoint_ns]
        if channels is not None:
            names = list(channels)
            where += AND_CHANNEL_IN.format(marks=",".join("?" * len(names)))
            params += names
        found = []
        for cid, path, task_id, channel, type_, value in self._rows_under(
                self._writes_sql, where, tuple(params), checkpoint_ids):
            found.append(StoredWrite(cid, path or "", channel, decode_typed(type_, value),
                                     len(value or b""), task_id=task_id or ""))
        return found


