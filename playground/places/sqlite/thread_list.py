"""The thread list of a SQLite file: its SQL, and the reads the shared walk and counts use.

A page walks the checkpoint rows from the newest written (a SqliteSaver table has a rowid, and
the saver's ``INSERT OR REPLACE`` gives each write the next one), listing a thread at its newest
row; the cursor is ``r`` and a rowid. A status filter is answered from the rows alone, in one
query each, whatever the status's rarity (docs/architecture.md, "The thread list"):

- failed: an ``__error__`` write under the thread's head (its newest root checkpoint);
- maybe paused: the thread's newest checkpoint with writes is its head (a step began there) or
  holds a trigger write (``branch:to:``, ``join:``, a ``Send``'s ``__pregel_tasks``: the step
  that made the head scheduled a node); each is checked by the thread's own rule before it is
  listed or counted;
- finished: the walk, with the failed left out (each row checked as it comes).

Nothing here decodes a blob or adds an index: the queries read the saver's primary keys, the
``writes`` table's channel column and, for a metadata filter, ``json_extract`` as SqliteSaver's
own ``list(filter=...)`` does. Every read stops at the read's deadline.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import orjson

from playground.places.sqlite.guard import stoppable
from playground.timetravel.sql_thread_list import SqlThreadList
from playground.timetravel.thread_list import QueryRefused

_WALK_BATCH = 512  # rows read per step of the walk
_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit
_MAX_METADATA = 1024 * 1024  # metadata is a small JSON object; past this it is not parsed

# The walk: rows before a rowid, newest first; a thread's newest rowid.
_SELECT_ROWS_BEFORE = (
    "SELECT rowid, thread_id FROM checkpoints WHERE rowid < ? AND checkpoint_ns = '' "
    "ORDER BY rowid DESC LIMIT ?")
_SELECT_NEWEST_ROWID = (
    "SELECT max(rowid) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''")
_SELECT_NEWEST_ROWIDS = (
    "SELECT thread_id, max(rowid) FROM checkpoints WHERE checkpoint_ns = '' "
    "AND thread_id IN ({marks}) GROUP BY thread_id")
# A metadata filter, as SqliteSaver's list() matches one: per thread, or over every thread.
_META_HELD = ("AND (json_extract(CAST(metadata AS TEXT), ?) = ? "
              "OR json_extract(CAST(metadata AS TEXT), ?) = ?) ")
_SELECT_HAS_META = (
    "SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' {held} LIMIT 1")
_SELECT_HOLDING = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' {held}"
# Counts and statuses from the rows alone. A head is a thread's newest root checkpoint.
_SELECT_THREADS = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
_SELECT_HEADS = (
    "SELECT thread_id, max(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id")
# Failed: an error write with no newer checkpoint in its thread (the head's), found from the
# error writes alone; the probe is one primary-key range.
_SELECT_FAILED = (
    "SELECT DISTINCT w.thread_id FROM writes w WHERE w.channel = '__error__' "
    "AND w.checkpoint_ns = '' AND NOT EXISTS (SELECT 1 FROM checkpoints c "
    "WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = '' "
    "AND c.checkpoint_id > w.checkpoint_id)")
# Maybe paused: per thread, its head and its newest checkpoint with writes (both from the
# primary keys' covering indexes); a step is due when that checkpoint is the head, or holds a
# trigger write (the step that made the head scheduled a node), looked up by its key. (One
# pass over the writes' channels instead, as Postgres does, reads every write row here:
# 1.4 s against 1.1 s on 100,000 threads.)
_SELECT_MAYBE_PAUSED = (
    "SELECT h.thread_id, h.head FROM ("
    "SELECT thread_id, max(checkpoint_id) AS head FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id) h JOIN ("
    "SELECT thread_id, max(checkpoint_id) AS wrote FROM writes WHERE checkpoint_ns = '' "
    "GROUP BY thread_id) w ON w.thread_id = h.thread_id "
    "WHERE w.wrote = h.head OR EXISTS (SELECT 1 FROM writes x WHERE x.thread_id = w.thread_id "
    "AND x.checkpoint_ns = '' AND x.checkpoint_id = w.wrote AND (x.channel LIKE 'branch:to:%' "
    "OR x.channel LIKE 'join:%' OR x.channel = '__pregel_tasks'))")
# The metadata people filter by, shown: the first checkpoint's, and each checkpoint's.
_SELECT_FIRST_METADATA = (
    "SELECT CASE WHEN length(metadata) > ? THEN NULL ELSE metadata END FROM checkpoints "
    "WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id LIMIT 1")
_SELECT_METADATA = (
    "SELECT checkpoint_id, CASE WHEN length(metadata) > ? THEN NULL ELSE metadata END "
    "FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?")


def metadata_of(raw: bytes | str | None) -> dict:
    """A checkpoint's stored metadata (JSON text) as a dict: {} for anything that is not a
    JSON object."""
    try:
        found = orjson.loads(raw) if raw else {}
    except orjson.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}


def _held(wanted: list[tuple[str, object, str]]) -> tuple[str, list]:
    """The SQL of metadata filters (:meth:`ThreadQuery.meta_values`), and their parameters."""
    held, params = "", []
    for key, typed, text in wanted:
        path = '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
        held += _META_HELD
        params += [path, int(typed) if isinstance(typed, bool) else typed, path, text]
    return held, params


class SqliteThreadList(SqlThreadList):
    """The thread list's reads of :class:`~playground.places.sqlite.reads.SqliteStorage` (a
    mixin: the storage holds the connection, the label and the retry); the walk and the
    counts built on them are :class:`~playground.timetravel.sql_thread_list.SqlThreadList`'s.

    The walk goes by rowid, from the cursor's rowid down: a cursor is ``r`` and a rowid. A
    metadata filter asks SQL (``json_extract``, as SqliteSaver's ``list`` does) whether one of
    a thread's checkpoints holds it.
    """

    def _cursor_position(self, after: str | None) -> int:
        if not after:
            return 2 ** 63 - 1
        if not re.fullmatch(r"r\d{1,19}", after):
            raise QueryRefused(f"{after[:80]!r} is not a cursor of this thread list")
        return int(after[1:])

    def _cursor_text(self, at: int) -> str:
        return f"r{at}"

    def _rows_from_end(self, below: int) -> Iterator[tuple[int, str]]:
        """(rowid, thread id) of the root namespace's rows below ``below``, newest first."""
        while True:
            batch = self._rows_before(below)
            yield from batch
            if len(batch) < _WALK_BATCH:
                return
            below = batch[-1][0]

    @stoppable
    def _rows_before(self, below: int) -> list[tuple]:
        return self.conn.execute(_SELECT_ROWS_BEFORE, (below, _WALK_BATCH)).fetchall()

    @stoppable
    def _thread_holds(self, thread_id: str, wanted: list) -> bool:
        held, params = _held(wanted)
        return self.conn.execute(_SELECT_HAS_META.format(held=held),
                                 (thread_id, *params)).fetchone() is not None

    @stoppable
    def _newest_position(self, thread_id: str) -> int | None:
        return self.conn.execute(_SELECT_NEWEST_ROWID, (thread_id,)).fetchone()[0]

    @stoppable
    def _newest_positions(self, ids: Iterable[str]) -> list[tuple[str, int]]:
        listed = sorted(ids)
        found = []
        for start in range(0, len(listed), _CHUNK):
            part = listed[start : start + _CHUNK]
            found += self.conn.execute(_SELECT_NEWEST_ROWIDS.format(
                marks=",".join("?" * len(part))), part).fetchall()
            self._tick()
        return found

    @stoppable
    def failed_threads(self) -> frozenset[str]:
        """The threads whose head has an error write under it (one query over the writes'
        channel and the checkpoints' primary key; no blob read)."""
        return frozenset(row[0] for row in self.conn.execute(_SELECT_FAILED))

    @stoppable
    def maybe_paused(self) -> dict[str, str]:
        """Thread -> head of the threads whose head may have a step due (failed ones among
        them), in one query over the primary keys and the writes' channels."""
        return dict(self.conn.execute(_SELECT_MAYBE_PAUSED).fetchall())

    @stoppable
    def _every_thread(self) -> set[str]:
        return {row[0] for row in self.conn.execute(_SELECT_THREADS)}

    @stoppable
    def _heads(self) -> dict[str, str]:
        return dict(self.conn.execute(_SELECT_HEADS).fetchall())

    @stoppable
    def _holding(self, wanted: list) -> set[str]:
        held, params = _held(wanted)
        return {row[0] for row in self.conn.execute(_SELECT_HOLDING.format(held=held), params)}

    @stoppable
    def first_metadata(self, thread_id: str) -> dict:
        """The metadata of a thread's first root checkpoint, {} when unreadable."""
        row = self.conn.execute(_SELECT_FIRST_METADATA, (_MAX_METADATA, thread_id)).fetchone()
        return metadata_of(row[0]) if row else {}

    @stoppable
    def checkpoint_metadata(self, thread_id: str, checkpoint_ns: str = "",
                            checkpoint_ids=None) -> dict[str, dict]:
        """Each checkpoint's metadata as stored (or of some), by checkpoint id."""
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        return {cid: metadata_of(raw) for cid, raw in self.conn.execute(
            _SELECT_METADATA, (_MAX_METADATA, thread_id, checkpoint_ns))
            if wanted is None or cid in wanted}
