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

import json
import re
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
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
from playground.places.postgres_thread_list import PostgresThreadList
from playground.places.settings import postgres_options, read_options
from playground.places.urls import UrlRefused, is_postgres_url, redact_url, typed_connection
from playground.timetravel.decode import bounded_json_loads, decode_typed, is_unread
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
    DuplicateRows,
    ExportTable,
    Head,
    PlanRow,
    Storage,
    StoredCheckpoint,
    StoredWrite,
    export_columns,
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

# Opening: the saver's tables (BASE TABLE only: information_schema lists views too, and a view
# can run any query), and a session that refuses writes.
_COUNT_SAVER_TABLES = (
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
    "current_schema() AND table_type = 'BASE TABLE' AND table_name IN ('checkpoints', "
    "'checkpoint_blobs', 'checkpoint_writes')")
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

# What writes are made of: a transaction that locks first, and the tables' set-up lock.
_LOCK_CHECKPOINTS = "LOCK TABLE checkpoints IN SHARE ROW EXCLUSIVE MODE"
_TRY_SETUP_LOCK = "SELECT pg_try_advisory_lock(%s) AS taken"
_SETUP_UNLOCK = "SELECT pg_advisory_unlock(%s)"

# Sizes.
_SELECT_STORED_BYTES = (
    "SELECT (SELECT COALESCE(sum(octet_length(checkpoint::text) + "
    "  octet_length(metadata::text)), 0) FROM checkpoints WHERE thread_id = %(t)s "
    "  AND checkpoint_ns = %(ns)s) + "
    " (SELECT COALESCE(sum(octet_length(blob)), 0) FROM checkpoint_blobs "
    "  WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s) + "
    " (SELECT COALESCE(sum(octet_length(blob)), 0) FROM checkpoint_writes "
    "  WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s) AS n")

# Prune.
_SELECT_PLAN_ROWS = (
    "SELECT checkpoint_id, parent_checkpoint_id, metadata::text AS metadata, "
    "octet_length(checkpoint::text) + octet_length(metadata::text) AS size, "
    "checkpoint->'channel_versions' AS versions FROM checkpoints "
    "WHERE thread_id = %s AND checkpoint_ns = %s ORDER BY checkpoint_id")
_SELECT_BLOB_SIZES = (
    "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
    "WHERE thread_id = %s AND checkpoint_ns = %s")
_SELECT_WRITES_BY_CHECKPOINT = (
    "SELECT checkpoint_id, count(*) AS n, sum(octet_length(blob)) AS size "
    "FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = %s "
    "GROUP BY checkpoint_id")
_DELETE_WRITES = ("DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = %s "
                  "AND checkpoint_id = ANY(%s)")
_DELETE_CHECKPOINTS = ("DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s "
                       "AND checkpoint_id = ANY(%s)")
_DETACH_CHECKPOINTS = ("UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = %s "
                       "AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)")
_DELETE_BLOB = ("DELETE FROM checkpoint_blobs WHERE thread_id = %s AND checkpoint_ns = %s "
                "AND channel = %s AND version = %s")

# Migrate. The head is the largest checkpoint_id, the row PostgresSaver.get_tuple resumes from:
# every thread's (_NEWEST_HEADS) or one thread's (_NEWEST_HEAD_OF_THREAD) is {newest}.
_NEWEST_HEADS = ("SELECT DISTINCT ON (thread_id) thread_id, checkpoint_ns, checkpoint_id, "
                 "checkpoint, metadata FROM checkpoints WHERE checkpoint_ns = '' "
                 "ORDER BY thread_id, checkpoint_id DESC")
_NEWEST_HEAD_OF_THREAD = ("SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata "
                          "FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' "
                          "ORDER BY checkpoint_id DESC LIMIT 1")
# Which channels keep a value in a blob row (not inline), for the heads alone: one
# primary-key lookup per channel version (LIMIT 1 keeps the planner from hashing every
# blob of the thread instead, 10x slower on a long one). '{{}}' is the JSON literal '{}'.
_SELECT_HEADS = (
    "WITH heads AS ({newest}) SELECT h.thread_id, h.checkpoint_id, h.checkpoint, "
    "h.metadata, (SELECT array_agg(v.key) FROM jsonb_each_text(CASE "
    " jsonb_typeof(h.checkpoint->'channel_versions') WHEN 'object' THEN "
    " h.checkpoint->'channel_versions' ELSE '{{}}' END) v CROSS JOIN LATERAL ("
    "  SELECT 1 FROM checkpoint_blobs b WHERE b.thread_id = h.thread_id AND "
    "  b.checkpoint_ns = h.checkpoint_ns AND b.channel = v.key AND b.version = v.value "
    "  AND b.type <> 'empty' LIMIT 1) hit) AS in_blobs "
    "FROM heads h ORDER BY h.thread_id")
_SAME_HEAD_JSONB = ("SELECT checkpoint = %s AS same FROM checkpoints WHERE thread_id = %s "
                    "AND checkpoint_ns = '' AND checkpoint_id = %s")
_COUNT_CHANNEL_WRITES = ("SELECT count(*) AS n FROM checkpoint_writes WHERE thread_id = %s "
                         "AND checkpoint_ns = '' AND checkpoint_id = %s AND channel = %s")
_SELECT_HEAD_BLOB = ("SELECT type, blob FROM checkpoint_blobs WHERE thread_id = %s AND "
                     "checkpoint_ns = '' AND channel = %s AND version = %s")
_UPDATE_HEAD_CHECKPOINT = ("UPDATE checkpoints SET checkpoint = %s WHERE thread_id = %s "
                           "AND checkpoint_ns = '' AND checkpoint_id = %s")
_COPY_BLOB = (
    "INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, "
    "blob) SELECT thread_id, checkpoint_ns, %s, version, type, blob "
    "FROM checkpoint_blobs WHERE thread_id = %s AND checkpoint_ns = '' "
    "AND channel = %s AND version = %s "
    "ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING")
_RENAME_HEAD_WRITES = ("UPDATE checkpoint_writes SET channel = %s WHERE thread_id = %s "
                       "AND checkpoint_ns = '' AND checkpoint_id = %s AND channel = %s")

# Transfer: {columns} and {names} are an ExportTable's column list, {marks} its other %s marks.
_EXPORT_ROWS = "SELECT {columns} FROM {table} WHERE thread_id = %s ORDER BY {order}"
_COUNT_THREAD_ROWS = (
    "SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = %(t)s) "
    "+ (SELECT count(*) FROM checkpoint_blobs WHERE thread_id = %(t)s) "
    "+ (SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s) AS n")
_INSERT_ROWS = "INSERT INTO {table} (thread_id, {names}) VALUES (%s{marks})"

# Channels whose values decide what runs next (records.next_nodes): the input, the branch
# triggers and the fan-in barriers. Details read only these blobs, never the state's values.
_TRIGGERS = ["\\_\\_start\\_\\_", "branch:to:%", "join:%"]


def _bounded(conn) -> None:
    # JSONB written by someone else may nest beyond Python's recursion limit: decode it with
    # the bounded loader, which gives a marker instead of raising.
    from psycopg.types.json import set_json_loads

    set_json_loads(bounded_json_loads, conn)


def has_postgres_saver_tables(conn) -> bool:
    """True when the database (current schema) has all three PostgresSaver tables.

    Args:
        conn: a psycopg connection with dict rows.
    """
    row = conn.execute(_COUNT_SAVER_TABLES).fetchone()
    return row["n"] == 3


def _one_line(text: str) -> str:
    # libpq's messages span lines and may name files of the server (its pgpass): keep the
    # first line, which says what failed.
    first = text.strip().splitlines()[0] if text.strip() else "no answer"
    return re.sub(r"password retrieved from file \S+", "password from the server's files",
                  first)


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


class PostgresStorage(PostgresThreadList, Storage):
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
                                        f"({_one_line(redact_url(str(exc)))})") from None
        try:
            if pool is None:
                _bounded(self.conn)
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
                                    f"({_one_line(redact_url(str(exc)))})") from None
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
        return cls(url, writable=False, pool=_read_pool(url))

    @contextmanager
    def _connection(self) -> Iterator:
        if self._pool is None:
            yield self.conn
            return
        with self._pool.connection() as conn:
            _bounded(conn)
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

    # -- what writes are made of (prune, migrate, transfer: the flows are theirs) ----------------

    saver_tables = "PostgresSaver tables (checkpoints, checkpoint_blobs, checkpoint_writes)"
    export_tables = (
        ExportTable("checkpoints", "checkpoints", {
            "checkpoint_ns": "str", "checkpoint_id": "str", "parent_checkpoint_id": "str?",
            "type": "str?", "checkpoint": "json", "metadata": "json"},
            "checkpoint_ns, checkpoint_id"),
        # Values that are not inline in the JSONB: one row per channel version.
        ExportTable("blobs", "checkpoint_blobs", {
            "checkpoint_ns": "str", "channel": "str", "version": "str", "type": "str",
            "blob": "blob"},
            "checkpoint_ns, channel, version"),
        ExportTable("writes", "checkpoint_writes", {
            "checkpoint_ns": "str", "checkpoint_id": "str", "task_id": "str", "task_path": "str",
            "idx": "int", "channel": "str", "type": "str?", "blob": "blob!"},
            "checkpoint_ns, checkpoint_id, task_id, idx"),
    )

    def has_saver_tables(self) -> bool:
        """True when the current schema has all three PostgresSaver tables."""
        with self._connection() as conn:
            return has_postgres_saver_tables(conn)

    def create_saver_tables(self) -> None:
        """Make PostgresSaver's tables, by PostgresSaver itself, one process at a time (a
        database an import fills)."""
        setup_postgres_tables(self.conn)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction that first locks ``checkpoints`` in SHARE ROW EXCLUSIVE mode.

        Like SQLite's ``BEGIN IMMEDIATE``: no saver can add a checkpoint between the plan the
        body reads and the change it makes (the mode conflicts with the ROW EXCLUSIVE lock every
        INSERT and UPDATE takes; readers go on). Held for the body's few statements only.
        """
        if not self.writable:
            raise CheckpointDbError(f"{self.label} is open read-only: reopen it writable")
        with self.conn.transaction():
            self.conn.execute(_LOCK_CHECKPOINTS)
            yield

    def stored_bytes(self, thread_id: str, checkpoint_ns: str = "") -> int:
        """Bytes of a thread's namespace: JSONB rows, value blobs and write blobs."""
        (row,) = self._rows(_SELECT_STORED_BYTES, {"t": thread_id, "ns": checkpoint_ns})
        return int(row["n"])

    def plan_rows(self, thread_id: str, checkpoint_ns: str) -> list[PlanRow]:
        """The thread's checkpoints in a namespace, oldest first, with the channel versions
        each refers to (a value blob goes only when no kept checkpoint refers to it)."""
        return [
            PlanRow(row["checkpoint_id"], row["parent_checkpoint_id"], row["size"],
                    row["metadata"],
                    row["versions"] if isinstance(row["versions"], dict) else {})
            for row in self._rows(_SELECT_PLAN_ROWS, (thread_id, checkpoint_ns))
        ]

    def _blobs_left(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                    doomed: set[str]) -> tuple[dict[tuple[str, str], int], set[tuple[str, str]]]:
        """Every value blob of the namespace with its size, and those a kept checkpoint refers
        to."""
        blobs = {
            (row["channel"], row["version"]): row["size"] or 0
            for row in self._rows(_SELECT_BLOB_SIZES, (thread_id, checkpoint_ns))
        }
        referenced = {(channel, str(version)) for row in rows
                      if row.checkpoint_id not in doomed
                      for channel, version in (row.versions or {}).items()}
        return blobs, referenced

    def deletion_bytes(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                       doomed: set[str]) -> tuple[int, int, int]:
        """Before, after and writes deleted: the doomed rows, their writes, and the value blobs
        no kept checkpoint refers to go."""
        blobs, referenced = self._blobs_left(thread_id, checkpoint_ns, rows, doomed)
        writes = {
            row["checkpoint_id"]: (row["n"], row["size"] or 0)
            for row in self._rows(_SELECT_WRITES_BY_CHECKPOINT, (thread_id, checkpoint_ns))
        }
        before = (sum(row.size for row in rows) + sum(blobs.values())
                  + sum(size for _, size in writes.values()))
        after = (sum(row.size for row in rows if row.checkpoint_id not in doomed)
                 + sum(size for key, size in blobs.items() if key in referenced)
                 + sum(size for cid, (_, size) in writes.items() if cid not in doomed))
        deleted = sum(n for cid, (n, _) in writes.items() if cid in doomed)
        return int(before), int(after), int(deleted)

    def delete_checkpoints(self, thread_id: str, checkpoint_ns: str, rows: list[PlanRow],
                           deleted: Iterable[str], detached: Iterable[str]) -> None:
        """Delete checkpoints, their writes and the value blobs no kept checkpoint refers to;
        detached ones lose their parent link."""
        doomed = list(deleted)
        blobs, referenced = self._blobs_left(thread_id, checkpoint_ns, rows, set(doomed))
        key = (thread_id, checkpoint_ns)
        execute = self.conn.execute
        execute(_DELETE_WRITES, (*key, doomed))
        execute(_DELETE_CHECKPOINTS, (*key, doomed))
        execute(_DETACH_CHECKPOINTS, (*key, list(detached)))
        with self.conn.cursor() as cur:
            cur.executemany(_DELETE_BLOB,
                            [(*key, *blob) for blob in blobs if blob not in referenced])

    def heads(self, thread_id: str | None = None) -> Iterator[Head]:
        """Each thread's newest root checkpoint as its JSONB reads (small values inline)."""
        if thread_id is None:
            newest = _NEWEST_HEADS
            params: tuple = ()
        else:
            newest = _NEWEST_HEAD_OF_THREAD
            params = (thread_id,)
        rows = self._rows(_SELECT_HEADS.format(newest=newest), params)
        for row in rows:
            checkpoint, metadata = row["checkpoint"], row["metadata"]
            problem = None
            if is_unread(checkpoint):
                checkpoint, problem = None, f"the JSONB is not readable: {checkpoint['__unread__']}"
            elif not isinstance(checkpoint, dict):
                checkpoint, problem = None, "the checkpoint JSONB is not an object"
            values = (checkpoint or {}).get("channel_values")
            inline = {key for key, value in values.items() if value is not None} if isinstance(
                values, dict) else set()
            yield Head(row["thread_id"], row["checkpoint_id"], checkpoint,
                       metadata if isinstance(metadata, dict) else {},
                       frozenset(inline | set(row["in_blobs"] or ())), problem)

    def rewrite_problem(self, head: Head) -> str | None:
        """JSON read into Python and written back must be the same JSONB, or the rewrite would
        change more than the rename."""
        from psycopg.types.json import Jsonb

        (row,) = self._rows(
            _SAME_HEAD_JSONB, (Jsonb(head.checkpoint), head.thread_id, head.checkpoint_id))
        return None if row["same"] else "the JSONB does not round-trip exactly"

    def count_writes(self, thread_id: str, checkpoint_id: str, channel: str) -> int:
        """Pending writes on ``channel`` under a root checkpoint."""
        (row,) = self._rows(_COUNT_CHANNEL_WRITES, (thread_id, checkpoint_id, channel))
        return int(row["n"])

    def rename_extra(self, head: Head, old: str, new: str) -> tuple[list[str], str | None] | str:
        """The value's blob row, copied under ``new`` at the same version (the plan is that
        version). The old row stays: older checkpoints hold ``(old, version)`` too and still
        join on it, so replaying one works under the old schema; prune deletes it once no kept
        checkpoint refers to it."""
        versions = head.checkpoint["channel_versions"]
        if old not in versions:
            return [], None
        version = str(versions[old])

        def blob(channel: str) -> tuple | None:
            found = self._rows(_SELECT_HEAD_BLOB, (head.thread_id, channel, version))
            return (found[0]["type"], bytes(found[0]["blob"] or b"")) if found else None

        value = blob(old)
        if value is None:  # the value is inline in the JSONB
            return [], None
        taken = blob(new)
        if taken is not None and taken != value:
            return (f"a different blob is already stored for {new!r} at version {version} "
                    "(an older checkpoint used that name)")
        return ["checkpoint_blobs"], version

    def rewrite_head(self, head: Head, checkpoint: dict, old: str, new: str,
                     plan: str | None) -> None:
        """Store the renamed JSONB, copy the value's blob row under ``new`` (when ``plan``
        names its version) and move the head's pending writes to ``new``."""
        from psycopg.types.json import Jsonb

        key = (head.thread_id, head.checkpoint_id)
        self.conn.execute(_UPDATE_HEAD_CHECKPOINT, (Jsonb(checkpoint), *key))
        if plan is not None:
            self.conn.execute(_COPY_BLOB, (new, head.thread_id, old, plan))
        self.conn.execute(_RENAME_HEAD_WRITES, (new, *key, old))

    def export_rows(self, thread_id: str) -> dict[str, list[tuple]]:
        """The thread's checkpoints (JSONB as dicts), value blobs and writes, as stored."""
        found = {}
        for table in self.export_tables:
            rows = self._rows(_EXPORT_ROWS.format(
                columns=export_columns(table, self.keeps_task_paths), table=table.table,
                order=table.order),
                              (thread_id,))
            found[table.key] = [tuple(row[c] for c in table.columns) for row in rows]
        return found

    def rows_taken(self, thread_id: str) -> int:
        """Checkpoint, value blob and write rows the thread already has."""
        (row,) = self._rows(_COUNT_THREAD_ROWS, {"t": thread_id})
        return int(row["n"])

    def insert_rows(self, thread_id: str, rows: dict[str, list[tuple]]) -> None:
        """Insert checked export rows under ``thread_id`` (JSON cells as JSONB)."""
        import psycopg
        from psycopg.types.json import Jsonb

        try:
            with self.conn.cursor() as cur:
                for table in self.export_tables:
                    json_at = [i for i, kind in enumerate(table.columns.values())
                               if kind == "json"]
                    cells = [tuple(Jsonb(cell) if i in json_at else cell
                                   for i, cell in enumerate(row))
                             for row in rows.get(table.key, ())]
                    if cells:
                        cur.executemany(
                            _INSERT_ROWS.format(table=table.table,
                                                names=", ".join(table.columns),
                                                marks=", %s" * len(table.columns)),
                            [(thread_id, *row) for row in cells])
        except psycopg.errors.UniqueViolation as exc:
            raise DuplicateRows(str(exc).strip()) from None

    def rows_bytes(self, rows: dict[str, list[tuple]]) -> int:
        """JSONB text of the checkpoints and metadata, plus value and write blob bytes."""
        total = sum(len(json.dumps(cell).encode()) for row in rows.get("checkpoints", ())
                    for cell in row[4:6])
        for key in ("blobs", "writes"):
            total += sum(len(row[-1]) for row in rows.get(key, ()) if row[-1] is not None)
        return total


_POOLS: dict[str, Any] = {}
_POOLS_LOCK = threading.Lock()


def _read_pool(url: str):
    """The process's read pool for a database, made on first use and kept for the process."""
    with _POOLS_LOCK:
        pool = _POOLS.get(url)
        if pool is None:
            from psycopg_pool import ConnectionPool

            bounds = limits()
            pool = _POOLS[url] = ConnectionPool(
                url, min_size=1, max_size=4, open=True,
                kwargs={**postgres_options(), "options": read_options(bounds.read_seconds),
                        "connect_timeout": max(int(bounds.connect_seconds), 1)})
        return pool


# Any 64-bit number no other application on the database uses for an advisory lock.
SETUP_LOCK_KEY = 0x706C_6179_6772_6E64  # "playgrnd"
_SETUP_LOCK_POLL = 0.05


@contextmanager
def setup_lock(conn, timeout: float = 120.0) -> Iterator[None]:
    """Hold the database's setup lock: no other process migrates the tables meanwhile.

    Taken by polling ``pg_try_advisory_lock``: a process blocked inside ``pg_advisory_lock``
    would hold a snapshot that another one's index build waits for.

    Raises:
        TimeoutError: another process held the lock for ``timeout`` seconds.
    """
    import time

    deadline = time.monotonic() + timeout
    while not conn.execute(_TRY_SETUP_LOCK, (SETUP_LOCK_KEY,)).fetchone()["taken"]:
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"another process has been setting up the checkpoint tables for {timeout:.0f} s"
            )
        time.sleep(_SETUP_LOCK_POLL)
    try:
        yield
    finally:
        conn.execute(_SETUP_UNLOCK, (SETUP_LOCK_KEY,))


def setup_postgres_tables(conn, timeout: float = 120.0,
                          check: Callable[[], None] | None = None) -> None:
    """Create or migrate PostgresSaver's tables, one process at a time per database.

    PostgresSaver's migrations build indexes ``CONCURRENTLY``; two processes doing that at once
    (replicas of a workshop starting together on an empty database) deadlock, and Postgres
    kills one of them. The setup lock (:func:`setup_lock`) serializes them, so the second finds
    the migrations done. ``check`` runs under the lock too, before the migrations: a check made
    while another process is halfway through them (tables made, ``task_path`` not yet added)
    took the database for an older LangGraph's and refused it.

    ``conn`` is an autocommit psycopg connection with dict rows, as PostgresSaver needs.

    Raises:
        TimeoutError: another process held the lock for ``timeout`` seconds.
        CheckpointDbError: ``check`` refused the database; nothing was migrated.
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    with setup_lock(conn, timeout):
        if check is not None:
            check()
        PostgresSaver(conn).setup()


def connect_within(seconds: float, *args, **kwargs):
    """``psycopg.connect`` with one deadline over every host a URL names.

    libpq applies ``connect_timeout`` to each host in turn, so a URL naming four hosts that
    never answer took four times the timeout. Here each host (with its own port and hostaddr,
    where the URL gives lists of them) gets what is left of ``seconds``; a server that answered
    and refused (a wrong password, no such database) ends the attempt at once, as libpq's own
    loop does; the last host's error is raised once none answered. A URL naming one host, or
    options this loop cannot split per host (``load_balance_hosts``, ``target_session_attrs``
    other than ``any``), connects as libpq does.

    Raises:
        psycopg.OperationalError: no host answered in time, or one refused.
    """
    import math
    import time

    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    # What psycopg.connect takes besides libpq's parameters.
    own = {key: kwargs.pop(key) for key in ("autocommit", "prepare_threshold", "row_factory",
                                            "cursor_factory", "context") if key in kwargs}
    params = conninfo_to_dict(*args, **kwargs)
    hosts = str(params.get("host") or "").split(",")
    per_host = {key: str(params[key]).split(",") for key in ("port", "hostaddr")
                if params.get(key) not in (None, "")}
    if (len(hosts) < 2 or params.get("load_balance_hosts") not in (None, "disable")
            or params.get("target_session_attrs") not in (None, "any")
            or any(len(values) not in (1, len(hosts)) for values in per_host.values())):
        return psycopg.connect(*args, **own, **kwargs)
    deadline = time.monotonic() + seconds
    failure: psycopg.OperationalError | None = None
    for index, host in enumerate(hosts):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        one = {**params, "host": host, "connect_timeout": max(math.ceil(left), 1)}
        for key, values in per_host.items():
            value = values[index] if len(values) == len(hosts) else values[0]
            if value:
                one[key] = value
            else:
                one.pop(key, None)
        try:
            return psycopg.connect(**own, **one)
        except psycopg.OperationalError as exc:
            if exc.sqlstate is not None:  # the server answered: a refusal, not a silent host
                raise
            failure = exc
    raise failure or psycopg.OperationalError(f"no host answered within {seconds:g} s")


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
        with _POOLS_LOCK:
            pool = _POOLS.pop(self.url, None)
        if pool is not None:
            pool.close()

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
