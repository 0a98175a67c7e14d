"""The thread list of a kind whose rows SQL walks (SQLite, Postgres), written once.

The thread list (:func:`~playground.timetravel.thread_list.thread_page`,
:func:`~playground.timetravel.thread_list.count_threads`) asks a place for its candidates
(:meth:`SqlThreadList.thread_candidates`) and for a count (:meth:`SqlThreadList.counted`). For a
SQL kind both are answered here, from a few reads each kind writes in its own SQL (the abstract
methods below, in ``places/<kind>/thread_list.py``): its rows walked newest first, a thread's
newest row, the failed threads, the threads that may be paused, the heads, and the threads that
hold some metadata. So a request walks down once (the engine, this class, the kind's SQL) and
comes back; the kind never calls the engine's rules back.

A position is where a row sits in the kind's walk (SQLite's rowid, Postgres's block and offset):
anything that orders, newest highest. The cursor a page gives is its text
(:meth:`SqlThreadList._cursor_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from playground.timetravel.thread_list import ThreadQuery, paused_head, uuid6_moment

Wanted = list[tuple[str, object, str]]  # ThreadQuery.meta_values(): (key, typed, text)

# What a SQL kind reads of every thread's status from its rows alone, one query each:
# ``failed`` the threads whose head (newest root checkpoint) has an error write under it;
# ``maybe_paused`` (thread -> head id) those whose head shows a step due: its newest write-bearing
# checkpoint is the head itself (a step began there), or holds a write to a trigger channel
# (``branch:to:``, ``join:``, a ``Send``; the step that made the head, or an update_state,
# scheduled a node). Every paused thread LangGraph writes is among them but two rare shapes
# (docs/architecture.md, "The thread list"); each is checked by the thread's own rule.


class SqlThreadList:
    """The shared half of a SQL kind's thread list: a mixin placed before
    :class:`~playground.timetravel.storage.Storage` in the kind's storage class (whose
    ``details`` and ``signals_at`` it uses); the kind implements the reads named below.
    Nothing here may shadow a ``Storage`` method."""

    # By the order rows were written, which is not always the order of their times (a thread
    # imported or copied in later keeps its old times): a walk past ``since`` goes on.
    walks_in_time_order = False

    def thread_candidates(self, query: ThreadQuery) -> Iterator[tuple[str, str]]:
        """(thread id, cursor) of the threads a page of ``query`` may hold, newest first
        from the cursor on. A thread is listed at its newest row; a metadata filter is asked
        of the database for each candidate; a status filter reads its few threads directly
        (failed, maybe paused), however rare, and ``finished`` walks with the failed left out.

        Raises:
            QueryRefused: ``query.after`` is not a cursor of this list.
        """
        below = self._cursor_position(query.after)
        wanted = query.meta_values()
        if query.status == "failed":
            return self._newest_first(set(self.failed_threads()), below, wanted)
        if query.status == "paused":
            return self._newest_first(set(self.maybe_paused()) - self.failed_threads(), below,
                                      wanted)
        walk = self._walk(below, wanted)
        if query.status:  # finished: the walk without the failed
            gone = self.failed_threads()
            return ((thread, at) for thread, at in walk if thread not in gone)
        return walk

    def counted(self, query: ThreadQuery) -> int | None:
        """How many threads match ``query``, from a few queries: every thread, the failed,
        the maybe-paused checked by the paused rule, the heads' uuid6 ids for a time filter,
        and the threads holding the metadata. None when a time filter meets a head id that is
        not a uuid6 (the thread list then walks)."""
        if query.status == "failed":
            chosen = set(self.failed_threads())
        elif query.status == "paused":
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

    def _walk(self, below: Any, wanted: Wanted) -> Iterator[tuple[str, str]]:
        """Each thread once, at its newest row, from the rows walked newest first (one first
        met below its newest row was listed on an earlier page, by a walk that began higher)."""
        seen: set[str] = set()
        for at, thread_id in self._rows_from_end(below):
            if thread_id in seen:
                continue
            seen.add(thread_id)
            if self._newest_position(thread_id) != at:
                continue  # listed on an earlier page, at its newest row
            if wanted and not self._thread_holds(thread_id, wanted):
                continue
            yield thread_id, self._cursor_text(at)

    def _newest_first(self, ids: set[str], below: Any, wanted: Wanted
                      ) -> Iterator[tuple[str, str]]:
        """These threads at their newest rows, newest first, from below the cursor."""
        placed = sorted(((at, thread) for thread, at in self._newest_positions(ids)
                         if at is not None and at < below), reverse=True)
        for at, thread_id in placed:
            if not wanted or self._thread_holds(thread_id, wanted):
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

    def _rows_from_end(self, below: Any) -> Iterator[tuple[Any, str]]:
        """(position, thread id) of the root namespace's rows below ``below``, newest first."""
        raise NotImplementedError

    def _newest_position(self, thread_id: str) -> Any | None:
        """A thread's newest row's position, None when it has none."""
        raise NotImplementedError

    def _newest_positions(self, ids: Iterable[str]) -> list[tuple[str, Any]]:
        """(thread id, newest row's position) of each of these threads."""
        raise NotImplementedError

    def _thread_holds(self, thread_id: str, wanted: Wanted) -> bool:
        """Whether one of the thread's checkpoints holds every metadata filter."""
        raise NotImplementedError

    def _holding(self, wanted: Wanted) -> set[str]:
        """Every thread one of whose checkpoints holds every metadata filter."""
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

    def maybe_paused(self) -> dict[str, str]:
        """Thread -> head of the threads whose head may have a step due (failed ones among
        them), for :meth:`paused_among` to check."""
        raise NotImplementedError
