"""The thread list of a kind whose rows SQL walks (SQLite, Postgres), written once.

The thread list (:func:`~playground.timetravel.thread_list.thread_page`,
:func:`~playground.timetravel.thread_list.count_threads`) asks a place for its candidates
(:meth:`SqlThreadList.thread_candidates`) and for a count (:meth:`SqlThreadList.counted`). For a
SQL kind both are answered here, from a few reads each kind writes in its own SQL (the abstract
methods below, in ``places/<kind>/thread_list.py``): its rows walked newest first a step at a
time (only the rows holding a metadata filter, which its SQL checks as it reads them), whether a
thread has a row above the walk's, a thread's newest row, the ids that start with a text, the
failed threads, the threads that may be paused, those whose head holds an error or a question,
the heads, and the threads that hold some metadata. So a request walks down once (the engine,
this class, the kind's SQL) and comes back; the kind never calls the engine's rules back.

A position is where a row sits in the kind's walk (SQLite's rowid, Postgres's block and offset):
anything that orders, newest highest. The cursor a page gives is its text
(:meth:`SqlThreadList._cursor_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from playground.timetravel.status import FAILED, PAUSED, STOPPED, status_at
from playground.timetravel.thread_list import (
    ThreadQuery,
    WalkMark,
    id_starts,
    paused_head,
    uuid6_moment,
)

Wanted = list[tuple[str, object, str]]  # ThreadQuery.meta_values(): (key, typed, text)
Step = tuple[list[tuple[Any, str]], Any, float]  # one step of a kind's walk: _rows_from_end

# What a SQL kind reads of every thread's status from its rows alone, one query each:
# ``failed`` the threads whose head (newest root checkpoint) has an error write under it;
# ``maybe_paused`` (thread -> head id) those whose head shows a step due and holds no error: its
# newest write-bearing checkpoint is the head itself (a step began there), or holds a write to a
# trigger channel (``branch:to:``, ``join:``, a ``Send``; the step that made the head, or an
# update_state, scheduled a node). Every paused thread LangGraph writes is among them but two
# rare shapes (docs/architecture.md, "The thread list"); each is checked by the thread's own
# rule.


class SqlThreadList:
    """The shared half of a SQL kind's thread list: a mixin placed before
    :class:`~playground.timetravel.storage.Storage` in the kind's storage class (whose
    ``details`` and ``signals_at`` it uses); the kind implements the reads named below.
    Nothing here may shadow a ``Storage`` method."""

    # By the order rows were written, which is not always the order of their times (a thread
    # imported or copied in later keeps its old times): a walk past ``since`` goes on.
    walks_in_time_order = False

    def thread_candidates(self, query: ThreadQuery) -> Iterator[tuple[str, str] | WalkMark]:
        """(thread id, cursor) of the threads a page of ``query`` may hold, newest first from
        the cursor on, with a :class:`WalkMark` after each step of a walk.

        A thread is listed at its newest row that holds the metadata filter (its newest row
        when there is none), which the database checks on each row as the walk reads it. A
        status or text filter reads its few threads directly, however rare (failed, maybe
        paused; for text, the ids that start with it and the threads whose head holds an error
        or a question, the only ones with words to match); ``finished`` walks with the failed
        left out.

        Raises:
            QueryRefused: ``query.after`` is not a cursor of this list.
        """
        below = self._cursor_position(query.after)
        wanted = query.meta_values()
        chosen = self._chosen(query)
        if chosen is not None:
            return self._newest_first(chosen, below, wanted)
        walk = self._walk(below, wanted)
        if query.status:  # finished: the walk without the failed
            gone = self.failed_threads()
            return (item for item in walk if isinstance(item, WalkMark) or item[0] not in gone)
        return walk

    def _chosen(self, query: ThreadQuery) -> set[str] | None:
        """The few threads a status or text filter can hold, read from the rows alone; None
        when the query walks. Each is checked by the thread list's own rule afterwards."""
        if query.status in (FAILED, STOPPED):
            # a stop is stored as an error too: each row's rule tells the two apart
            return set(self.failed_threads())
        if query.status == PAUSED:
            return set(self.maybe_paused())
        if not query.match:
            return None
        prefixed = {thread for thread in self._ids_starting(query.match)
                    if id_starts(thread, query.match)}
        if query.status:  # finished: nothing to say, so only an id can match
            return prefixed - self.failed_threads()
        return prefixed | self._with_reasons()

    def counted(self, query: ThreadQuery) -> int | None:
        """How many threads match ``query``, from a few queries: every thread, the failed,
        the maybe-paused checked by the paused rule, the heads' uuid6 ids for a time filter,
        and the threads holding the metadata. None when a time filter meets a head id that is
        not a uuid6 (the thread list then walks)."""
        if query.status in (FAILED, STOPPED):
            heads = self.failed_heads()
            stopped = self.stopped_among(heads)
            chosen = stopped if query.status == STOPPED else set(heads) - stopped
        elif query.status == PAUSED:
            chosen = self.paused_among(self.maybe_paused())
        elif query.status:
            chosen = (self._every_thread() - self.failed_threads()
                      - self.paused_among(self.maybe_paused()))
        else:
            chosen = self._every_thread()
        if query.since or query.until:
            moments = {thread: uuid6_moment(head) for thread, head in self._heads().items()}
            if any(moment is None for thread, moment in moments.items() if thread in chosen):
                return None
            chosen = {thread for thread in chosen if thread in moments
                      and (not query.since or moments[thread] >= query.since)
                      and (not query.until or moments[thread] < query.until)}
        wanted = query.meta_values()
        if wanted:
            chosen &= self._holding(wanted)
        return len(chosen)

    def stopped_among(self, heads: dict[str, str]) -> set[str]:
        """Which of these threads (thread -> head, each with an error under its head) were
        stopped, not failed: the head's errors are read and told apart by the status rule (a
        stop is stored as a ``CancelledError``, which only its decoded value shows)."""
        stopped = set()
        for thread_id, head_id in heads.items():
            signals = self.signals_at(thread_id, [head_id]).get(head_id, ())
            if status_at((), signals).kind == STOPPED:
                stopped.add(thread_id)
        return stopped

    def paused_among(self, heads: dict[str, str]) -> set[str]:
        """Which of these threads (thread -> head) are paused by the thread list's rule: no
        error under the head, nodes left to run. One head at a time here; a kind that reads
        heads together says so by overriding it."""
        paused = set()
        for thread_id, head_id in heads.items():
            detail = self.details(thread_id, [head_id]).get(head_id)
            if detail is not None and paused_head(
                    detail.next, self.signals_at(thread_id, [head_id]).get(head_id, ())):
                paused.add(thread_id)
        return paused

    def _walk(self, below: Any, wanted: Wanted) -> Iterator[tuple[str, str] | WalkMark]:
        """Each thread once, at its newest row holding ``wanted`` (any row when empty), from the
        rows walked newest first: the database says which rows hold it as it reads them, so a
        row that does not costs nothing here. A thread met below such a row was listed on an
        earlier page, by a walk that began higher. A mark follows each step."""
        decided: set[str] = set()  # listed by this walk, or found listed above its start
        for rows, floor, share in self._rows_from_end(below, wanted):
            for at, thread_id in rows:
                if thread_id in decided:
                    continue
                decided.add(thread_id)
                if self._held_above(thread_id, at, wanted):
                    continue  # listed at a newer row, on an earlier page
                yield thread_id, self._cursor_text(at)
            yield WalkMark(self._cursor_text(floor), share)

    def _newest_first(self, ids: set[str], below: Any, wanted: Wanted
                      ) -> Iterator[tuple[str, str]]:
        """These threads at their newest rows holding ``wanted``, newest first, from below the
        cursor."""
        placed = sorted(((at, thread) for thread, at in self._newest_positions(ids, wanted)
                         if at is not None and at < below), reverse=True)
        for at, thread_id in placed:
            yield thread_id, self._cursor_text(at)

    # -- what each kind reads in its own SQL ---------------------------------------------------

    def _cursor_position(self, after: str | None) -> Any:
        """The position a cursor of this list names (above the newest row when None).

        Raises:
            QueryRefused: ``after`` is not a cursor of this list.
        """
        raise NotImplementedError

    def _cursor_text(self, at: Any) -> str:
        """The cursor that goes on below position ``at``."""
        raise NotImplementedError

    def _rows_from_end(self, below: Any, wanted: Wanted) -> Iterator[Step]:
        """The root namespace's rows below ``below`` that hold ``wanted`` (every row when it is
        empty), a step at a time from the newest: each step's (position, thread id) newest
        first, the position the walk goes on below, and the share of the rows passed so far."""
        raise NotImplementedError

    def _held_above(self, thread_id: str, at: Any, wanted: Wanted) -> bool:
        """Whether a row of the thread above position ``at`` holds ``wanted`` (any row above
        it, when empty)."""
        raise NotImplementedError

    def _newest_positions(self, ids: Iterable[str], wanted: Wanted) -> list[tuple[str, Any]]:
        """(thread id, position of its newest row holding ``wanted``) of each of these threads
        that has one."""
        raise NotImplementedError

    def _ids_starting(self, text: str) -> set[str]:
        """The thread ids that start with ``text`` in any case (more may come back: each is
        checked again)."""
        raise NotImplementedError

    def _holding(self, wanted: Wanted) -> set[str]:
        """Every thread one of whose checkpoints holds every metadata filter."""
        raise NotImplementedError

    def _with_reasons(self) -> set[str]:
        """The threads whose head holds an error or a question (an ``__error__`` or
        ``__interrupt__`` write): the only ones with a reason for ``--match`` to read."""
        raise NotImplementedError

    def _every_thread(self) -> set[str]:
        """Every thread's id."""
        raise NotImplementedError

    def _heads(self) -> dict[str, str]:
        """Thread -> its head's checkpoint id, for every thread."""
        raise NotImplementedError

    def failed_threads(self) -> frozenset[str]:
        """The threads whose head has an error write under it, without reading a blob."""
        raise NotImplementedError

    def failed_heads(self) -> dict[str, str]:
        """Thread -> head, of :meth:`failed_threads`."""
        raise NotImplementedError

    def maybe_paused(self) -> dict[str, str]:
        """Thread -> head of the threads whose head may have a step due and holds no error,
        for :meth:`paused_among` (or a page's own rule) to check."""
        raise NotImplementedError
