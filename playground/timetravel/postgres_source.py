"""Checkpoints of a PostgresSaver database, read with SQL and the safe decoder alone.

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

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from playground.timetravel.dburl import UrlRefused, redact_url, typed_connection
from playground.timetravel.decode import bounded_json_loads, decode_typed, is_unread
from playground.timetravel.errors import CheckpointDbError, UnknownThread, UnreadableCheckpoint
from playground.timetravel.limits import limits, took_too_long
from playground.timetravel.records import (
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    detail_of,
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

# Channels whose values decide what runs next (records.next_nodes): the input, the branch
# triggers and the fan-in barriers. Details read only these blobs, never the state's values.
_TRIGGERS = ["\\_\\_start\\_\\_", "branch:to:%", "join:%"]
redact = redact_url  # the one redactor (dburl.py), under the name the engine has used


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
    # BASE TABLE only: information_schema lists views too, and a view can run any query.
    row = conn.execute(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
        "current_schema() AND table_type = 'BASE TABLE' AND table_name IN ('checkpoints', "
        "'checkpoint_blobs', 'checkpoint_writes')"
    ).fetchone()
    return row["n"] == 3


def read_options(seconds: float | None = None) -> str:
    """libpq ``options`` that make the server stop any one statement past the read deadline."""
    seconds = limits().read_seconds if seconds is None else seconds
    return f"-c statement_timeout={int(seconds * 1000)}"


def _one_line(text: str) -> str:
    # libpq's messages span lines and may name files of the server (its pgpass): keep the
    # first line, which says what failed.
    first = text.strip().splitlines()[0] if text.strip() else "no answer"
    return re.sub(r"password retrieved from file \S+", "password from the server's files",
                  first)


class PostgresSource:
    """A Postgres database written by PostgresSaver.

    Raises:
        CheckpointDbError: the server cannot be reached, or has no PostgresSaver tables.
    """

    kind = "postgres"

    def __init__(self, url: str, writable: bool = False, pool=None, typed: bool = False
                 ) -> None:
        import psycopg
        from psycopg.rows import dict_row

        self.writable = writable
        self.label = redact(url)
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
                self.conn = psycopg.connect(*args, autocommit=True, prepare_threshold=0,
                                            row_factory=dict_row, **where)
            except psycopg.Error as exc:
                raise CheckpointDbError(f"{self.label}: cannot connect "
                                        f"({_one_line(redact(str(exc)))})") from None
            _bounded(self.conn)
            if not writable:
                # Inspection writes nothing: the server refuses any write on this session.
                self.conn.execute("SET default_transaction_read_only = on")
        with self._connection() as conn:
            found = has_postgres_saver_tables(conn)
        if not found:
            self.close()
            raise CheckpointDbError(
                f"{redact(url)}: not a LangGraph checkpoint database (no PostgresSaver tables)"
            )

    def saver(self, serde=None):
        """A PostgresSaver on this connection (for edits and replays), only when writable.

        Args:
            serde: the serializer of the graph that will run on it; by default LangGraph's with
                only its own safe types allowed.
        """
        if not self.writable:
            raise CheckpointDbError(f"{self.label} is open read-only: reopen it writable to edit")
        from langgraph.checkpoint.postgres import PostgresSaver

        from playground.serde import graph_serde

        return PostgresSaver(self.conn, serde=serde or graph_serde())

    @classmethod
    def on_pool(cls, pool, url: str) -> PostgresSource:
        """A source that borrows a connection from a pool (a server's saver's) for each query
        and gives it back at once, so a page run that never closes it cannot keep one.

        Args:
            pool: a psycopg ``ConnectionPool`` of autocommit, dict-row connections.
            url: the database's URL, for the label (its password is never shown).
        """
        return cls(url, writable=False, pool=pool)

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
        return [row["checkpoint_ns"] for row in self._rows(
            "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = %s "
            "ORDER BY checkpoint_ns", (thread_id,))]

    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first, with SQL aggregates."""
        rows = self._rows(
            "SELECT c.thread_id, count(*) AS n, max(c.checkpoint_id) AS head, "
            "sum(octet_length(c.checkpoint::text) + octet_length(c.metadata::text)) AS bytes, "
            "count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM checkpoints k WHERE "
            "  k.thread_id = c.thread_id AND k.checkpoint_ns = '' AND "
            "  k.parent_checkpoint_id = c.checkpoint_id)) AS leaves "
            "FROM checkpoints c WHERE c.checkpoint_ns = '' GROUP BY c.thread_id"
        )
        extra = {
            row["thread_id"]: row["size"] or 0
            for row in self._rows(
                "SELECT thread_id, sum(size) AS size FROM ("
                " SELECT thread_id, octet_length(blob) AS size FROM checkpoint_blobs "
                "  WHERE checkpoint_ns = ''"
                " UNION ALL SELECT thread_id, octet_length(blob) FROM checkpoint_writes "
                "  WHERE checkpoint_ns = '') parts GROUP BY thread_id"
            )
        }
        summaries = []
        for row in rows:
            head = self.details(row["thread_id"], [row["head"]]).get(row["head"])
            summaries.append(
                ThreadSummary(
                    thread_id=row["thread_id"],
                    checkpoints=row["n"],
                    newest_at=head.created_at if head else None,
                    head_next=head.next if head else (),
                    branches=row["leaves"],
                    stored_bytes=int(row["bytes"] or 0) + int(extra.get(row["thread_id"], 0)),
                )
            )
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    def records(self, thread_id: str, checkpoint_ns: str = "") -> list[CheckpointRecord]:
        """Every checkpoint of a thread and namespace, oldest first, from SQL alone.

        Raises:
            UnknownThread: the thread has no checkpoints in this namespace.
        """
        key = {"thread_id": thread_id, "ns": checkpoint_ns}
        rows = self._rows(
            "SELECT checkpoint_id, parent_checkpoint_id, metadata->>'step' AS step, "
            "metadata->>'source' AS source, octet_length(checkpoint::text) AS blob, "
            "octet_length(metadata::text) AS meta, checkpoint->'channel_versions' AS versions "
            "FROM checkpoints WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
            "ORDER BY checkpoint_id",
            key,
        )
        if not rows:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        blob_sizes = {
            (row["channel"], row["version"]): row["size"] or 0
            for row in self._rows(
                "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
                "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s",
                key,
            )
        }
        writes = {
            row["checkpoint_id"]: row["size"]
            for row in self._rows(
                "SELECT checkpoint_id, sum(octet_length(blob)) AS size FROM checkpoint_writes "
                "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
                "GROUP BY checkpoint_id",
                key,
            )
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
                    int(writes.get(row["checkpoint_id"]) or 0),
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
            "SELECT c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, "
            " (SELECT array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob]) "
            "  FROM jsonb_each_text(CASE jsonb_typeof(c.checkpoint->'channel_versions') "
            "   WHEN 'object' THEN c.checkpoint->'channel_versions' ELSE '{}' END) v "
            "  JOIN checkpoint_blobs bl ON bl.thread_id = c.thread_id AND "
            "   bl.checkpoint_ns = c.checkpoint_ns AND bl.channel = v.key AND "
            "   bl.version = v.value WHERE bl.channel LIKE ANY(%(channels)s)) AS blobs "
            "FROM checkpoints c WHERE c.thread_id = %(t)s AND c.checkpoint_ns = %(ns)s "
            "AND c.checkpoint_id = ANY(%(ids)s)",
            {"t": thread_id, "ns": checkpoint_ns, "ids": checkpoint_ids, "channels": channels},
        )
        found = {}
        for row in rows:
            checkpoint = row["checkpoint"]
            if is_unread(checkpoint) or not isinstance(checkpoint, dict):
                reason = checkpoint["__unread__"] if is_unread(checkpoint) else "not an object"
                found[row["checkpoint_id"]] = (row["parent_checkpoint_id"], {},
                                               f"checkpoint not readable: {reason}")
                continue
            values = checkpoint.get("channel_values")
            values = dict(values) if isinstance(values, dict) else {}
            for channel, type_, blob in row["blobs"] or ():
                if type_ != b"empty":
                    values[channel.decode()] = decode_typed(type_.decode(), blob)
            found[row["checkpoint_id"]] = (
                row["parent_checkpoint_id"], {**checkpoint, "channel_values": values}, None)
        return found

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

    def values(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = "") -> dict:
        """The state values stored in one checkpoint (LangGraph's bookkeeping channels left out).

        Raises:
            UnreadableCheckpoint: the checkpoint row cannot be decoded.
        """
        loaded = self._checkpoints(thread_id, [checkpoint_id], checkpoint_ns, ["%"])
        if checkpoint_id not in loaded:
            raise CheckpointDbError(f"no checkpoint {checkpoint_id} in thread {thread_id!r}")
        _, checkpoint, problem = loaded[checkpoint_id]
        if problem:
            raise UnreadableCheckpoint(problem)
        return state_values(checkpoint)

    def _writes(self, thread_id: str, checkpoint_ns: str, where: str, params: dict) -> list:
        return self._rows(
            "SELECT checkpoint_id, task_path, channel, type, blob FROM checkpoint_writes "
            f"WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND {where} "
            "ORDER BY checkpoint_id, task_path, task_id, idx",
            {"t": thread_id, "ns": checkpoint_ns, **params},
        )

    def store_items(self, limit: int = SHOWN_STORE_ITEMS) -> list[StoreItem] | None:
        """The items of the database's LangGraph store table, if it has one (None when not)."""
        found = self._rows(
            "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
            "current_schema() AND table_name = 'store' AND table_type = 'BASE TABLE'")
        if not found or not found[0]["n"]:
            return None
        rows = self._rows(
            "SELECT prefix, key, CASE WHEN octet_length(value::text) > %s THEN NULL "
            "ELSE value::text END AS value, octet_length(value::text) AS size, "
            "created_at::text AS created_at, updated_at::text AS updated_at FROM store "
            "ORDER BY prefix, key LIMIT %s", (MAX_STORE_VALUE_BYTES, int(limit)))
        return [store_item(r["prefix"], r["key"], r["value"], r["size"], r["created_at"],
                           r["updated_at"]) for r in rows]

    def pending_writes(
        self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
    ) -> list[PendingWrite]:
        """Writes stored under one checkpoint by the tasks that ran from it."""
        rows = self._writes(thread_id, checkpoint_ns, "checkpoint_id = %(c)s",
                            {"c": checkpoint_id})
        return [
            PendingWrite(task_node(row["task_path"]) or "?", row["channel"],
                         decode_typed(row["type"], row["blob"]), len(row["blob"] or b""))
            for row in rows
        ]

    def signals(self, thread_id: str, checkpoint_ns: str = "") -> dict[str, tuple[TaskSignal, ...]]:
        """Questions, answers and errors tasks stored under each checkpoint of a thread."""
        rows = self._writes(thread_id, checkpoint_ns, "channel = ANY(%(channels)s)",
                            {"channels": list(SIGNAL_CHANNELS)})
        by_checkpoint: dict[str, list[tuple]] = defaultdict(list)
        for row in rows:
            by_checkpoint[row["checkpoint_id"]].append(
                (task_node(row["task_path"]), row["channel"],
                 decode_typed(row["type"], row["blob"])))
        return {cid: signals_of(writes) for cid, writes in by_checkpoint.items()}

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """Count, newest id and a hash of the head row: changes whenever the thread does."""
        row = self._rows(
            "SELECT count(*) AS n, max(checkpoint_id) AS newest, "
            "(SELECT md5(checkpoint::text) FROM checkpoints WHERE thread_id = %(t)s AND "
            " checkpoint_ns = %(ns)s ORDER BY checkpoint_id DESC LIMIT 1) AS head, "
            "(SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s AND "
            " checkpoint_ns = %(ns)s) AS writes "
            "FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s",
            {"t": thread_id, "ns": checkpoint_ns},
        )[0]
        return (row["n"], row["newest"], row["head"], row["writes"]) if row["n"] else None
