"""The engine's reads of a Postgres database (the read seam): PostgresSaver's tables, read with
SQL and the safe decoder alone.

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
    written_by_another,
)
from playground.places.postgres.connections import (
    bounded,
    connect_within,
    has_postgres_saver_tables,
    one_line,
    process_pool,
    setup_postgres_tables,
)
from playground.places.postgres.sql import (
    AND_CHANNEL_ANY,
    AND_CHECKPOINT_ID_ANY,
    EVERY_WRITE,
    HAS_JSON_ROWS,
    HAS_STORE_TABLE,
    HAS_TASK_PATH,
    METADATA,
    READ_ONLY_SESSION,
    SELECT_ANCESTRY,
    SELECT_CHECKPOINT_WRITE_BYTES,
    SELECT_CHECKPOINTS,
    SELECT_CHECKPOINTS_OF_THREADS,
    SELECT_FINGERPRINT,
    SELECT_METADATA,
    SELECT_NAMESPACES,
    SELECT_ONE_THREAD,
    SELECT_ONE_THREAD_BLOB_BYTES,
    SELECT_RECORD_BLOB_SIZES,
    SELECT_RECORDS,
    SELECT_RESUME_MARKS,
    SELECT_STORE_ITEMS,
    SELECT_THREAD_AGGREGATES,
    SELECT_THREAD_BLOB_BYTES,
    SELECT_TIMES,
    SELECT_WRITES_OF_THREADS,
    THREAD_IDS,
    TRIGGERS,
    WRITE_OWNERS,
    WRITES,
)
from playground.places.postgres.thread_list import PostgresThreadList
from playground.places.postgres.writes import PostgresWrites
from playground.places.settings import postgres_options, read_options
from playground.places.urls import UrlRefused, redact_url, typed_connection
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

_ANCESTRY_BATCH = 32  # checkpoints read at once on a walk up the parent links


def decoded_checkpoint(row: dict) -> tuple[str | None, dict, str | None]:
    """A checkpoint row with its value blobs (``SELECT_CHECKPOINTS``'s columns) decoded:
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
                    self.conn.execute(READ_ONLY_SESSION)
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
        self.keeps_task_paths = conn.execute(HAS_TASK_PATH).fetchone()["n"] == 1
        self._task_path = "task_path" if self.keeps_task_paths else "''"
        if not self.keeps_task_paths:
            json_rows = conn.execute(HAS_JSON_ROWS).fetchone()["json"]
            self.writer = JAVASCRIPT if json_rows else OLDER_PYTHON

    def _saver_on_connection(self, serde):
        """A PostgresSaver on this connection (the storage base checks it is writable)."""
        # Imported here: reading needs none of LangGraph, and a CLI that only reads should
        # not pay for importing it.
        from langgraph.checkpoint.postgres import PostgresSaver

        return PostgresSaver(self.conn, serde=serde)

    @classmethod
    def shared(cls, url: str) -> PostgresStorage:
        """A read-only storage that borrows a connection from this process's small pool
        for the database for each query and gives it back at once, so a page run that never
        closes it keeps nothing (a room of 100 pages each opening its own connection exhausts
        the server's).

        Args:
            url: the database's URL (its password is never shown).
        """
        return cls(url, writable=False, pool=process_pool(url))

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
        return [row["checkpoint_ns"] for row in self._rows(SELECT_NAMESPACES, (thread_id,))]

    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first, with SQL aggregates."""
        rows = self._rows(SELECT_THREAD_AGGREGATES)
        extra = {
            row["thread_id"]: row["size"] or 0
            for row in self._rows(SELECT_THREAD_BLOB_BYTES)
        }
        summaries = [self._summary(row["thread_id"], row, extra.get(row["thread_id"], 0))
                     for row in rows]
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    def thread_summary(self, thread_id: str) -> ThreadSummary:
        """One thread's line of the thread list, from its own rows only."""
        row = self._rows(SELECT_ONE_THREAD, {"thread": thread_id})[0]
        if not row["n"]:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        extra = self._rows(SELECT_ONE_THREAD_BLOB_BYTES, {"thread": thread_id})[0]["size"]
        return self._summary(thread_id, row, extra)

    def _summary(self, thread_id: str, row: dict, extra: int | None) -> ThreadSummary:
        """A thread's line from its aggregates (:data:`THREAD_AGGREGATES`), its blobs' and
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
            rows = self._rows(SELECT_CHECKPOINTS_OF_THREADS, {
                "threads": list(pairs), "ids": list(pairs.values()), "channels": TRIGGERS})
            return {(row["thread_id"], row["checkpoint_id"]): decoded_checkpoint(row)
                    for row in rows}

        loaded = checkpoints_of(heads)
        parents = {thread: loaded[(thread, head)][0] for thread, head in heads.items()
                   if (thread, head) in loaded and loaded[(thread, head)][0]}
        loaded.update(checkpoints_of(parents))
        signals: dict[str, tuple[TaskSignal, ...]] = {}
        if self.keeps_task_paths:
            grouped: dict[str, list] = defaultdict(list)
            for row in self._rows(SELECT_WRITES_OF_THREADS, {
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
        rows = self._rows(SELECT_RECORDS, key)
        if not rows:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        blob_sizes = {
            (row["channel"], row["version"]): row["size"] or 0
            for row in self._rows(SELECT_RECORD_BLOB_SIZES, key)
        }
        writes = {
            row["checkpoint_id"]: row["size"]
            for row in self._rows(SELECT_CHECKPOINT_WRITE_BYTES, key)
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
                    row["run_started"], row["action"],
                )
            )
        return records

    def _checkpoints(
        self, thread_id: str, checkpoint_ids: list[str], checkpoint_ns: str,
        channels: list[str],
    ) -> dict[str, tuple[str | None, dict, str | None]]:
        """Decoded checkpoints by id: (parent id, checkpoint, why it is unreadable or None).

        ``channels`` are LIKE patterns: only blobs of matching channels are read and decoded
        (``["%"]`` for all of them; :data:`TRIGGERS` for what next-node detection needs).
        """
        rows = self._rows(
            SELECT_CHECKPOINTS,
            {"t": thread_id, "ns": checkpoint_ns, "ids": checkpoint_ids, "channels": channels},
        )
        return {row["checkpoint_id"]: decoded_checkpoint(row) for row in rows}

    def details(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, CheckpointDetail]:
        """Details of some checkpoints (and their parents, for writers and changes)."""
        wanted = list(dict.fromkeys(checkpoint_ids))
        loaded = self._checkpoints(thread_id, wanted, checkpoint_ns, TRIGGERS)
        parents = [p for p, _, _ in loaded.values() if p and p not in loaded]
        if parents:
            loaded.update(self._checkpoints(thread_id, parents, checkpoint_ns, TRIGGERS))
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
            rows = self._rows(SELECT_ANCESTRY, {"t": thread_id, "ns": checkpoint_ns, "id": at,
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
        rows = self._rows(SELECT_METADATA, {"t": thread_id, "ns": checkpoint_ns,
                                             "id": checkpoint_id})
        found = rows[0]["metadata"] if rows else None
        return found if isinstance(found, dict) else {}

    def _writes(self, thread_id: str, checkpoint_ns: str, where: str, params: dict) -> list:
        return self._rows(
            WRITES.format(where=where, task_path=self._task_path,
                           order="task_path, " if self.keeps_task_paths else ""),
            {"t": thread_id, "ns": checkpoint_ns, **params},
        )

    def store_items(self, limit: int = SHOWN_STORE_ITEMS) -> list[StoreItem] | None:
        """The items of the database's LangGraph store table, if it has one (None when not)."""
        found = self._rows(HAS_STORE_TABLE)
        if not found or not found[0]["n"]:
            return None
        rows = self._rows(SELECT_STORE_ITEMS, (MAX_STORE_VALUE_BYTES, int(limit)))
        return [store_item(r["prefix"], r["key"], r["value"], r["size"], r["created_at"],
                           r["updated_at"]) for r in rows]

    def thread_ids(self) -> list[str]:
        """Every thread with a root checkpoint."""
        return [row["thread_id"] for row in self._rows(THREAD_IDS)]

    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = "") -> list[StoredCheckpoint]:
        """A thread's checkpoints in a namespace, oldest first, with every value blob."""
        records = self.records(thread_id, checkpoint_ns)
        ids = [record.checkpoint_id for record in records]
        loaded = self._checkpoints(thread_id, ids, checkpoint_ns, ["%"])
        metadata = {row["checkpoint_id"]: row["metadata"] for row in self._rows(
            METADATA, {"t": thread_id, "ns": checkpoint_ns})}
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
        where, params = EVERY_WRITE, {}
        if checkpoint_ids is not None:
            where += AND_CHECKPOINT_ID_ANY
            params["c"] = list(dict.fromkeys(checkpoint_ids))
        if channels is not None:
            where += AND_CHANNEL_ANY
            params["channels"] = list(channels)
        return [StoredWrite(row["checkpoint_id"], row["task_path"] or "", row["channel"],
                            decode_typed(row["type"], row["blob"]), len(row["blob"] or b""),
                            task_id=row["task_id"] or "")
                for row in self._writes(thread_id, checkpoint_ns, where, params)]

    def checkpoint_times(self, thread_id: str, checkpoint_ids: Iterable[str],
                         checkpoint_ns: str = "") -> dict[str, str | None]:
        """Each checkpoint's ``ts``, read by the server from its JSONB row."""
        rows = self._rows(SELECT_TIMES, {"t": thread_id, "ns": checkpoint_ns,
                                          "c": list(dict.fromkeys(checkpoint_ids))})
        return {row["checkpoint_id"]: row["ts"] for row in rows}

    def resume_marks(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> dict[str, Any]:
        """Each checkpoint's ``versions_seen["__interrupt__"]``, read by the server from its
        JSONB row."""
        rows = self._rows(SELECT_RESUME_MARKS, {"t": thread_id, "ns": checkpoint_ns,
                                                 "c": list(dict.fromkeys(checkpoint_ids))})
        return {row["checkpoint_id"]: row["seen"] if isinstance(row["seen"], dict) else None
                for row in rows}

    def write_owners(self, thread_id: str, checkpoint_ids: Iterable[str],
                     checkpoint_ns: str = "") -> list[tuple[str, str, str, str]]:
        """(checkpoint, node, task, channel) of the writes under some checkpoints, from their
        task paths, without fetching their values."""
        if not self.keeps_task_paths:
            return super().write_owners(thread_id, checkpoint_ids, checkpoint_ns)
        rows = self._rows(WRITE_OWNERS, {"t": thread_id, "ns": checkpoint_ns,
                                          "c": list(dict.fromkeys(checkpoint_ids))})
        return [(row["checkpoint_id"], task_node(row["task_path"] or "") or UNKNOWN_NODE,
                 row["task_id"] or "", row["channel"]) for row in rows]

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """Count, newest id and a hash of the head row: changes whenever the thread does."""
        row = self._rows(SELECT_FINGERPRINT, {"t": thread_id, "ns": checkpoint_ns})[0]
        return (row["n"], row["newest"], row["head"], row["writes"]) if row["n"] else None

    # The saver's tables: whether they are here, and made by the saver itself (an import's
    # target). The primitives of prune, migrate and transfer are writes.py's.

    def has_saver_tables(self) -> bool:
        """True when the current schema has all three PostgresSaver tables."""
        with self._connection() as conn:
            return has_postgres_saver_tables(conn)

    def create_saver_tables(self) -> None:
        """Make PostgresSaver's tables, by PostgresSaver itself, one process at a time (a
        database an import fills)."""
        setup_postgres_tables(self.conn)


