"""The thread list of a Postgres database: its SQL, and the reads the shared walk and counts
use (:mod:`playground.timetravel.sql_thread_list`).

A page walks the checkpoint rows from the table's physical end (a TID range scan, a window of
blocks at a time), listing a thread at its newest row (with a metadata filter, its newest row
that holds it: ``metadata->>key = value``, checked in the window's own query, so only those rows
come back); the cursor is ``t`` and the row's place (block.offset). A status filter is answered
from the rows alone, in one query each, whatever the status's rarity, by the same rules as
SQLite's (``places/sqlite/thread_list.py``; docs/architecture.md, "The thread list"): failed is
an ``__error__`` write under the head; maybe paused a write under the head or a trigger write
under its parent, and no error under the head, each checked by the thread's own rule; finished
the walk with the failed left out. Text (``--match``) reads the ids that start with it and the
threads whose head holds an error or a question.

Nothing here adds an index or a table; every query runs under the read's
``statement_timeout``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from playground.timetravel.limits import ReadStopped
from playground.timetravel.records import ThreadSummary
from playground.timetravel.sql_thread_list import SqlThreadList
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import QueryRefused, paused_head

# The walk: the checkpoint rows from the table's physical end, a window of blocks at a time (a
# TID range scan reads only those blocks), a thread listed at its newest row.
_SELECT_BLOCKS = (
    "SELECT pg_relation_size('checkpoints') / current_setting('block_size')::int AS blocks")
# With a metadata filter only the rows that hold it come back ({held}: " AND ..." or "").
_SELECT_ROWS_IN_BLOCKS = (
    "SELECT ctid::text AS at, thread_id FROM checkpoints WHERE ctid >= %(low)s::tid "
    "AND ctid < %(high)s::tid AND checkpoint_ns = ''{held}")
# Whether a thread has a row after the walk's (holding the filter): listed there, earlier.
_SELECT_HELD_ABOVE = (
    "SELECT 1 FROM checkpoints WHERE thread_id = %(thread)s AND checkpoint_ns = '' "
    "AND ctid > %(at)s::tid{held} LIMIT 1")
_FIRST_WINDOW, _LAST_WINDOW = 64, 8_192  # blocks read per step of the walk, growing
_SELECT_NEWEST_ROWS = (
    "SELECT thread_id, max(ctid)::text AS at FROM checkpoints WHERE checkpoint_ns = '' "
    "AND thread_id = ANY(%(ids)s){held} GROUP BY thread_id")
# The ids that start with a text in any case (an index-only scan of the primary key).
_SELECT_IDS_LIKE = (
    "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id ILIKE %(pattern)s")
_SELECT_HOLDING = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''{held}"
# Counts and statuses from the rows alone. A head is a thread's newest root checkpoint.
_SELECT_THREADS = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
_SELECT_HEADS = (
    "SELECT thread_id, max(checkpoint_id) AS head FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id")
# Failed: an error write with no newer checkpoint in its thread (the head's), found from the
# error writes alone; the probe is one primary-key range.
_SELECT_FAILED = (
    "SELECT DISTINCT w.thread_id, w.checkpoint_id FROM checkpoint_writes w "
    "WHERE w.channel = '__error__' "
    "AND w.checkpoint_ns = '' AND NOT EXISTS (SELECT 1 FROM checkpoints c "
    "WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = '' "
    "AND c.checkpoint_id > w.checkpoint_id)")
# Maybe paused: per thread, its head and, in one pass over the writes, its newest checkpoint
# with writes, its newest with a trigger write and its newest with an error; a step is due when
# those are the head, or the same checkpoint (the step that made the head scheduled one), and no
# error is under the head (that thread failed).
_SELECT_MAYBE_PAUSED = (
    "SELECT h.thread_id, h.head FROM ("
    "SELECT thread_id, max(checkpoint_id) AS head FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id) h JOIN ("
    "SELECT thread_id, max(checkpoint_id) AS wrote, max(checkpoint_id) FILTER (WHERE "
    "channel LIKE 'branch:to:%%' OR channel LIKE 'join:%%' OR channel = '__pregel_tasks') "
    "AS triggered, max(checkpoint_id) FILTER (WHERE channel = '__error__') AS erred "
    "FROM checkpoint_writes WHERE checkpoint_ns = '' GROUP BY thread_id) w "
    "ON w.thread_id = h.thread_id WHERE (w.wrote = h.head OR w.triggered = w.wrote) "
    "AND w.erred IS DISTINCT FROM h.head")
# The threads whose head holds an error or a question: what a --match can find besides ids.
_SELECT_WITH_REASONS = (
    "SELECT h.thread_id FROM (SELECT thread_id, max(checkpoint_id) AS head FROM checkpoints "
    "WHERE checkpoint_ns = '' GROUP BY thread_id) h WHERE EXISTS (SELECT 1 FROM "
    "checkpoint_writes w WHERE w.thread_id = h.thread_id AND w.checkpoint_ns = '' "
    "AND w.checkpoint_id = h.head AND w.channel IN ('__error__', '__interrupt__'))")
# A page's rows read together: the threads' own aggregates (as one thread's, reads.py), their
# blobs' and writes' bytes, their first checkpoints' metadata.
# (A leaf is a checkpoint no other names as parent: counted by joining the threads' distinct
# parent ids, not by a NOT EXISTS per checkpoint, which scans the thread's rows for each: 8 ms
# against 22-50 ms for 50 threads.)
_SELECT_LINES = (
    "SELECT c.thread_id, count(*) AS n, max(c.checkpoint_id) AS head, "
    "sum(octet_length(c.checkpoint::text) + octet_length(c.metadata::text)) AS bytes, "
    "count(*) FILTER (WHERE p.parent_checkpoint_id IS NULL) AS leaves "
    "FROM checkpoints c LEFT JOIN (SELECT DISTINCT thread_id, parent_checkpoint_id "
    " FROM checkpoints WHERE checkpoint_ns = '' AND thread_id = ANY(%(ids)s)) p "
    " ON p.thread_id = c.thread_id AND p.parent_checkpoint_id = c.checkpoint_id "
    "WHERE c.checkpoint_ns = '' AND c.thread_id = ANY(%(ids)s) GROUP BY c.thread_id")
_SELECT_LINES_BYTES = (
    "SELECT thread_id, sum(size) AS size FROM ("
    " SELECT thread_id, octet_length(blob) AS size FROM checkpoint_blobs "
    "  WHERE checkpoint_ns = '' AND thread_id = ANY(%(ids)s)"
    " UNION ALL SELECT thread_id, octet_length(blob) FROM checkpoint_writes "
    "  WHERE checkpoint_ns = '' AND thread_id = ANY(%(ids)s)) parts GROUP BY thread_id")
_SELECT_FIRST_METADATAS = (
    "SELECT DISTINCT ON (thread_id) thread_id, metadata FROM checkpoints "
    "WHERE checkpoint_ns = '' AND thread_id = ANY(%(ids)s) ORDER BY thread_id, checkpoint_id")
# The metadata people filter by, shown: the first checkpoint's, and each checkpoint's.
_SELECT_FIRST_METADATA = (
    "SELECT metadata FROM checkpoints WHERE thread_id = %(thread)s AND checkpoint_ns = '' "
    "ORDER BY checkpoint_id LIMIT 1")
_SELECT_METADATA = (
    "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = %(thread)s "
    "AND checkpoint_ns = %(ns)s")


def row_place(text: str) -> tuple[int, int]:
    """A ctid's text, ``(block,offset)``, as numbers that sort as the rows lie."""
    block, _, offset = text.strip("()").partition(",")
    return int(block), int(offset)


def _held(wanted: list[tuple[str, object, str]]) -> tuple[str, dict]:
    """The SQL of metadata filters (`` AND metadata->>key = value`` each; "" for none), and
    their parameters."""
    params: dict = {}
    held = "".join(f" AND metadata->>%(key{n})s = %(value{n})s" for n in range(len(wanted)))
    for n, (key, typed, text) in enumerate(wanted):
        params[f"key{n}"] = key
        params[f"value{n}"] = json.dumps(typed) if isinstance(typed, bool) else text
    return held, params


def like_prefix(text: str) -> str:
    """A LIKE pattern for the texts that start with ``text`` (its wildcards escaped)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class PostgresThreadList(SqlThreadList):
    """The thread list's reads of :class:`~playground.places.postgres.reads.PostgresStorage`
    (a mixin: the storage holds the connection or pool, and ``_rows``); the walk and the counts
    built on them are :class:`~playground.timetravel.sql_thread_list.SqlThreadList`'s.

    The walk reads the table from its physical end: windows of blocks walked backwards (a TID
    range scan, so a page costs the blocks its threads fill, whatever the table's size). A
    cursor is ``t`` and the row (block.offset) the walk stopped at. PostgreSQL puts a new row
    version where it finds room: at the end, until a VACUUM frees room in older blocks. So this
    is the order of writing since the last VACUUM, which is the newest first on a database an
    app appends to; no index is added to keep it exact. A metadata filter asks SQL
    (``metadata->>``) whether one of a thread's checkpoints holds it.
    """

    def _cursor_position(self, after: str | None) -> tuple[int, int]:
        if not after:
            return ((self._rows(_SELECT_BLOCKS)[0]["blocks"] or 0) + 1, 0)
        found = re.fullmatch(r"t(\d{1,10})\.(\d{1,5})", after)
        if not found:
            raise QueryRefused(f"{after[:80]!r} is not a cursor of this thread list")
        return (int(found[1]), int(found[2]))

    def _cursor_text(self, at: tuple[int, int]) -> str:
        return f"t{at[0]}.{at[1]}"

    def _rows_from_end(self, below: tuple[int, int], wanted: list
                       ) -> Iterator[tuple[list, tuple[int, int], float]]:
        """The root namespace's rows before ``below`` that hold ``wanted``, the last first:
        windows of blocks read backwards, each larger than the one before. Each step: (row
        place, thread id) newest first, the place the walk goes on below (the window's first
        block), the share of the table's blocks passed."""
        held, params = _held(wanted)
        blocks = max(self._rows(_SELECT_BLOCKS)[0]["blocks"] or 0, 1)
        window = _FIRST_WINDOW
        high = below[0] + 1  # the cursor's own block, its rows below the cursor only
        while high > 0:
            low = max(high - window, 0)
            rows = self._rows(_SELECT_ROWS_IN_BLOCKS.format(held=held),
                              {**params, "low": f"({low},0)", "high": f"({high},0)"})
            yield (sorted(((at, row["thread_id"]) for row in rows
                           if (at := row_place(row["at"])) < below), reverse=True),
                   (low, 0), min(1.0, (blocks - low) / blocks))
            high = low
            window = min(window * 2, _LAST_WINDOW)

    def _held_above(self, thread_id: str, at: tuple[int, int], wanted: list) -> bool:
        held, params = _held(wanted)
        return bool(self._rows(_SELECT_HELD_ABOVE.format(held=held), {
            **params, "thread": thread_id, "at": f"({at[0]},{at[1]})"}))

    def _newest_positions(self, ids: Iterable[str], wanted: list
                          ) -> list[tuple[str, tuple[int, int] | None]]:
        listed = sorted(ids)
        held, params = _held(wanted)
        rows = self._rows(_SELECT_NEWEST_ROWS.format(held=held),
                          {**params, "ids": listed}) if listed else []
        return [(row["thread_id"], None if row["at"] is None else row_place(row["at"]))
                for row in rows]

    def _ids_starting(self, text: str) -> set[str]:
        return {row["thread_id"] for row in self._rows(_SELECT_IDS_LIKE,
                                                       {"pattern": like_prefix(text)})}

    def thread_lines(self, thread_ids: list[str]) -> Iterator[tuple[str, tuple | None]]:
        """A page's rows read together, in six queries whatever their number: the threads'
        aggregates, bytes and first metadata, their heads' details and signals
        (:meth:`heads_read`); None for a thread gone since it was listed."""
        ids = {"ids": list(thread_ids)}
        try:
            aggregates = {row["thread_id"]: row for row in self._rows(_SELECT_LINES, ids)}
            extra = {row["thread_id"]: row["size"]
                     for row in self._rows(_SELECT_LINES_BYTES, ids)}
            metadata = {row["thread_id"]: row["metadata"]
                        for row in self._rows(_SELECT_FIRST_METADATAS, ids)}
            heads = self.heads_read({thread: row["head"] for thread, row in aggregates.items()
                                     if row["n"]})
        except ReadStopped:
            # A batch past its statement's timeout: one thread at a time, each a smaller
            # statement, so a page keeps the threads read before the deadline stops it.
            yield from Storage.thread_lines(self, thread_ids)
            return
        for thread_id in thread_ids:
            row = aggregates.get(thread_id)
            if row is None or not row["n"] or thread_id not in heads:
                yield thread_id, None
                continue
            detail, signals = heads[thread_id]
            summary = ThreadSummary(
                thread_id=thread_id, checkpoints=row["n"], newest_at=detail.created_at,
                head_next=detail.next, branches=row["leaves"],
                stored_bytes=int(row["bytes"] or 0) + int(extra.get(thread_id) or 0),
                head_id=row["head"])
            found = metadata.get(thread_id)
            yield thread_id, (summary, signals, found if isinstance(found, dict) else {})

    def failed_threads(self) -> frozenset[str]:
        """The threads whose head has an error write under it (one query over the writes'
        channel and the checkpoints' primary key; no JSONB or blob read)."""
        return frozenset(self.failed_heads())

    def failed_heads(self) -> dict[str, str]:
        """Thread -> head of the threads whose head has an error write under it (the error's
        checkpoint is the head: no newer one exists)."""
        return {row["thread_id"]: row["checkpoint_id"] for row in self._rows(_SELECT_FAILED)}

    def maybe_paused(self) -> dict[str, str]:
        """Thread -> head of the threads whose head may have a step due and holds no error
        (none failed), in one query over the primary keys and the writes' channels."""
        return {row["thread_id"]: row["head"] for row in self._rows(_SELECT_MAYBE_PAUSED)}

    def paused_among(self, heads: dict[str, str]) -> set[str]:
        """Which of these threads (thread -> head) are paused by the thread list's rule: no
        error under the head, nodes left to run; their heads read together."""
        return {thread for thread, (detail, signals) in self.heads_read(heads).items()
                if paused_head(detail.next, signals)}

    def _every_thread(self) -> set[str]:
        return {row["thread_id"] for row in self._rows(_SELECT_THREADS)}

    def _heads(self) -> dict[str, str]:
        return {row["thread_id"]: row["head"] for row in self._rows(_SELECT_HEADS)}

    def _with_reasons(self) -> set[str]:
        return {row["thread_id"] for row in self._rows(_SELECT_WITH_REASONS)}

    def _holding(self, wanted: list[tuple[str, object, str]]) -> set[str]:
        held, params = _held(wanted)  # never empty here: a count asks only with filters
        return {row["thread_id"] for row in self._rows(_SELECT_HOLDING.format(held=held),
                                                        params)}

    def first_metadata(self, thread_id: str) -> dict:
        """The metadata of a thread's first root checkpoint, {} when there is none."""
        rows = self._rows(_SELECT_FIRST_METADATA, {"thread": thread_id})
        found = rows[0]["metadata"] if rows else None
        return found if isinstance(found, dict) else {}

    def checkpoint_metadata(self, thread_id: str, checkpoint_ns: str = "",
                            checkpoint_ids: Iterable[str] | None = None) -> dict[str, dict]:
        """Each checkpoint's metadata as stored (or of some), by checkpoint id."""
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        return {row["checkpoint_id"]: row["metadata"] if isinstance(row["metadata"], dict)
                else {} for row in self._rows(_SELECT_METADATA, {"thread": thread_id,
                                                                 "ns": checkpoint_ns})
                if wanted is None or row["checkpoint_id"] in wanted}
