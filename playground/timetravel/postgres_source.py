"""Checkpoints of a PostgresSaver database: ids, parents and sizes with SQL, details on demand.

PostgresSaver keeps a checkpoint row as JSONB (channel versions and small values inline) and
stores every other channel value once per version in ``checkpoint_blobs``. So here a
checkpoint's ``blob_bytes`` is its JSONB text plus the blobs of the channel versions it
introduced (the versions its parent did not have): summed over a thread, that is what the thread
stores, with no value counted twice. That is why Postgres figures are lower than SQLite's, where
every checkpoint blob repeats every value. Details (next nodes, writers) come from the saver's
``get_tuple`` for the few checkpoints that need them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.records import (
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    detail_of,
)
from playground.timetravel.saver_source import SaverSource

_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@]+:)[^@]*@")


def redact(url: str) -> str:
    """A Postgres URL with its password replaced, safe to print or show."""
    return _PASSWORD.sub(r"\1***@", url)



def has_postgres_saver_tables(conn) -> bool:
    """True when the database (current schema) has all three PostgresSaver tables.

    Args:
        conn: a psycopg connection with dict rows.
    """
    row = conn.execute(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
        "current_schema() AND table_name IN ('checkpoints', 'checkpoint_blobs', "
        "'checkpoint_writes')"
    ).fetchone()
    return row["n"] == 3

class PostgresSource(SaverSource):
    """A Postgres database written by PostgresSaver.

    Raises:
        CheckpointDbError: the server cannot be reached, or has no PostgresSaver tables.
    """

    kind = "postgres"

    def __init__(self, url: str, writable: bool = False) -> None:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        self.writable = writable
        try:
            self.conn = psycopg.connect(url, autocommit=True, prepare_threshold=0,
                                        row_factory=dict_row, connect_timeout=10)
        except psycopg.Error as exc:
            raise CheckpointDbError(f"{redact(url)}: cannot connect ({exc})".strip()) from None
        if not writable:
            # Inspection writes nothing: the server refuses any write on this session.
            self.conn.execute("SET default_transaction_read_only = on")
        if not has_postgres_saver_tables(self.conn):
            self.conn.close()
            raise CheckpointDbError(
                f"{redact(url)}: not a LangGraph checkpoint database (no PostgresSaver tables)"
            )
        super().__init__(PostgresSaver(self.conn))
        self.label = redact(url)

    def threads(self) -> list[ThreadSummary]:
        """Every thread (root namespace), newest first, with SQL aggregates."""
        rows = self.conn.execute(
            "SELECT c.thread_id, count(*) AS n, max(c.checkpoint_id) AS head, "
            "sum(octet_length(c.checkpoint::text) + octet_length(c.metadata::text)) AS bytes, "
            "count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM checkpoints k WHERE "
            "  k.thread_id = c.thread_id AND k.checkpoint_ns = '' AND "
            "  k.parent_checkpoint_id = c.checkpoint_id)) AS leaves "
            "FROM checkpoints c WHERE c.checkpoint_ns = '' GROUP BY c.thread_id"
        ).fetchall()
        extra = {
            row["thread_id"]: row["size"] or 0
            for row in self.conn.execute(
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
        rows = self.conn.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, metadata->>'step' AS step, "
            "metadata->>'source' AS source, octet_length(checkpoint::text) AS blob, "
            "octet_length(metadata::text) AS meta, checkpoint->'channel_versions' AS versions "
            "FROM checkpoints WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
            "ORDER BY checkpoint_id",
            key,
        ).fetchall()
        if not rows:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        blob_sizes = {
            (row["channel"], row["version"]): row["size"] or 0
            for row in self.conn.execute(
                "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
                "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s",
                key,
            )
        }
        writes = {
            row["checkpoint_id"]: row["size"]
            for row in self.conn.execute(
                "SELECT checkpoint_id, sum(octet_length(blob)) AS size FROM checkpoint_writes "
                "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
                "GROUP BY checkpoint_id",
                key,
            )
        }
        versions_of: dict[str, dict] = {}
        records = []
        for row in rows:
            versions = row["versions"] or {}
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
                    int(step) if step not in (None, "") else None, row["source"],
                    (row["blob"] or 0) + introduced, row["meta"] or 0,
                    int(writes.get(row["checkpoint_id"]) or 0),
                )
            )
        return records

    def details(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, CheckpointDetail]:
        """Details of some checkpoints, each read whole (with its blobs) through the saver."""
        tuples = {}
        wanted = list(dict.fromkeys(checkpoint_ids))
        for checkpoint_id in wanted:
            item = self._saver.get_tuple(self._config(thread_id, checkpoint_id, checkpoint_ns))
            if item is not None:
                tuples[checkpoint_id] = item
        details = {}
        for checkpoint_id, item in tuples.items():
            parent_id = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            parent = None
            if parent_id:
                parent_item = tuples.get(parent_id) or self._saver.get_tuple(
                    self._config(thread_id, parent_id, checkpoint_ns)
                )
                parent = parent_item.checkpoint if parent_item else None
            details[checkpoint_id] = detail_of(checkpoint_id, item.checkpoint, parent)
        return details

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """Count, newest id and a hash of the head row: changes whenever the thread does."""
        row = self.conn.execute(
            "SELECT count(*) AS n, max(checkpoint_id) AS newest, "
            "(SELECT md5(checkpoint::text) FROM checkpoints WHERE thread_id = %(t)s AND "
            " checkpoint_ns = %(ns)s ORDER BY checkpoint_id DESC LIMIT 1) AS head, "
            "(SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s AND "
            " checkpoint_ns = %(ns)s) AS writes "
            "FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s",
            {"t": thread_id, "ns": checkpoint_ns},
        ).fetchone()
        return (row["n"], row["newest"], row["head"], row["writes"]) if row["n"] else None

    @staticmethod
    def _config(thread_id: str, checkpoint_id: str, checkpoint_ns: str) -> dict:
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                 "checkpoint_id": checkpoint_id}}

    def saver(self):
        """The PostgresSaver (for edits and replays), only when opened writable."""
        if not self.writable:
            raise CheckpointDbError(f"{self.label} is open read-only: reopen it writable to edit")
        return super().saver()

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()
