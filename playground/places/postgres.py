"""A Postgres database as a place threads live: PostgresSaver's tables, read with SQL and the
safe decoder alone; the savers, pools and store graphs run on in it.

PostgresSaver keeps a checkpoint row as JSONB (channel versions and small values inline) and
stores every other channel value once per version in ``checkpoint_blobs``. So here a
checkpoint's ``blob_bytes`` is its JSONB text plus the blobs of the channel versions it
introduced (the versions its parent did not have): summed over a thread, that is what the thread
stores, with no value counted twice. That is why Postgres figures are lower than SQLite's, where
every checkpoint blob repeats every value.

Nothing here goes through PostgresSaver's own reads: those decode blobs with a permissive
``JsonPlusSerializer`` that imports and calls what the data names, and crash on a ``pickle`` row.
Each blob is decoded by :mod:`playground.timetravel.decode`, JSONB by a bounded ``json.loads``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from playground.places.base import (
    STORE_LOG_COLUMNS,
    STORE_LOG_DDL,
    STORE_LOG_TABLE,
    OpenedStore,
    Place,
    StoreLog,
    written_by_another,
)
from playground.places.postgres_connections import (
    bounded,
    close_read_pool,
    connect_within,
    has_postgres_saver_tables,
    one_line,
    read_pool,
    setup_lock,
    setup_postgres_tables,
)
from playground.places.postgres_thread_list import PostgresThreadList
from playground.places.postgres_writes import PostgresWrites
from playground.places.settings import postgres_options, read_options
from playground.places.urls import UrlRefused, is_postgres_url, redact_url, typed_connection
from playground.timetravel.decode import decode_typed, is_unread
from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.limits import limits, took_too_long
from playground.timetravel.records import (
    UNKNOWN_NODE,
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    detail_of,
    task_node,
)
from playground.timetravel.signals import SIGNAL_CHANNELS, TaskSignal
from playground.timetravel.storage import (
    JAVASCRIPT,
    OLDER_PYTHON,
    PYTHON,
    Storage,
    StoredCheckpoint,
    StoredWrite,
    group_signals,
    growing_batches,
)
from playground.timetravel.store_items import (
    MAX_STORE_VALUE_BYTES,
    SHOWN_STORE_ITEMS,
    StoreItem,
    store_item,
)

# -- SQL ------------------------------------------------------------------------------------------
# Every statement this kind sends. A template's {placeholders} are filled with SQL the code builds
# (a column list, an optional clause, the heads' subquery), never with data: values are always
# bound (%s, %(name)s).

# Opening: a session that refuses writes (the saver's tables are checked in
# postgres_connections.py).
_READ_ONLY_SESSION = "SET default_transaction_read_only = on"

# Reads.
_SELECT_NAMESPACES = (
    "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = %s "
    "ORDER BY checkpoint_ns")
# A thread's line of the thread list: its checkpoints, head, bytes and branch tips.
_THREAD_AGGREGATES = (
    "count(*) AS n, max(c.checkpoint_id) AS head, "
    "sum(octet_length(c.checkpoint::text) + octet_length(c.metadata::text)) AS bytes, "
    "count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM checkpoints k WHERE "
    "  k.thread_id = c.thread_id AND k.checkpoint_ns = '' AND "
    "  k.parent_checkpoint_id = c.checkpoint_id)) AS leaves ")
_SELECT_THREAD_AGGREGATES = (
    f"SELECT c.thread_id, {_THREAD_AGGREGATES}"
    "FROM checkpoints c WHERE c.checkpoint_ns = '' GROUP BY c.thread_id")
_SELECT_THREAD_BLOB_BYTES = (
    "SELECT thread_id, sum(size) AS size FROM ("
    " SELECT thread_id, octet_length(blob) AS size FROM checkpoint_blobs "
    "  WHERE checkpoint_ns = ''"
    " UNION ALL SELECT thread_id, octet_length(blob) FROM checkpoint_writes "
    "  WHERE checkpoint_ns = '') parts GROUP BY thread_id")
# One thread's own aggregates for its line of the thread list (the list's own SQL is in
# postgres_thread_list.py).
_SELECT_ONE_THREAD = (
    f"SELECT {_THREAD_AGGREGATES}"
    "FROM checkpoints c WHERE c.thread_id = %(thread)s AND c.checkpoint_ns = ''")
_SELECT_ONE_THREAD_BLOB_BYTES = (
    "SELECT (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs "
    " WHERE thread_id = %(thread)s AND checkpoint_ns = '') + "
    "(SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes "
    " WHERE thread_id = %(thread)s AND checkpoint_ns = '') AS size")
_SELECT_RECORDS = (
    "SELECT checkpoint_id, parent_checkpoint_id, metadata->>'step' AS step, "
    "metadata->>'source' AS source, left(metadata->>'run_id', 100) AS run_id, "
    "left(metadata->>'run_started_at', 100) AS run_started, "
    "octet_length(checkpoint::text) AS blob, "
    "octet_length(metadata::text) AS meta, checkpoint->'channel_versions' AS versions "
    "FROM checkpoints WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
    "ORDER BY checkpoint_id")
_SELECT_RECORD_BLOB_SIZES = (
    "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
    "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s")
_SELECT_CHECKPOINT_WRITE_BYTES = (
    "SELECT checkpoint_id, sum(octet_length(blob)) AS size FROM checkpoint_writes "
    "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
    "GROUP BY checkpoint_id")
# Each checkpoint's blobs, one primary-key lookup per channel version it names. The LIMIT keeps
# the lookup a subquery of its own: joined plainly, the planner hashes every blob of the thread
# once per checkpoint (13 s for 10,000 checkpoints, against 0.2 s this way).
# A checkpoint's value blobs: those of the channels its versions name that match a pattern.
_BLOBS_OF_ROW = (
    " (SELECT array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob]) "
    "  FROM jsonb_each_text(CASE jsonb_typeof(c.checkpoint->'channel_versions') "
    "   WHEN 'object' THEN c.checkpoint->'channel_versions' ELSE '{}' END) v "
    "  CROSS JOIN LATERAL (SELECT b.channel, b.type, b.blob FROM checkpoint_blobs b "
    "   WHERE b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns "
    "   AND b.channel = v.key AND b.version = v.value LIMIT 1) bl "
    "  WHERE v.key LIKE ANY(%(channels)s)) AS blobs ")
_SELECT_CHECKPOINTS = (
    "SELECT c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, " + _BLOBS_OF_ROW +
    "FROM checkpoints c WHERE c.thread_id = %(t)s AND c.checkpoint_ns = %(ns)s "
    "AND c.checkpoint_id = ANY(%(ids)s)")
# One checkpoint of each of many threads (a page's heads), and the questions, answers and errors
# stored under them: (thread, checkpoint) pairs given as two arrays.
_PAIRS = ("unnest(%(threads)s::text[], %(ids)s::text[]) AS k(thread_id, checkpoint_id)")
_SELECT_CHECKPOINTS_OF_THREADS = (
    "SELECT c.thread_id, c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, "
    + _BLOBS_OF_ROW + f"FROM {_PAIRS} JOIN checkpoints c ON c.thread_id = k.thread_id "
    "AND c.checkpoint_ns = '' AND c.checkpoint_id = k.checkpoint_id")
_SELECT_WRITES_OF_THREADS = (
    "SELECT w.thread_id, w.checkpoint_id, w.task_path, w.channel, w.type, w.blob "
    f"FROM {_PAIRS} JOIN checkpoint_writes w ON w.thread_id = k.thread_id "
    "AND w.checkpoint_ns = '' AND w.checkpoint_id = k.checkpoint_id "
    "WHERE w.channel = ANY(%(channels)s) ORDER BY w.thread_id, w.task_path, w.task_id, w.idx")
# A checkpoint's next ancestors' ids, newest first, along the parent links, at most %(limit)s
# steps at a time. The LATERAL ... LIMIT 1 keeps each step one primary-key lookup: joined
# plainly, the planner scans the thread's every row for each step (seen without statistics).
_SELECT_ANCESTRY = (
    "WITH RECURSIVE chain(checkpoint_id, parent_checkpoint_id, n) AS ("
    "SELECT checkpoint_id, parent_checkpoint_id, 0 FROM checkpoints WHERE thread_id = %(t)s "
    "AND checkpoint_ns = %(ns)s AND checkpoint_id = %(id)s UNION ALL "
    "SELECT c.checkpoint_id, c.parent_checkpoint_id, a.n + 1 FROM chain a CROSS JOIN LATERAL "
    "(SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = %(t)s "
    "AND checkpoint_ns = %(ns)s AND checkpoint_id = a.parent_checkpoint_id LIMIT 1) c "
    "WHERE a.n < %(limit)s) "
    "SELECT checkpoint_id, parent_checkpoint_id FROM chain ORDER BY n")
_SELECT_METADATA = (
    "SELECT metadata FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s "
    "AND checkpoint_id = %(id)s")
_ANCESTRY_BATCH = 32  # checkpoints read at once on a walk up the parent links
# {task_path} is the column, or '' for a database without it (LangGraph.js, older Python).
_WRITES = (
    "SELECT checkpoint_id, {task_path} AS task_path, task_id, channel, type, blob "
    "FROM checkpoint_writes WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND {where} "
    "ORDER BY checkpoint_id, {order}task_id, idx")
# Who wrote what under which checkpoint, without the values (a timeline's writers).
_WRITE_OWNERS = (
    "SELECT checkpoint_id, task_path, task_id, channel FROM checkpoint_writes "
    "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND checkpoint_id = ANY(%(c)s) "
    "ORDER BY checkpoint_id, task_path, task_id, idx")
# A checkpoint's ts is a key of its JSONB row: read by the server, no blob fetched (and cut
# where no time is that long: parse_time refuses it then).
_SELECT_TIMES = (
    "SELECT checkpoint_id, left(checkpoint->>'ts', 65) AS ts FROM checkpoints "
    "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND checkpoint_id = ANY(%(c)s)")
# versions_seen["__interrupt__"] (decode.interrupt_seen: where it moves, a run resumed).
_SELECT_RESUME_MARKS = (
    "SELECT checkpoint_id, checkpoint->'versions_seen'->'__interrupt__' AS seen FROM checkpoints "
    "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND checkpoint_id = ANY(%(c)s)")
_HAS_TASK_PATH = (
    "SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = "
    "current_schema() AND table_name = 'checkpoint_writes' AND column_name = 'task_path'")
# A sample of the rows' types (a scan of every row would be as long as the database is big).
_HAS_JSON_ROWS = (
    "SELECT 'json' IN (SELECT type FROM checkpoint_blobs LIMIT 50) OR 'json' IN (SELECT type "
    "FROM checkpoint_writes LIMIT 50) AS json")
_EVERY_WRITE = "TRUE"
_AND_CHECKPOINT_ID_ANY = " AND checkpoint_id = ANY(%(c)s)"
_AND_CHANNEL_ANY = " AND channel = ANY(%(channels)s)"
_THREAD_IDS = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
_METADATA = ("SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = %(t)s AND "
             "checkpoint_ns = %(ns)s")
_SELECT_FINGERPRINT = (
    "SELECT count(*) AS n, max(checkpoint_id) AS newest, "
    "(SELECT md5(checkpoint::text) FROM checkpoints WHERE thread_id = %(t)s AND "
    " checkpoint_ns = %(ns)s ORDER BY checkpoint_id DESC LIMIT 1) AS head, "
    "(SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s AND "
    " checkpoint_ns = %(ns)s) AS writes "
    "FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s")

# The store: LangGraph's store table, if the database has one, and the change log.
_HAS_STORE_TABLE = (
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
    "current_schema() AND table_name = 'store' AND table_type = 'BASE TABLE'")
_SELECT_STORE_ITEMS = (
    "SELECT prefix, key, CASE WHEN octet_length(value::text) > %s THEN NULL "
    "ELSE value::text END AS value, octet_length(value::text) AS size, "
    "created_at::text AS created_at, updated_at::text AS updated_at FROM store "
    "ORDER BY prefix, key LIMIT %s")
_LOG_INSERT = (f"INSERT INTO {STORE_LOG_TABLE} ({STORE_LOG_COLUMNS}) "
               "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")
_LOG_SELECT = (f"SELECT {STORE_LOG_COLUMNS} FROM {STORE_LOG_TABLE} WHERE thread_id = %s "
               "{step} ORDER BY at LIMIT %s")
_LOG_FROM_CHECKPOINT = "AND from_checkpoint = %s"

# Channels whose values decide what runs next (records.next_nodes): the input, the branch
# triggers and the fan-in barriers. Details read only these blobs, never the state's values.
_TRIGGERS = ["\\_\\_start\\_\\_", "branch:to:%", "join:%"]


def decoded_checkpoint(row: dict) -> tuple[str | None, dict, str | None]:
    """A checkpoint row with its value blobs (``_SELECT_CHECKPOINTS``'s columns) decoded:
    (parent id, checkpoint, why it is unreadable or None)."""
    checkpoint = row["checkpoint"]
    if is_unread(checkpoint) or not isinstance(checkpoint, dict):
        reason = checkpoint["__unread__"] if is_unread(checkpoint) else "not an object"
        return row["parent_checkpoint_id"], {}, f"checkpoint not readable: {reason}"
    values = checkpoint.get("channel_values")
    values = dict(values) if isinstance(values, dict) else {}
    for channel, type_, blob in row["blobs"] or ():
        if type_ != b"empty":
            values[channel.decode()] = decode_typed(type_.decode(), blob)
    return row["parent_checkpoint_id"], {**checkpoint, "channel_values": values}, None


class PostgresStorage(PostgresThreadList, PostgresWrites, Storage):
    """A Postgres database written by PostgresSaver.

    Raises:
        CheckpointDbError: the server cannot be reached, or has no PostgresSaver tables.
    """

    kind = "postgres"
    _task_path = "task_path"

    def __init__(self, url: str, writable: bool = False, pool=None, typed: bool = False,
                 create: bool = False) -> None:
        import psycopg

        self.writable = writable
        self.label = redact_url(url)
        self._pool = pool
        if pool is None:
            bounds = limits()
            if typed:  # typed into a page: only what the URL says, nothing of the server's
                try:
                    where = typed_connection(url, connect_cap=bounds.connect_seconds,
                                             statement_timeout=bounds.read_seconds)
                except UrlRefused as exc:
                    raise CheckpointDbError(f"{self.label}: {exc}") from None
                args: tuple = ()
            else:
                where = {"connect_timeout": max(int(bounds.connect_seconds), 1),
                         "options": read_options(bounds.read_seconds)}
                args = (url,)
            try:
                self.conn = connect_within(bounds.connect_seconds, *args, **postgres_options(),
                                           **where)
            except psycopg.Error as exc:
                raise CheckpointDbError(f"{self.label}: cannot connect "
                                        f"({one_line(redact_url(str(exc)))})") from None
        try:
            if pool is None:
                bounded(self.conn)
                if not writable:
                    # Inspection writes nothing: the server refuses any write on this session.
                    self.conn.execute(_READ_ONLY_SESSION)
            with self._connection() as conn:
                found = has_postgres_saver_tables(conn)
                if found:
                    self._learn_writer(conn)
        except psycopg.Error as exc:
            # A server that answered and then refused or stopped a first read: one line, and
            # no connection kept.
            self.close()
            if isinstance(exc, psycopg.errors.QueryCanceled):
                raise took_too_long(self.label, limits().read_seconds) from None
            raise CheckpointDbError(f"{self.label}: cannot be read "
                                    f"({one_line(redact_url(str(exc)))})") from None
        # An import's target may have no tables yet: create_saver_tables makes them once the
        # export has been checked, so a refused import leaves the database as it was.
        if not found and not (create and writable):
            self.close()
            raise CheckpointDbError(
                f"{redact_url(url)}: not a LangGraph checkpoint database (no PostgresSaver tables)"
            )
        if writable and self.writer != PYTHON:
            self.close()
            raise CheckpointDbError(written_by_another(self.label, self.writer))

    @property
    def identity(self) -> str:
        """The database (its URL without the password)."""
        return self.label

    def _learn_writer(self, conn) -> None:
        """Who wrote the database: a checkpoint_writes table without task_path is LangGraph.js's
        (JSON rows) or an older Python's."""
        self.keeps_task_paths = conn.execute(_HAS_TASK_PATH).fetchone()["n"] == 1
        self._task_path = "task_path" if self.keeps_task_paths else "''"
        if not self.keeps_task_paths:
            json_rows = conn.execute(_HAS_JSON_ROWS).fetchone()["json"]
            self.writer = JAVASCRIPT if json_rows else OLDER_PYTHON

    def saver(self, serde):
        """A PostgresSaver on this connection (for edits and replays), only when writable.

        Args:
            serde: the serializer of the graph that will run on it
                (:func:`playground.serde.graph_serde`, never the permissive default).
        """
        if not self.writable:
            raise CheckpointDbError(f"{self.label} is open read-only: reopen it writable to edit")
        from langgraph.checkpoint.postgres import PostgresSaver

        return PostgresSaver(self.conn, serde=serde)

    @classmethod
    def shared(cls, url: str) -> PostgresStorage:
        """A read-only storage that borrows a connection from this process's small read pool
        for the database for each query and gives it back at once, so a page run that never
        closes it keeps nothing (a room of 100 pages each opening its own connection exhausts
        the server's).

        Args:
            url: the database's URL (its password is never shown).
        """
        return cls(url, writable=False, pool=read_pool(url))

    @contextmanager
    def _connection(self) -> Iterator:
        if self._pool is None:
            yield self.conn
            return
        with self._pool.connection() as conn:
            bounded(conn)
            yield conn

    def _rows(self, sql: str, params: object = None) -> list[dict]:
        import psycopg

        try:
            with self._connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.errors.QueryCanceled:
            raise took_too_long(self.label, limits().read_seconds) from None

    def close(self) -> None:
        """Close the connection (a pool's connections go back to the pool after each query)."""
        if self._pool is None:
            self.conn.close()

    def namespaces(self, thread_id: str) -> list[str]:
        """Checkpoint namespaces of a thread: "" for the root, then subgraphs."""
        return [row["checkpoint_ns"] for row in self._rows(_SELECT_NAMESPACES, (thread_id,))]

    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first, with SQL aggregates."""
        rows = self._rows(_SELECT_THREAD_AGGREGATES)
        extra = {
            row["thread_id"]: row["size"] or 0
            for row in self._rows(_SELECT_THREAD_BLOB_BYTES)
        }
        summaries = [self._summary(row["thread_id"], row, extra.get(row["thread_id"], 0))
                     for row in rows]
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    def thread_summary(self, thread_id: str) -> ThreadSummary:
        """One thread's line of the thread list, from its own rows only."""
        row = self._rows(_SELECT_ONE_THREAD, {"thread": thread_id})[0]
        if not row["n"]:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        extra = self._rows(_SELECT_ONE_THREAD_BLOB_BYTES, {"thread": thread_id})[0]["size"]
        return self._summary(thread_id, row, extra)

    def _summary(self, thread_id: str, row: dict, extra: int | None) -> ThreadSummary:
        """A thread's line from its aggregates (:data:`_THREAD_AGGREGATES`), its blobs' and
        writes' bytes, and its head's details."""
        head = self.details(thread_id, [row["head"]]).get(row["head"])
        return ThreadSummary(
            thread_id=thread_id, checkpoints=row["n"],
            newest_at=head.created_at if head else None,
            head_next=head.next if head else (), branches=row["leaves"],
            stored_bytes=int(row["bytes"] or 0) + int(extra or 0), head_id=row["head"])

    def heads_read(self, heads: dict[str, str]
                   ) -> dict[str, tuple[CheckpointDetail, tuple[TaskSignal, ...]]]:
        """For many threads at once (thread -> its head): each head's details (its next nodes
        from its own and its parent's channels) and the questions, answers and errors stored
        under it, in three queries whatever their number."""
        def checkpoints_of(pairs: dict[str, str]) -> dict[tuple[str, str], tuple]:
            rows = self._rows(_SELECT_CHECKPOINTS_OF_THREADS, {
                "threads": list(pairs), "ids": list(pairs.values()), "channels": _TRIGGERS})
            return {(row["thread_id"], row["checkpoint_id"]): decoded_checkpoint(row)
                    for row in rows}

        loaded = checkpoints_of(heads)
        parents = {thread: loaded[(thread, head)][0] for thread, head in heads.items()
                   if (thread, head) in loaded and loaded[(thread, head)][0]}
        loaded.update(checkpoints_of(parents))
        signals: dict[str, tuple[TaskSignal, ...]] = {}
        if self.keeps_task_paths:
            grouped: dict[str, list] = defaultdict(list)
            for row in self._rows(_SELECT_WRITES_OF_THREADS, {
                    "threads": list(heads), "ids": list(heads.values()),
                    "channels": list(SIGNAL_CHANNELS)}):
                grouped[row["thread_id"]].append((
                    row["checkpoint_id"], task_node(row["task_path"]), row["channel"],
                    decode_typed(row["type"], row["blob"])))
            signals = {thread: group_signals(rows).get(heads[thread], ())
                       for thread, rows in grouped.items()}
        found = {}
        for thread, head in heads.items():
            if (thread, head) not in loaded:
                continue
            parent_id, checkpoint, problem = loaded[(thread, head)]
            parent = loaded.get((thread, parent_id))
            if not self.keeps_task_paths:  # a write's node comes from its checkpoint: one by one
                signals[thread] = self.signals_at(thread, [head]).get(head, ())
            found[thread] = (detail_of(head, checkpoint, parent[1] if parent else None, problem),
                             signals.get(thread, ()))
        return found

    def records(self, thread_id: str, checkpoint_ns: str = "", times: bool = False
                ) -> list[CheckpointRecord]:
        """Every checkpoint of a thread and namespace, oldest first, from SQL alone (without
        times: ``checkpoint->>'ts'`` would fetch every row's JSONB in the tree's pass, and
        :meth:`checkpoint_times` reads them when a timeline asks).

        Raises:
            UnknownThread: the thread has no checkpoints in this namespace.
        """
        key = {"thread_id": thread_id, "ns": checkpoint_ns}
        rows = self._rows(_SELECT_RECORDS, key)
        if not rows:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        blob_sizes = {
            (row["channel"], row["version"]): row["size"] or 0
            for row in self._rows(_SELECT_RECORD_BLOB_SIZES, key)
        }
        writes = {
            row["checkpoint_id"]: row["size"]
            for row in self._rows(_SELECT_CHECKPOINT_WRITE_BYTES, key)
        }
        versions_of: dict[str, dict] = {}
        records = []
        for row in rows:
            versions = row["versions"] if isinstance(row["versions"], dict) else {}
            before = versions_of.get(row["parent_checkpoint_id"] or "", {})
            introduced = sum(
                blob_sizes.get((channel, str(version)), 0)
                for channel, version in versions.items()
                if before.get(channel) != version
            )
            versions_of[row["checkpoint_id"]] = versions
            step = row["step"]
            records.append(
                CheckpointRecord(
                    row["checkpoint_id"], row["parent_checkpoint_id"], checkpoint_ns,
                    int(step) if step and step.lstrip("-").isdigit() else None, row["source"],
                    (row["blob"] or 0) + introduced, row["meta"] or 0,
                    int(writes.get(row["checkpoint_id"]) or 0), None, row["run_id"],
                    row["run_started"],
                )
            )
        return records

    def _checkpoints(
        self, thread_id: str, checkpoint_ids: list[str], checkpoint_ns: str,
        channels: list[str],
    ) -> dict[str, tuple[str | None, dict, str | None]]:
        """Decoded checkpoints by id: (parent id, checkpoint, why it is unreadable or None).

        ``channels`` are LIKE patterns: only blobs of matching channels are read and decoded
        (``["%"]`` for all of them; :data:`_TRIGGERS` for what next-node detection needs).
        """
        rows = self._rows(
            _SELECT_CHECKPOINTS,
            {"t": thread_id, "ns": checkpoint_ns, "ids": checkpoint_ids, "channels": channels},
        )
        return {row["checkpoint_id"]: decoded_checkpoint(row) for row in rows}

    def details(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, CheckpointDetail]:
        """Details of some checkpoints (and their parents, for writers and changes)."""
        wanted = list(dict.fromkeys(checkpoint_ids))
        loaded = self._checkpoints(thread_id, wanted, checkpoint_ns, _TRIGGERS)
        parents = [p for p, _, _ in loaded.values() if p and p not in loaded]
        if parents:
            loaded.update(self._checkpoints(thread_id, parents, checkpoint_ns, _TRIGGERS))
        details = {}
        for checkpoint_id in wanted:
            if checkpoint_id in loaded:
                parent_id, checkpoint, problem = loaded[checkpoint_id]
                parent = loaded[parent_id][1] if parent_id in loaded else None
                details[checkpoint_id] = detail_of(checkpoint_id, checkpoint, parent, problem)
        return details

    def ancestry(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
                 ) -> Iterator[StoredCheckpoint]:
        """The checkpoint and its ancestors, newest first, by the parent links in the database:
        a recursive query over the primary key for the next :data:`_ANCESTRY_BATCH` links (no
        JSONB read), then those checkpoints with their values in growing batches (the
        checkpoint's own first, alone), as the caller goes up; a walk that stops at a snapshot
        reads no further."""
        seen: set[str] = set()
        at: str | None = checkpoint_id
        while at is not None and len(seen) < limits().max_rows:
            rows = self._rows(_SELECT_ANCESTRY, {"t": thread_id, "ns": checkpoint_ns, "id": at,
                                                 "limit": _ANCESTRY_BATCH - 1})
            part = []
            for row in rows:
                if row["checkpoint_id"] in seen:
                    break  # a parent link that loops back: stop where LangGraph's walk stops
                part.append(row["checkpoint_id"])
                seen.add(row["checkpoint_id"])
            at = rows[-1]["parent_checkpoint_id"] if len(part) == len(rows) and rows else None
            for batch in growing_batches(part):
                loaded = self._checkpoints(thread_id, batch, checkpoint_ns, ["%"])
                for cid in batch:
                    if cid not in loaded:
                        return
                    parent, checkpoint, problem = loaded[cid]
                    # The metadata of the first only: it names the DeltaChannels LangGraph counts.
                    metadata = self._metadata_of(thread_id, checkpoint_ns, cid) if cid == \
                        checkpoint_id else {}
                    yield StoredCheckpoint(cid, parent, metadata, checkpoint, problem=problem)

    def _metadata_of(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> dict:
        rows = self._rows(_SELECT_METADATA, {"t": thread_id, "ns": checkpoint_ns,
                                             "id": checkpoint_id})
        found = rows[0]["metadata"] if rows else None
        return found if isinstance(found, dict) else {}

    def _writes(self, thread_id: str, checkpoint_ns: str, where: str, params: dict) -> list:
        return self._rows(
            _WRITES.format(where=where, task_path=self._task_path,
                           order="task_path, " if self.keeps_task_paths else ""),
            {"t": thread_id, "ns": checkpoint_ns, **params},
        )

    def store_items(self, limit: int = SHOWN_STORE_ITEMS) -> list[StoreItem] | None:
        """The items of the database's LangGraph store table, if it has one (None when not)."""
        found = self._rows(_HAS_STORE_TABLE)
        if not found or not found[0]["n"]:
            return None
        rows = self._rows(_SELECT_STORE_ITEMS, (MAX_STORE_VALUE_BYTES, int(limit)))
        return [store_item(r["prefix"], r["key"], r["value"], r["size"], r["created_at"],
                           r["updated_at"]) for r in rows]

    def thread_ids(self) -> list[str]:
        """Every thread with a root checkpoint."""
        return [row["thread_id"] for row in self._rows(_THREAD_IDS)]

    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = "") -> list[StoredCheckpoint]:
        """A thread's checkpoints in a namespace, oldest first, with every value blob."""
        records = self.records(thread_id, checkpoint_ns)
        ids = [record.checkpoint_id for record in records]
        loaded = self._checkpoints(thread_id, ids, checkpoint_ns, ["%"])
        metadata = {row["checkpoint_id"]: row["metadata"] for row in self._rows(
            _METADATA, {"t": thread_id, "ns": checkpoint_ns})}
        found = []
        for record in records:
            _parent, checkpoint, problem = loaded.get(record.checkpoint_id, (None, {}, None))
            meta = metadata.get(record.checkpoint_id)
            found.append(StoredCheckpoint(
                record.checkpoint_id, record.parent_id, meta if isinstance(meta, dict) else {},
                checkpoint, record.blob_bytes, record.metadata_bytes, problem))
        return found

    def stored_writes(self, thread_id: str, checkpoint_ns: str = "",
                      checkpoint_ids: Iterable[str] | None = None,
                      channels: Iterable[str] | None = None) -> list[StoredWrite]:
        """Pending writes of a thread's namespace (or under some checkpoints, or on some
        channels), ordered by checkpoint, task and index."""
        where, params = _EVERY_WRITE, {}
        if checkpoint_ids is not None:
            where += _AND_CHECKPOINT_ID_ANY
            params["c"] = list(dict.fromkeys(checkpoint_ids))
        if channels is not None:
            where += _AND_CHANNEL_ANY
            params["channels"] = list(channels)
        return [StoredWrite(row["checkpoint_id"], row["task_path"] or "", row["channel"],
                            decode_typed(row["type"], row["blob"]), len(row["blob"] or b""),
                            task_id=row["task_id"] or "")
                for row in self._writes(thread_id, checkpoint_ns, where, params)]

    def checkpoint_times(self, thread_id: str, checkpoint_ids: Iterable[str],
                         checkpoint_ns: str = "") -> dict[str, str | None]:
        """Each checkpoint's ``ts``, read by the server from its JSONB row."""
        rows = self._rows(_SELECT_TIMES, {"t": thread_id, "ns": checkpoint_ns,
                                          "c": list(dict.fromkeys(checkpoint_ids))})
        return {row["checkpoint_id"]: row["ts"] for row in rows}

    def resume_marks(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> dict[str, Any]:
        """Each checkpoint's ``versions_seen["__interrupt__"]``, read by the server from its
        JSONB row."""
        rows = self._rows(_SELECT_RESUME_MARKS, {"t": thread_id, "ns": checkpoint_ns,
                                                 "c": list(dict.fromkeys(checkpoint_ids))})
        return {row["checkpoint_id"]: row["seen"] if isinstance(row["seen"], dict) else None
                for row in rows}

    def write_owners(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> list[tuple[str, str, str, str]]:
        """(checkpoint, node, task, channel) of the writes under some checkpoints, from their
        task paths, without fetching their values."""
        if not self.keeps_task_paths:
            return super().write_owners(thread_id, checkpoint_ids, checkpoint_ns)
        rows = self._rows(_WRITE_OWNERS, {"t": thread_id, "ns": checkpoint_ns,
                                          "c": list(dict.fromkeys(checkpoint_ids))})
        return [(row["checkpoint_id"], task_node(row["task_path"] or "") or UNKNOWN_NODE,
                 row["task_id"] or "", row["channel"]) for row in rows]

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """Count, newest id and a hash of the head row: changes whenever the thread does."""
        row = self._rows(_SELECT_FINGERPRINT, {"t": thread_id, "ns": checkpoint_ns})[0]
        return (row["n"], row["newest"], row["head"], row["writes"]) if row["n"] else None

    # The saver's tables: whether they are here, and made by the saver itself (an import's
    # target). The primitives of prune, migrate and transfer are postgres_writes.py's.

    def has_saver_tables(self) -> bool:
        """True when the current schema has all three PostgresSaver tables."""
        with self._connection() as conn:
            return has_postgres_saver_tables(conn)

    def create_saver_tables(self) -> None:
        """Make PostgresSaver's tables, by PostgresSaver itself, one process at a time (a
        database an import fills)."""
        setup_postgres_tables(self.conn)


# -- the place ----------------------------------------------------------------------------------


class PostgresDatabase(Place):
    """A Postgres database: PostgresSaver's tables, the store's, and the ticket API's.

    Claims ``postgresql://`` and ``postgres://`` URLs. It is the database replicas share, so a
    process restart keeps its pool (:meth:`restart` does nothing): the pool, never closed under
    sessions that may use it, would otherwise keep its connections.
    """

    kind = "postgres"
    typeable = True

    def __init__(self, target: str, typed: bool = False, label: str | None = None) -> None:
        super().__init__(str(target).strip(), typed, label)
        self.url = str(target).strip()
        self.label = redact_url(label or self.url)

    def check_typed(self) -> None:
        """Only host, port, user, password, database, sslmode and connect_timeout (up to the
        cap): :func:`playground.places.urls.typed_connection` says why not."""
        bounds = limits()
        typed_connection(self.url, connect_cap=bounds.connect_seconds,
                         statement_timeout=bounds.read_seconds)

    @classmethod
    def claims(cls, target: object) -> bool:
        """A ``postgresql://`` or ``postgres://`` URL."""
        return isinstance(target, str) and is_postgres_url(target)

    @classmethod
    def errors(cls) -> tuple[type[Exception], ...]:
        """psycopg's errors and a pool that had no connection in time."""
        import psycopg
        import psycopg_pool

        return (psycopg.Error, psycopg_pool.PoolTimeout)

    @property
    def shared_database(self) -> str:
        """The URL: replicas and the bundled ticket API share this database."""
        return self.url

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> PostgresStorage:
        """A connection of its own, or with ``shared`` (read-only) one borrowed from the
        process's small read pool for each query."""
        if shared and not writable and not self.typed:
            return PostgresStorage.shared(self.url)
        return PostgresStorage(self.url, writable=writable, typed=self.typed, create=create)

    def restart(self) -> None:
        """Nothing: the pool stays (see the class's docstring)."""

    def check_runnable(self) -> None:
        """The database must be one this tool writes (not LangGraph.js's); one without the
        saver's tables yet is fine (the saver makes them). Checked under the setup lock, so
        tables another process is migrating right now are read once it is done."""
        import psycopg

        with psycopg.connect(self.url, **postgres_options()) as conn, setup_lock(conn):
            self._check_tables()

    def _check_tables(self) -> None:
        self.reads(writable=True, create=True).close()

    def close(self) -> None:
        """Close this process's read pool of the database, if it made one."""
        close_read_pool(self.url)

    def _pool(self, max_size: int):
        from psycopg_pool import ConnectionPool

        return ConnectionPool(self.url, min_size=1, max_size=max_size, open=True,
                              kwargs=postgres_options())

    @contextmanager
    def saver(self, serde=None) -> Iterator:
        """PostgresSaver on a small pool, tables set up, closed afterwards."""
        from langgraph.checkpoint.postgres import PostgresSaver

        from playground.serde import graph_serde

        pool = self._pool(2)
        try:
            with pool.connection() as conn:
                setup_postgres_tables(conn, check=self._check_tables)
            yield PostgresSaver(pool, serde=serde or graph_serde())
        finally:
            pool.close()

    async def open_saver(self, serde, max_size: int = 10):
        """AsyncPostgresSaver on an async pool: every session, every replica's own
        connections."""
        import asyncio

        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
        from psycopg_pool import AsyncConnectionPool

        def setup() -> None:
            with psycopg.connect(self.url, **postgres_options()) as conn:
                setup_postgres_tables(conn, check=self._check_tables)

        # The migrations take a lock by polling (setup_postgres_tables): not on the loop.
        await asyncio.to_thread(setup)
        pool = AsyncConnectionPool(self.url, min_size=1, max_size=max_size, open=False,
                                   kwargs=postgres_options())
        await pool.open()
        return AsyncPostgresSaver(pool, serde=serde)

    async def open_store(self, options):
        """AsyncPostgresStore in the same database, with its change log table."""
        from langgraph.store.postgres.aio import AsyncPostgresStore
        from psycopg_pool import AsyncConnectionPool

        pool = AsyncConnectionPool(self.url, min_size=1, max_size=4, open=False,
                                   kwargs=postgres_options())
        await pool.open()
        store = AsyncPostgresStore(pool, **options)
        await store.setup()
        async with pool.connection() as conn:
            await conn.execute(STORE_LOG_DDL)
        return OpenedStore(store, _PostgresStoreLog(pool))


class _PostgresStoreLog(StoreLog):
    """The change log in the store's database, on the store's pool."""

    def __init__(self, pool) -> None:
        self._pool = pool

    async def insert(self, rows: list[tuple]) -> None:
        async with self._pool.connection() as conn, conn.cursor() as cursor:
            await cursor.executemany(_LOG_INSERT, rows)

    async def select(self, thread_id: str, from_checkpoint: str | None, limit: int
                     ) -> list[tuple]:
        step = _LOG_FROM_CHECKPOINT if from_checkpoint else ""
        params = (thread_id, from_checkpoint, int(limit)) if from_checkpoint else (
            thread_id, int(limit))
        async with self._pool.connection() as conn:
            cursor = await conn.execute(_LOG_SELECT.format(step=step), params)
            return [tuple(row.values()) if isinstance(row, dict) else tuple(row)
                    for row in await cursor.fetchall()]
