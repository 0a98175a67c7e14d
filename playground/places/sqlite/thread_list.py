"""The thread list of a SQLite file: its SQL, and the reads the shared walk and counts use.

A page walks the checkpoint rows from the newest written (a SqliteSaver table has a rowid, and
the saver's ``INSERT OR REPLACE`` gives each write the next one), a window of rowids at a time
read in the file's order, listing a thread at its newest row (with a metadata filter, at its
newest row that holds it, which SQL checks as it reads); the cursor is ``r`` and a rowid. A
status filter is answered from the rows alone, in one query each, whatever the status's rarity
(docs/architecture.md, "The thread list"):

- failed: an ``__error__`` write under the thread's head (its newest root checkpoint);
- maybe paused: the head has writes (a step began there) or the thread's newest checkpoint with
  writes holds a trigger write (``branch:to:``, ``join:``, a ``Send``'s ``__pregel_tasks``: the
  step that made the head scheduled a node), and no error is under the head; each is checked by
  the thread's own rule before it is listed or counted;
- finished: the walk, with the failed left out (each row checked as it comes).

Text (``--match``) reads the ids that start with it (a range of the primary key per spelling of
its first letters) and the threads whose head holds an error or a question (only they have
words to hold it).

Nothing here decodes a blob or adds an index: the queries read the saver's primary keys, the
``writes`` table's channel column and, for a metadata filter, ``json_extract`` as SqliteSaver's
own ``list(filter=...)`` does. Every read stops at the read's deadline.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator

import orjson

from playground.places.sqlite.guard import stoppable
from playground.timetravel.sql_thread_list import SqlThreadList
from playground.timetravel.thread_list import QueryRefused

_WINDOW_FIRST, _WINDOW_LAST = 512, 65_536  # rowids per step of the walk, doubling
_CHUNK = 500  # ids per IN (...) list, well under SQLite's variable limit
_MAX_METADATA = 1024 * 1024  # metadata is a small JSON object; past this it is not parsed
_CASED_LETTERS = 4  # of a --match text, spelled in every case to find ids by their prefix

# The walk: a window of rowids at a time from the end, each read in the file's order and turned
# newest first here. Read backwards, a file the OS had not cached could not be read ahead: on
# 100,000 threads (3.7 GB) a walk of every row took 91 s instead of 6.7 s. With a metadata
# filter the database says which rows hold it, and only those come back (handing every row's
# thread id to Python cost as much as the bare json_extract query's whole scan).
_SELECT_TOP = "SELECT max(rowid) FROM checkpoints"
_SELECT_ROWS_IN = (
    "SELECT rowid, thread_id FROM checkpoints WHERE rowid >= ? AND rowid < ? "
    "AND checkpoint_ns = '' {held}ORDER BY rowid")
# Whether a thread has a row above the walk's (holding the filter): listed there, earlier.
_SELECT_HELD_ABOVE = (
    "SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND rowid > ? "
    "{held}LIMIT 1")
_SELECT_NEWEST_ROWIDS = (
    "SELECT thread_id, max(rowid) FROM checkpoints WHERE checkpoint_ns = '' "
    "AND thread_id IN ({marks}) {held}GROUP BY thread_id")
# The ids that start with one spelling of a prefix: a range of the primary key.
_SELECT_IDS_FROM = (
    "SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id >= ? AND thread_id < ?")
# A metadata filter, as SqliteSaver's list() matches one (json_extract), the value as written or
# as JSON. SQLite stops a statement at the first metadata that is not JSON: such a file is read
# again with json_valid first (on every row it cost 40% more, so only then).
_META_HELD = "AND json_extract(CAST(metadata AS TEXT), ?) IN (?, ?) "
_META_HELD_CHECKED = (
    "AND CASE WHEN json_valid(CAST(metadata AS TEXT)) THEN "
    "json_extract(CAST(metadata AS TEXT), ?) IN (?, ?) END ")
_SELECT_HOLDING = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = '' {held}"
# Counts and statuses from the rows alone. A head is a thread's newest root checkpoint.
_SELECT_THREADS = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
_SELECT_HEADS = (
    "SELECT thread_id, max(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id")
# Failed: an error write with no newer checkpoint in its thread (the head's), found from the
# error writes alone; the probe is one primary-key range.
_SELECT_FAILED = (
    "SELECT DISTINCT w.thread_id, w.checkpoint_id FROM writes w WHERE w.channel = '__error__' "
    "AND w.checkpoint_ns = '' AND NOT EXISTS (SELECT 1 FROM checkpoints c "
    "WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = '' "
    "AND c.checkpoint_id > w.checkpoint_id)")
# Maybe paused: per thread its head (from the checkpoints' primary key) and its newest
# checkpoint with writes (one probe of the writes' key); a step is due when that checkpoint is
# the head (a step began there), or holds a trigger write (the step that made the head
# scheduled a node), looked up by its key; a head with an error write is failed, not paused.
# Probing the writes' key per head instead of grouping every write row, and leaving the failed
# out here instead of in a query of their own: 1.25 s of CPU against 2.5 s (1.6 s, and the
# failed query's 0.9 s) on 100,000 threads.
_SELECT_MAYBE_PAUSED = (
    "SELECT t.thread_id, t.head FROM (SELECT h.thread_id, h.head, ("
    "SELECT max(m.checkpoint_id) FROM writes m WHERE m.thread_id = h.thread_id "
    "AND m.checkpoint_ns = '') AS wrote FROM ("
    "SELECT thread_id, max(checkpoint_id) AS head FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id) h) t "
    "WHERE (t.wrote = t.head OR EXISTS (SELECT 1 FROM writes x WHERE x.thread_id = t.thread_id "
    "AND x.checkpoint_ns = '' AND x.checkpoint_id = t.wrote AND (x.channel LIKE 'branch:to:%' "
    "OR x.channel LIKE 'join:%' OR x.channel = '__pregel_tasks'))) "
    "AND NOT EXISTS (SELECT 1 FROM writes e WHERE e.thread_id = t.thread_id "
    "AND e.checkpoint_ns = '' AND e.checkpoint_id = t.head AND e.channel = '__error__')")
# The threads whose head holds an error or a question: what a --match can find besides ids.
# Each head probed by the writes' key (a scan of the error writes, as the failed query does,
# reads every write row for its channel).
_SELECT_WITH_REASONS = (
    "SELECT h.thread_id FROM (SELECT thread_id, max(checkpoint_id) AS head FROM checkpoints "
    "WHERE checkpoint_ns = '' GROUP BY thread_id) h WHERE EXISTS (SELECT 1 FROM writes w "
    "WHERE w.thread_id = h.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = h.head "
    "AND w.channel IN ('__error__', '__interrupt__'))")
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


def _held(wanted: list[tuple[str, object, str]], checked: bool = False) -> tuple[str, list]:
    """The SQL of metadata filters (:meth:`ThreadQuery.meta_values`), and their parameters;
    ``checked`` reads a row's metadata only where it is JSON."""
    held, params = "", []
    for key, typed, text in wanted:
        path = '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
        held += _META_HELD_CHECKED if checked else _META_HELD
        params += [path, int(typed) if isinstance(typed, bool) else typed, text]
    return held, params


def spellings(text: str, letters: int = _CASED_LETTERS) -> list[str]:
    """The spellings of ``text``'s first ``letters`` characters in every case (``aB`` gives
    ab, aB, Ab, AB): the prefixes an id that starts with ``text`` in any case starts with."""
    found = [""]
    for char in text[:letters]:
        forms = sorted({form for form in (char, char.lower(), char.upper()) if len(form) == 1})
        found = [start + form for start in found for form in forms]
    return found


def _past(prefix: str) -> str | None:
    """The first text after every text that starts with ``prefix`` (None: no such text)."""
    last = ord(prefix[-1])
    return None if last >= 0x10FFFF else prefix[:-1] + chr(last + 1)


class SqliteThreadList(SqlThreadList):
    """The thread list's reads of :class:`~playground.places.sqlite.reads.SqliteStorage` (a
    mixin: the storage holds the connection, the label and the retry); the walk and the
    counts built on them are :class:`~playground.timetravel.sql_thread_list.SqlThreadList`'s.

    The walk goes by rowid, from the cursor's rowid down, a window of rowids at a time: a
    cursor is ``r`` and a rowid. A metadata filter is checked by SQL (``json_extract``, as
    SqliteSaver's ``list`` does) on each row the walk reads.
    """

    def _cursor_position(self, after: str | None) -> int:
        if not after:
            return 2 ** 63 - 1
        if not re.fullmatch(r"r\d{1,19}", after):
            raise QueryRefused(f"{after[:80]!r} is not a cursor of this thread list")
        return int(after[1:])

    def _cursor_text(self, at: int) -> str:
        return f"r{at}"

    def _rows_from_end(self, below: int, wanted: list) -> Iterator[tuple[list, int, float]]:
        """The root namespace's rows below rowid ``below`` holding ``wanted``, a window of
        rowids at a time from the end, each larger than the one before: (rowid, thread id)
        newest first, the rowid the walk goes on below, the share of rowids passed."""
        top = self._top()
        high, window = min(below, top + 1), _WINDOW_FIRST
        while high > 1:
            low = max(high - window, 1)
            rows = self._rows_in(low, high, wanted)
            rows.reverse()
            yield rows, low, min(1.0, (top + 1 - low) / max(top, 1))
            high, window = low, min(window * 2, _WINDOW_LAST)

    @stoppable
    def _top(self) -> int:
        return self.conn.execute(_SELECT_TOP).fetchone()[0] or 0

    @stoppable
    def _rows_in(self, low: int, high: int, wanted: list) -> list[tuple[int, str]]:
        return self._held_rows(_SELECT_ROWS_IN, (low, high), wanted)

    def _held_rows(self, sql: str, params: tuple, wanted: list, **parts: str) -> list[tuple]:
        """The rows of ``sql`` (its ``{held}`` the metadata filters, their parameters after
        ``params``); read again checking each row's metadata is JSON when one is not (SQLite
        stops a statement at the first malformed value)."""
        def rows(checked: bool) -> list[tuple]:
            held, more = _held(wanted, checked)
            return self.conn.execute(sql.format(held=held, **parts), (*params, *more)).fetchall()

        try:
            return rows(checked=False)
        except sqlite3.OperationalError as exc:
            if not wanted or "malformed JSON" not in str(exc):
                raise
        return rows(checked=True)

    @stoppable
    def _held_above(self, thread_id: str, at: int, wanted: list) -> bool:
        return bool(self._held_rows(_SELECT_HELD_ABOVE, (thread_id, at), wanted))

    @stoppable
    def _newest_positions(self, ids: Iterable[str], wanted: list) -> list[tuple[str, int]]:
        listed = sorted(ids)
        found = []
        for start in range(0, len(listed), _CHUNK):
            part = listed[start : start + _CHUNK]
            found += self._held_rows(_SELECT_NEWEST_ROWIDS, tuple(part), wanted,
                                     marks=",".join("?" * len(part)))
            self._tick()
        return found

    @stoppable
    def _ids_starting(self, text: str) -> set[str]:
        """The ids that start with any spelling of ``text``'s first letters: a range of the
        primary key each (the caller checks the rest of the text)."""
        found: set[str] = set()
        for prefix in spellings(text):
            end = _past(prefix)
            if end is None:
                continue
            found.update(row[0] for row in self.conn.execute(_SELECT_IDS_FROM, (prefix, end)))
            self._tick()
        return found

    @stoppable
    def failed_threads(self) -> frozenset[str]:
        """The threads whose head has an error write under it (one query over the writes'
        channel and the checkpoints' primary key; no blob read)."""
        return frozenset(self.failed_heads())

    @stoppable
    def failed_heads(self) -> dict[str, str]:
        """Thread -> head of the threads whose head has an error write under it (the error's
        checkpoint is the head: no newer one exists)."""
        return {row[0]: row[1] for row in self.conn.execute(_SELECT_FAILED)}

    @stoppable
    def maybe_paused(self) -> dict[str, str]:
        """Thread -> head of the threads whose head may have a step due and holds no error
        (none failed), in one query over the primary keys and the writes' channels."""
        return dict(self.conn.execute(_SELECT_MAYBE_PAUSED).fetchall())

    @stoppable
    def _every_thread(self) -> set[str]:
        return {row[0] for row in self.conn.execute(_SELECT_THREADS)}

    @stoppable
    def _heads(self) -> dict[str, str]:
        return dict(self.conn.execute(_SELECT_HEADS).fetchall())

    @stoppable
    def _with_reasons(self) -> set[str]:
        return {row[0] for row in self.conn.execute(_SELECT_WITH_REASONS)}

    @stoppable
    def _holding(self, wanted: list) -> set[str]:
        return {row[0] for row in self._held_rows(_SELECT_HOLDING, (), wanted)}

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
