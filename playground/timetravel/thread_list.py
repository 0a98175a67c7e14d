"""The thread list of a place, a page at a time, newest first, with the filters a debugging
person asks for: "the threads that failed", "paused at a question", "of the last hour", "whose
metadata says user 42", "whose error or question says refund", "whose id starts 9e31".

A place may hold 100,000 threads. Nothing here reads them all: a kind walks its threads newest
first (:meth:`Storage.thread_candidates`, which pushes what it can into its own query, such as a
metadata filter), and this module reads each candidate's summary and status only until the page
is full. A filter that matches few threads therefore scans more of them. A filter never ends
empty-handed: the walk stops at its share of the read's deadline (:data:`WALK_SHARE`) or at
:data:`MAX_SCANNED` threads, the threads found by then are read in the time left, and the page
says it was cut (``cut``), how far it got (``scanned``) and where to go on (``next_cursor``).

A thread's status is its head's, as :mod:`playground.timetravel.status` decides it for every
surface: ``failed`` when a node's error is stored under the head, ``paused`` when the head still
has nodes to run and none failed (a question, a breakpoint, or a run stopped between steps),
``finished`` otherwise; an Agent Server also knows a thread is ``running``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Protocol

from playground.timetravel.error_groups import ErrorGroups, Grouping, error_key
from playground.timetravel.limits import ReadStopped, clip, limits
from playground.timetravel.records import ThreadSummary
from playground.timetravel.signals import TaskSignal
from playground.timetravel.status import FAILED, PAUSED, RUNNING, STATUSES, Status, status_at

__all__ = ["RUNNING", "STATUSES"]  # the thread list's statuses are the status module's
PAGE = 50  # threads per page unless asked otherwise
MAX_PAGE = 1_000
MAX_SCANNED = 100_000  # candidates read for one page at most, whatever the deadline allows
READ_TOGETHER = 50  # candidates whose lines a kind reads in one go
# The share of the read's deadline a page's walk may spend finding its threads: the rest is
# kept for reading the lines of the threads found, so a walk that meets the deadline still shows
# them (a SQLite read's deadline runs from the file's opening, and stops every statement).
WALK_SHARE = 0.75
_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|min|h|d)$")
_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


class QueryRefused(ValueError):
    """A filter or cursor that cannot be used, said in one line."""


@dataclass(frozen=True)
class ThreadQuery:
    """What to list.

    Attributes:
        status: ``paused``, ``failed`` or ``finished``; None for any.
        since: only threads whose newest checkpoint was written at or after this moment.
        until: only threads whose newest checkpoint was written before this moment.
        meta: (key, value) pairs a checkpoint of the thread must hold in its metadata, as
            LangGraph's ``list(filter=...)`` takes them (a run's ``metadata`` is stored with
            each checkpoint it writes); a value is matched as written and as JSON (``42``
            matches the string "42" and the number 42).
        match: text the thread's error or question contains, or its id starts with (any
            case): "503" finds the threads that failed on an HTTP 503 (and an id that starts
            with 503), not every id that holds those digits.
        limit: threads per page.
        after: the cursor a previous page gave, to go on after it.
        error_group: only the failed threads of this group of errors, by its key
            (:func:`~playground.timetravel.error_groups.error_key`: the masked error), as
            :func:`group_errors` gives it.
    """

    status: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    meta: tuple[tuple[str, str], ...] = ()
    match: str | None = None
    limit: int = PAGE
    after: str | None = None
    error_group: str | None = None

    @property
    def filtered(self) -> bool:
        """Whether anything but paging is asked for."""
        return bool(self.status or self.since or self.until or self.meta or self.match
                    or self.error_group)

    def meta_values(self) -> list[tuple[str, object, str]]:
        """(key, the value read as JSON, the value as written) for each metadata filter."""
        found = []
        for key, text in self.meta:
            try:
                typed = json.loads(text)
            except ValueError:
                typed = text
            if not isinstance(typed, str | int | float | bool) or typed is None:
                typed = text
            found.append((key, typed, text))
        return found


@dataclass(frozen=True)
class ThreadRow:
    """One thread of a page: its summary, where its head stands, and the metadata people
    filter by (:func:`own_metadata` of its first checkpoint)."""

    summary: ThreadSummary
    state: Status
    metadata: dict = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``failed``, ``paused``, ``finished`` or ``running``."""
        return self.state.kind

    @property
    def reason(self) -> str:
        """The error or the question as a line (``tools failed: ...``), or ""."""
        return self.state.reason

    @property
    def said(self) -> str:
        """Where the thread stands, in the words every surface uses: ``failed in tools:
        LookupError(...)``, ``paused: approve asks "..."``, ``paused before write``,
        ``finished``."""
        return self.state.said

    def as_json(self) -> dict:
        """The row for ``playground threads --json``."""
        s = self.summary
        return {"thread_id": s.thread_id, "status": self.status, "reason": self.reason,
                "said": self.said, "checkpoints": s.checkpoints, "branches": s.branches,
                "stored_bytes": s.stored_bytes, "newest_at": s.newest_at,
                "next": list(s.head_next), "metadata": self.metadata}


@dataclass(frozen=True)
class ThreadPage:
    """A page of threads, and where the walk stopped.

    Attributes:
        rows: the threads found, newest first.
        next_cursor: give it back as ``after`` for the next page (or to keep reading a page
            that was cut); None when the walk reached the place's oldest thread.
        scanned: threads read to fill the page (more than ``rows`` when a filter left some out;
            those a database's filter passed over are not read, so not counted).
        cut: why the walk stopped before the page was full or the list ended (its deadline,
            the scan bound), and how far it got; None when the page is complete.
        walked: the share of the place's rows the walk passed (0 to 1), where the kind knows
            it (a SQL walk); None otherwise.
    """

    rows: list[ThreadRow] = field(default_factory=list)
    next_cursor: str | None = None
    scanned: int = 0
    cut: str | None = None
    walked: float | None = None

    @property
    def complete(self) -> bool:
        """Whether the page holds every thread it was asked for (it was not cut short)."""
        return self.cut is None


@dataclass(frozen=True)
class WalkMark:
    """A place a kind's walk has reached, yielded between its candidates
    (:meth:`ThreadSource.thread_candidates`) so a page cut by its deadline goes on from there
    rather than from its last thread (a rare filter may pass thousands of rows between two),
    and says how far it got.

    Attributes:
        cursor: the cursor that goes on below every row looked at so far.
        share: the share of the place's rows the walk has passed, newest first (0 to 1).
    """

    cursor: str
    share: float


# Keys LangGraph, an Agent Server or the playground write into every checkpoint's metadata: not
# what a person filters threads by (``user_id``, ``channel``, ``tenant``... are).
LANGGRAPH_METADATA = frozenset({
    "source", "step", "parents", "writes", "thread_id", "checkpoint_ns", "checkpoint_id",
    "counters_since_delta_snapshot", "run_id", "run_started_at", "graph_id", "assistant_id",
    "run_attempt", "thread_name"})
_LANGGRAPH_PREFIXES = ("langgraph_", "__")


def own_metadata(metadata: object) -> dict:
    """The keys of a checkpoint's metadata that its app put there (a run's ``metadata``, which
    LangGraph copies into each checkpoint the run writes), without LangGraph's own."""
    if not isinstance(metadata, dict):
        return {}
    return {key: value for key, value in metadata.items()
            if isinstance(key, str) and key not in LANGGRAPH_METADATA
            and not key.startswith(_LANGGRAPH_PREFIXES)}


def metadata_text(value: object, limit: int = 120, absent: str = "") -> str:
    """A metadata value in a table cell: its text as written (a string bare, anything else as
    JSON), on one line, cut to ``limit``; ``absent`` when there is none."""
    if value is None:
        return absent
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return clip(" ".join(text.split()), limit)


def paused_head(next_nodes: tuple[str, ...], head_signals: tuple[TaskSignal, ...]) -> bool:
    """Whether a head is paused, as :func:`~playground.timetravel.status.status_at` says."""
    return status_at(next_nodes, head_signals).kind == PAUSED


# 100-ns intervals between the Gregorian epoch of RFC 9562 (1582-10-15) and Unix's.
_UUID_EPOCH = 0x01B21DD213814000
_UUID6 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}")


def uuid6_moment(checkpoint_id: str) -> datetime | None:
    """When a checkpoint id was made, for a LangGraph checkpoint id (a uuid6, whose first 60
    bits are its time: RFC 9562 5.6); None for any other id. LangGraph makes the id and the
    checkpoint's ``ts`` in the same call, microseconds apart."""
    if not isinstance(checkpoint_id, str) or not _UUID6.fullmatch(checkpoint_id):
        return None
    digits = checkpoint_id.replace("-", "")
    ticks = int(digits[:12] + digits[13:16], 16)
    return datetime.fromtimestamp((ticks - _UUID_EPOCH) / 10_000_000, UTC)


@dataclass(frozen=True)
class ThreadCount:
    """How many threads match a query, and how it was known.

    Attributes:
        count: the threads that match (of those read, when ``cut``).
        scanned: threads read one by one (0 when the database answered in SQL).
        cut: why the count stopped before the end, or None when it is exact.
        by_query: True when the database counted (no thread walked).
    """

    count: int
    scanned: int = 0
    cut: str | None = None
    by_query: bool = False


def parse_moment(text: str, now: datetime | None = None) -> datetime:
    """A moment a person types: an ISO date or time (UTC unless it names a zone), or a span
    back from now (``90s``, ``15m``, ``2h``, ``3d``)."""
    text = text.strip()
    now = now or datetime.now(UTC)
    relative = _RELATIVE.match(text.lower())
    if relative:
        return now - timedelta(seconds=float(relative[1]) * _UNITS[relative[2]])
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise QueryRefused(f"{text[:80]!r} is not a time: give an ISO time (2026-12-03T10:00) "
                           "or a span back from now (90s, 15m, 2h, 3d)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_meta(pairs: list[str]) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE`` pairs (``--meta user=42``) as (key, value)."""
    found = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise QueryRefused(f"{pair[:80]!r} is not KEY=VALUE (for example --meta user=42)")
        found.append((key.strip(), value))
    return tuple(found)


def typed_query(status: str | None = None, since: str | None = None, until: str | None = None,
                meta: tuple[tuple[str, str], ...] = (), match: str | None = None,
                limit: int = PAGE, after: str | None = None) -> ThreadQuery:
    """The query filters typed as text say (``playground threads``' flags, the MCP server's
    arguments): ``since`` and ``until`` read by :func:`parse_moment`, blanks left out.

    Raises:
        QueryRefused: a time that is not one.
    """
    return ThreadQuery(status=status or None,
                       since=parse_moment(since) if since else None,
                       until=parse_moment(until) if until else None,
                       meta=meta, match=match or None, limit=limit, after=after or None)


def thread_named(ids: list[str], name: str) -> str | None:
    """The one stored thread id among ``ids`` a page would show as ``name``: ``room/NAME`` (the
    playground keeps each room's threads under its code), or ``NAME`` for ``/NAME`` (a page's
    way to name a thread the app wrote itself). None when no thread has it.

    Raises:
        ValueError: several rooms hold a thread of that name (the message lists them).
    """
    if name.startswith("/") and name[1:] in ids:
        return name[1:]
    found = [thread for thread in ids if thread.endswith("/" + name)]
    if len(found) > 1:
        listed = ", ".join(clip(thread, 80) for thread in found[:5])
        raise ValueError(f"no thread {clip(name, 80)!r}; {len(found)} rooms hold a thread of "
                         f"that name ({listed}{', ...' if len(found) > 5 else ''}): give one "
                         "of those ids")
    return found[0] if found else None


def counted_cursor(after: str | None, mark: str) -> int:
    """The position a counted cursor (``<mark><N>``: the N-th thread of a kind's list) names,
    0 when there is none.

    Raises:
        QueryRefused: ``after`` is not such a cursor.
    """
    if not after:
        return 0
    if not re.fullmatch(rf"{re.escape(mark)}\d{{1,9}}", after):
        raise QueryRefused(f"{after[:80]!r} is not a cursor of this thread list")
    return int(after[len(mark):])


def metadata_holds(metadata: object, wanted: list[tuple[str, object, str]]) -> bool:
    """Whether ``metadata`` (a checkpoint's, decoded) holds every (key, typed, text) of
    :meth:`ThreadQuery.meta_values`: the key's value equals the JSON reading or the text."""
    if not isinstance(metadata, dict):
        return False
    for key, typed, text in wanted:
        value = metadata.get(key)
        if value is None or value not in (typed, text):
            return False
        if isinstance(value, bool) != isinstance(typed, bool) and value != text:
            return False  # True == 1 in Python; in JSON they differ
    return True


def _moment_of(summary: ThreadSummary) -> datetime | None:
    if not summary.newest_at:
        return None
    try:
        moment = datetime.fromisoformat(summary.newest_at)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def status_of(summary: ThreadSummary, head_signals: tuple[TaskSignal, ...]) -> Status:
    """Where a thread stands: its head's status, from the head's next nodes and the
    questions and errors under it."""
    return status_at(summary.head_next, head_signals)


def id_starts(thread_id: str, text: str) -> bool:
    """Whether a thread id starts with ``text``, in any case (how ``--match`` reads ids)."""
    return thread_id.lower().startswith(text.lower())


def text_matches(row: ThreadRow, text: str) -> bool:
    """Whether ``--match TEXT`` keeps a row: its error or question holds the text, or its id
    starts with it (any case). Digits inside an id are not a match: "503" names a status
    code, not every uuid that holds those three digits."""
    return id_starts(row.summary.thread_id, text) or text.lower() in row.reason.lower()


def _wanted(query: ThreadQuery, row: ThreadRow, moment: datetime | None) -> bool:
    if query.status and row.status != query.status:
        return False
    if query.since and (moment is None or moment < query.since):
        return False
    if query.until and (moment is None or moment >= query.until):
        return False
    if query.error_group and (row.status != FAILED
                              or error_key(row.state.detail) != query.error_group):
        return False
    return not query.match or text_matches(row, query.match)


class ThreadSource(Protocol):
    """What the thread list asks a place: every kind's
    :class:`~playground.timetravel.storage.Storage` answers it (the SQL kinds through
    :class:`~playground.timetravel.sql_thread_list.SqlThreadList`)."""

    label: str
    statuses: tuple[str, ...]
    walks_in_time_order: bool

    def thread_candidates(self, query: ThreadQuery
                          ) -> Iterator[tuple[str, str] | WalkMark]:
        """(thread id, cursor after it) of the threads a page may hold, newest first, with
        a :class:`WalkMark` now and then where a walk passes many rows between two."""

    def thread_lines(self, thread_ids: list[str]
                     ) -> Iterator[tuple[str, tuple[ThreadSummary, tuple[TaskSignal, ...],
                                                    dict] | None]]:
        """Each thread's summary, head signals and first metadata (None: gone)."""

    def thread_status(self, summary: ThreadSummary, head_signals: tuple[TaskSignal, ...]
                      ) -> Status:
        """Where a thread stands."""

    def counted(self, query: ThreadQuery) -> int | None:
        """The count, where the place's database can say it (None: walk the pages)."""


def walk_seconds() -> float:
    """How long a page's walk may look for its threads: its share (:data:`WALK_SHARE`) of the
    read's deadline, the rest kept for reading the threads it found."""
    return limits().read_seconds * WALK_SHARE


Item = tuple[str, str] | WalkMark  # what a kind's walk yields


@dataclass
class _Filling:
    """A page being filled: its rows, and how far its walk got (``cursor`` goes on below
    every row handled so far: each candidate above it read, or left out by the database)."""

    query: ThreadQuery
    rows: list[ThreadRow] = field(default_factory=list)
    cursor: str | None = None
    scanned: int = 0
    walked: float | None = None

    @property
    def moved(self) -> bool:
        """Whether the walk got anywhere (a thread read, or rows passed over)."""
        return self.scanned > 0 or self.cursor != self.query.after

    def page(self, next_cursor: str | None, cut: str | None = None) -> ThreadPage:
        """The page as it stands."""
        return ThreadPage(self.rows, next_cursor, self.scanned, cut, self.walked)

    def how_far(self) -> str:
        """How far the walk got, in words."""
        found = f"found {len(self.rows):,} thread{'s' if len(self.rows) != 1 else ''}"
        if self.walked is None:
            return f"read {self.scanned:,} threads, {found}"
        return f"read the newest {self.walked:.0%} of the checkpoints, {found}"


def thread_page(storage: ThreadSource, query: ThreadQuery, seconds: float | None = None
                ) -> ThreadPage:
    """One page of ``storage``'s threads for ``query``, newest first.

    The kind walks its threads from ``query.after`` (:meth:`Storage.thread_candidates`,
    metadata filters pushed into its query where it can); each candidate's summary and head
    signals are read here, a batch at a time, and the walk stops when the page is full, at the
    oldest thread, at :data:`MAX_SCANNED` candidates, or when ``seconds`` have gone by (its
    share of the read's deadline by default, :func:`walk_seconds`). A walk stopped early still
    gives the threads it found, read in the time left, and a cursor to keep reading from.

    Raises:
        QueryRefused: a cursor that is not one of this list's.
        CheckpointDbError: the place could not be read at all (the deadline met before any
            row was, a refusal, an answer that is not its API's).
    """
    _check_status(storage, query)
    budget = walk_seconds() if seconds is None else max(seconds, 0.0)
    stop_at = time.monotonic() + budget
    filling = _Filling(query, cursor=query.after)
    walk = storage.thread_candidates(query)
    while True:
        items, ended, stopped = _gather(walk, query.limit - len(filling.rows) + 1, stop_at,
                                        filling)
        try:
            done = _read_batch(storage, items, filling)
        except ReadStopped as exc:
            # The threads read before the deadline are the page; the thread it cut into
            # opens the next one. Nothing read at all: that is the answer, not a page.
            if not filling.moved:
                raise
            return filling.page(filling.cursor, f"{exc}; {filling.how_far()}")
        if done is not None:
            return done
        if ended:
            return filling.page(None)
        if len(filling.rows) == query.limit:  # full as the walk stopped: more may follow
            return filling.page(filling.cursor)
        if stopped is not None:
            said = stopped or f"stopped at the read's deadline ({budget:g} s)"
            return filling.page(filling.cursor, f"{said}; {filling.how_far()}")
        if filling.scanned >= MAX_SCANNED:
            return filling.page(filling.cursor, f"stopped after reading {filling.scanned:,} "
                                "threads; go on with the cursor")


def _gather(walk: Iterator[Item], lacking: int, stop_at: float, filling: _Filling
            ) -> tuple[list[Item], bool, str | None]:
    """The walk's next items, up to a batch of candidates (:data:`READ_TOGETHER`, or one more
    than the page lacks, to tell whether another page follows), and whether the walk ended or
    stopped (``""``: its time is up; else the read's own deadline, said). At least one item is
    taken each time, so a page always moves on."""
    items: list[Item] = []
    wanted = min(READ_TOGETHER, lacking)
    candidates = 0
    while candidates < wanted:
        try:
            item = next(walk)
        except StopIteration:
            return items, True, None
        except ReadStopped as exc:
            if not items and not filling.moved:
                raise  # not one row read: the place cannot be read within its deadline
            return items, False, str(exc)
        items.append(item)
        candidates += not isinstance(item, WalkMark)
        if time.monotonic() > stop_at:
            return items, False, ""
    return items, False, None


def _read_batch(storage: ThreadSource, items: list[Item], filling: _Filling
                ) -> ThreadPage | None:
    """Read the lines of a batch's candidates together and keep those the query wants; the
    finished page when it is full or the rest can only be older than ``since``, else None.

    Raises:
        ReadStopped: the read's deadline, midway (``filling`` holds what was read).
    """
    query = filling.query
    ids = [item[0] for item in items if not isinstance(item, WalkMark)]
    lines = iter(storage.thread_lines(ids)) if ids else iter(())
    for item in items:
        if isinstance(item, WalkMark):
            if len(filling.rows) < query.limit:  # nothing unread above it: go on from there
                filling.cursor, filling.walked = item.cursor, item.share
            continue
        if len(filling.rows) == query.limit:  # one more exists: the page ends before it
            return filling.page(filling.cursor)
        _, line = next(lines)  # read only now: a full page reads no thread beyond it
        filling.scanned += 1
        filling.cursor = item[1]
        if line is None:  # deleted while the walk went on
            continue
        summary, head_signals, metadata = line
        moment = _moment_of(summary)
        if storage.walks_in_time_order and query.since and moment is not None \
                and moment < query.since:
            return filling.page(None)  # older threads only from here on
        row = ThreadRow(summary, storage.thread_status(summary, head_signals),
                        own_metadata(metadata))
        if _wanted(query, row, moment):
            filling.rows.append(row)
    return None


def count_threads(storage: ThreadSource, query: ThreadQuery,
                  progress: Callable[[int, int], None] | None = None,
                  seconds: float | None = None) -> ThreadCount:
    """How many of ``storage``'s threads match ``query``, exactly where the database can say.

    A SQL kind answers from its rows (:meth:`Storage.counted`: status sets, heads' times from
    their uuid6 ids, metadata in SQL); text in an error or question needs the values decoded, and
    other kinds list their threads, so those count by walking pages, all of them within one
    walk's time (``seconds``, :func:`walk_seconds` by default; ``progress(counted, read)``
    after each page), and say where they stopped.

    Raises:
        QueryRefused: a status the place cannot tell, or a cursor that is not this list's.
    """
    _check_status(storage, query)
    found = (None if query.match or query.error_group or query.after
             else storage.counted(query))
    if found is not None:
        return ThreadCount(found, by_query=True)
    stop_at = time.monotonic() + (walk_seconds() if seconds is None else seconds)
    total = scanned = 0
    after = query.after
    while True:
        page = thread_page(storage, replace(query, limit=MAX_PAGE, after=after),
                           seconds=stop_at - time.monotonic())
        total += len(page.rows)
        scanned += page.scanned
        if progress:
            progress(total, scanned)
        if page.cut or not page.next_cursor:
            return ThreadCount(total, scanned, page.cut)
        after = page.next_cursor


def group_errors(storage: ThreadSource, query: ThreadQuery, seconds: float | None = None
                 ) -> ErrorGroups:
    """Every failed thread of ``storage`` that matches ``query`` (its other filters; its
    status is failed whatever it says, its paging and group left out), grouped by error
    (:mod:`playground.timetravel.error_groups`): each distinct error once, with its count, its
    newest time and an example thread.

    The failed threads are read as ``threads --status failed`` reads them (a SQL kind picks
    them from its error writes, an Agent Server's search from its status), a page of
    :data:`MAX_PAGE` after another, all of them within one walk's time (``seconds``,
    :func:`walk_seconds` by default). A walk the deadline stops gives the groups of the threads
    read so far, and says it was cut and how many it read.

    Raises:
        QueryRefused: the place cannot tell which threads failed.
        CheckpointDbError: the place could not be read at all.
    """
    query = replace(query, status=FAILED, limit=MAX_PAGE, after=None, error_group=None)
    _check_status(storage, query)
    stop_at = time.monotonic() + (walk_seconds() if seconds is None else seconds)
    grouping = Grouping()
    after = None
    while True:
        try:
            page = thread_page(storage, replace(query, after=after),
                               seconds=stop_at - time.monotonic())
        except ReadStopped as exc:
            if after is None:
                raise  # not one failed thread read: the place cannot be read in time
            return grouping.result(f"{exc}; read {grouping.failed:,} failed threads")
        for row in page.rows:
            grouping.add(row.summary.thread_id, row.state.node, row.state.detail,
                         row.summary.newest_at)
        if page.cut:
            return grouping.result(f"{page.cut}; grouped {grouping.failed:,} failed threads")
        if not page.next_cursor:
            return grouping.result()
        after = page.next_cursor


def _check_status(storage: ThreadSource, query: ThreadQuery) -> None:
    if query.status and query.status not in storage.statuses:
        if query.status == RUNNING:
            raise QueryRefused(f"{storage.label} cannot say which threads are running (only "
                               "an Agent Server can): ask for paused, stopped, failed or finished")
        raise QueryRefused(f"no status {query.status!r}: give one of "
                           f"{', '.join(storage.statuses)}")
