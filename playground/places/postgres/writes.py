"""What a Postgres database's writes are made of: a transaction that locks first, and the
primitives prune, migrate and transfer run on (planning and deleting rows and the value blobs no
kept checkpoint refers to, a thread's head rewritten, export and insert rows). The flows are the
engine's (``timetravel/prune.py``, ``migrate.py``, ``transfer.py``); this module holds only their
SQL and how it is run here. A mixin of :class:`~playground.places.postgres.PostgresStorage`,
which holds the connection.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import ormsgpack

from playground.timetravel.decode import EXT_DELTA_SNAPSHOT, is_unread
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.msgpack_frames import bin_of, ext_code, is_bin, is_scalar
from playground.timetravel.portable import (
    NIL,
    VALUES,
    NotPortable,
    PortableCheckpoint,
    PortableThread,
    PortableWrite,
    jsonb_problem,
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

# What writes are made of: a transaction that locks first.
_LOCK_CHECKPOINTS = "LOCK TABLE checkpoints IN SHARE ROW EXCLUSIVE MODE"

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

# Clone: each checkpoint's place in its thread; a subgraph's root checkpoint is the one its
# metadata names under the root namespace ("").
_SELECT_LINKS = (
    "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, CASE WHEN checkpoint_ns = '' "
    "THEN NULL ELSE metadata->'parents'->>'' END AS root FROM checkpoints "
    "WHERE thread_id = %s ORDER BY checkpoint_ns, checkpoint_id")
# The value types a blob row is carried across as msgpack: as stored, as bin, as nil.
_AS_MSGPACK = {"msgpack": bytes, "bytes": bin_of, "bytearray": bin_of,
               "null": lambda blob: NIL}
# The inline ``true`` PostgresSaver leaves where a checkpoint took a DeltaChannel snapshot.
_MARKED = ormsgpack.packb(True)


def _portable_checkpoint(row: tuple, blobs: dict[tuple[str, str, str], tuple]
                         ) -> PortableCheckpoint:
    """One PostgresSaver checkpoint as LangGraph loads it (``_load_checkpoint_tuple``): its
    inline values, then the blob of each channel version it names (a blob wins: under a
    DeltaChannel snapshot the inline ``true`` is only a marker), each as msgpack bytes."""
    ns, cid, parent, _type, checkpoint, metadata = row
    if is_unread(checkpoint) or not isinstance(checkpoint, dict):
        raise NotPortable(f"checkpoint {cid}'s JSONB is not a readable object")
    if is_unread(metadata) or not isinstance(metadata, dict):
        raise NotPortable(f"checkpoint {cid}'s metadata is not a readable JSON object")
    inline = checkpoint.get(VALUES)
    # JSONB's values are plain data already (the bounded loader made them): packing them
    # encodes, it never builds an object.
    values = {channel: ormsgpack.packb(value) for channel, value in (
        inline.items() if isinstance(inline, dict) else ())}
    versions = checkpoint.get("channel_versions")
    for channel, version in (versions.items() if isinstance(versions, dict) else ()):
        found = blobs.get((ns, channel, str(version)))
        if found is None or found[0] == "empty":
            continue
        carry = _AS_MSGPACK.get(found[0])
        if carry is None:
            raise NotPortable(
                f"checkpoint {cid}'s {channel!r} value is stored as {found[0]!r}: only "
                "msgpack, bytes and null values can be carried to another kind of database")
        value = carry(bytes(found[1] or b""))
        if ext_code(value) == EXT_DELTA_SNAPSHOT and values.get(channel) != _MARKED:
            # The version's snapshot, but this checkpoint did not take it (no inline marker):
            # SqliteSaver would hold no value here either, and LangGraph rebuilds it from the
            # snapshot's checkpoint and the writes since, as it does in this database.
            continue
        values[channel] = value
    frame = {key: value for key, value in checkpoint.items() if key != VALUES}
    return PortableCheckpoint(ns, cid, parent, frame, values, metadata)


def _postgres_checkpoint(checkpoint: PortableCheckpoint, blobs: dict[tuple, tuple]) -> tuple:
    """A checkpoint as PostgresSaver.put lays it out: None, strings, numbers and booleans
    inline in the JSONB, every other value in a blob row at its channel's version (a
    DeltaChannel snapshot marked ``true`` inline); blob rows are added to ``blobs`` once per
    (namespace, channel, version), as the saver's ``ON CONFLICT DO NOTHING`` keeps them."""
    cid = checkpoint.checkpoint_id
    versions = checkpoint.frame.get("channel_versions")
    versions = versions if isinstance(versions, dict) else {}
    inline: dict = {}
    for channel, raw in checkpoint.values.items():
        if is_scalar(raw):
            # nil, a boolean, a number or a string: reading it builds nothing.
            inline[channel] = ormsgpack.unpackb(raw)
            continue
        version = versions.get(channel)
        if version is None:
            raise NotPortable(f"checkpoint {cid} holds a {channel!r} value without a channel "
                              "version: PostgresSaver keeps such values only by version")
        if is_bin(raw):
            typed = ("bytes", ormsgpack.unpackb(raw))  # bin: the bytes themselves
        else:
            typed = ("msgpack", raw)
            if ext_code(raw) == EXT_DELTA_SNAPSHOT:
                inline[channel] = True
        key = (checkpoint.checkpoint_ns, channel, str(version))
        blobs.setdefault(key, (*key, *typed))
    stored = {**checkpoint.frame, VALUES: inline}
    problem = jsonb_problem(stored) or jsonb_problem(checkpoint.metadata)
    if problem:
        raise NotPortable(f"checkpoint {cid} holds {problem}")
    return (checkpoint.checkpoint_ns, cid, checkpoint.parent_id, None, stored,
            checkpoint.metadata)


def _postgres_write(write: PortableWrite) -> tuple:
    value = write.value
    if value is None:
        if write.type != "null":  # checkpoint_writes.blob is NOT NULL
            raise NotPortable(f"a {write.channel!r} write under checkpoint "
                              f"{write.checkpoint_id} has no value")
        value = b""  # what PostgresSaver stores for None
    return (write.checkpoint_ns, write.checkpoint_id, write.task_id, write.task_path,
            write.idx, write.channel, write.type, value)



class PostgresWrites:
    """The write primitives of :class:`~playground.places.postgres.PostgresStorage` (a
    mixin)."""

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

    def checkpoint_links(self, thread_id: str) -> list[CheckpointLink]:
        """Every checkpoint's namespace, id, parent and (a subgraph's) root checkpoint, from
        the columns and the metadata's ``parents``."""
        return [CheckpointLink(row["checkpoint_ns"], row["checkpoint_id"],
                               row["parent_checkpoint_id"], row["root"])
                for row in self._rows(_SELECT_LINKS, (thread_id,))]

    def branch_rows(self, thread_id: str, keep: frozenset[tuple[str, str]] | None
                    ) -> dict[str, list[tuple]]:
        """The thread's rows as stored, of the kept checkpoints: their JSONB, their writes,
        and the value blobs their channel versions name."""
        rows = self.export_rows(thread_id)
        kept = {table.key: kept_rows(table, rows.get(table.key, []), keep)
                for table in self.export_tables}
        if keep is not None:
            named = {(row[0], channel, str(version)) for row in kept["checkpoints"]
                     if isinstance(row[4], dict)
                     for channel, version in (row[4].get("channel_versions") or {}).items()}
            kept["blobs"] = [row for row in kept["blobs"] if tuple(row[:3]) in named]
        return kept

    def portable_of(self, rows: dict[str, list[tuple]]) -> PortableThread:
        """Each checkpoint as LangGraph loads it: its inline values and the blobs its channel
        versions name, moved as msgpack bytes; writes as stored."""
        blobs = {(row[0], row[1], row[2]): (row[3], row[4]) for row in rows.get("blobs", ())}
        return PortableThread(
            [_portable_checkpoint(row, blobs) for row in rows.get("checkpoints", ())],
            [PortableWrite(*(bytes(c) if isinstance(c, memoryview) else c for c in row))
             for row in rows.get("writes", ())])

    def rows_of_portable(self, thread: PortableThread) -> dict[str, list[tuple]]:
        """Rows as PostgresSaver.put and put_writes lay them out (see
        :func:`_postgres_checkpoint`)."""
        blobs: dict[tuple, tuple] = {}
        checkpoints = [_postgres_checkpoint(c, blobs) for c in thread.checkpoints]
        return {"checkpoints": checkpoints, "blobs": list(blobs.values()),
                "writes": [_postgres_write(w) for w in thread.writes]}
