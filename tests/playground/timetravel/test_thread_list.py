"""The thread list, a page at a time, on production-shaped databases made by the real savers
(playground/testing/many_threads.py): each filter finds exactly the threads made that way, and
paging with the cursor visits every thread once; on SQLite and Postgres alike."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from playground.places.door import open_storage
from playground.testing.many_threads import make_postgres, make_sqlite
from playground.timetravel.limits import took_too_long
from playground.timetravel.thread_list import (
    QueryRefused,
    ThreadQuery,
    parse_meta,
    parse_moment,
    thread_page,
)
from tests.postgres import SKIP_REASON, database_url, throwaway_database

THREADS, SEEDS = 1_200, 40


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def place(request, tmp_path_factory):
    """(target, what each thread is) for a database of THREADS threads of each kind."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("many") / "app.sqlite"
        yield str(path), make_sqlite(path, THREADS, SEEDS)
        return
    if not database_url():
        pytest.skip(SKIP_REASON)
    with throwaway_database() as url:
        yield url, make_postgres(url, THREADS, SEEDS)


def _rows(target: str, query: ThreadQuery) -> tuple[list, int]:
    """Every row the query finds, page after page: (rows in order, pages read)."""
    found, pages = [], 0
    storage = open_storage(target)
    try:
        while True:
            page = thread_page(storage, query)
            assert page.cut is None, page.cut
            found += page.rows
            pages += 1
            if not page.next_cursor:
                return found, pages
            query = replace(query, after=page.next_cursor)
    finally:
        storage.close()


def _all(target: str, query: ThreadQuery) -> tuple[list[str], int]:
    """Every thread id the query finds, page after page, and the pages read."""
    rows, pages = _rows(target, query)
    return [row.summary.thread_id for row in rows], pages


def test_paging_with_the_cursor_visits_every_thread_exactly_once(place):
    target, expected = place

    found, pages = _all(target, ThreadQuery(limit=100))

    assert sorted(found) == sorted(expected)  # each once: no repeat, none left out
    assert pages >= THREADS // 100


def test_the_first_page_holds_the_newest_threads_first(place):
    target, expected = place
    storage = open_storage(target)
    try:
        page = thread_page(storage, ThreadQuery(limit=50))
    finally:
        storage.close()

    assert len(page.rows) == 50 and page.next_cursor
    # in the order the rows were written: the last copy made comes first (copies keep their
    # seed's times, so the times say nothing here)
    assert page.rows[0].summary.thread_id == list(expected)[-1]


@pytest.mark.parametrize("status, kinds", [("failed", {"failed"}), ("paused", {"paused"}),
                                           ("finished", {"finished", "forked"})])
def test_a_status_filter_finds_exactly_the_threads_made_that_way(place, status, kinds):
    target, expected = place

    found, _ = _all(target, ThreadQuery(status=status, limit=500))

    assert sorted(found) == sorted(t for t, seed in expected.items() if seed.kind in kinds)


def test_failed_threads_say_their_error_and_paused_ones_their_question(place):
    target, _ = place
    storage = open_storage(target)
    try:
        failed = thread_page(storage, ThreadQuery(status="failed", limit=3)).rows
        paused = thread_page(storage, ThreadQuery(status="paused", limit=3)).rows
    finally:
        storage.close()

    assert all("not found" in row.reason for row in failed)
    assert all("Approve a refund for order" in row.reason for row in paused)


def test_a_metadata_filter_finds_exactly_the_threads_started_with_it(place):
    target, expected = place

    found, _ = _all(target, ThreadQuery(meta=parse_meta(["user=u7"]), limit=200))

    assert found and sorted(found) == sorted(t for t, s in expected.items() if s.user == "u7")


def test_filters_combine_and_match_reads_the_error_text(place):
    target, expected = place
    query = ThreadQuery(status="failed", meta=parse_meta(["user=u6"]), match="not found",
                        limit=200)

    found, _ = _all(target, query)

    assert found and sorted(found) == sorted(
        t for t, s in expected.items() if s.user == "u6" and s.kind == "failed")


def test_since_and_until_bound_the_newest_checkpoints_time(place):
    target, expected = place
    every, _ = _rows(target, ThreadQuery(limit=1_000))
    moments = sorted({datetime.fromisoformat(row.summary.newest_at) for row in every})
    middle = moments[len(moments) // 2]

    newer, _ = _all(target, ThreadQuery(since=middle, limit=500))
    older, _ = _all(target, ThreadQuery(until=middle, limit=500))

    assert sorted(newer + older) == sorted(expected)  # the two halves, each thread in one
    assert newer and older


def test_a_cursor_that_is_not_one_is_refused_in_one_line(place):
    target, _ = place
    storage = open_storage(target)
    try:
        with pytest.raises(QueryRefused, match="is not a cursor of this thread list"):
            thread_page(storage, ThreadQuery(after="x'; DROP TABLE checkpoints; --"))
    finally:
        storage.close()


def test_times_are_read_as_iso_moments_or_spans_back_from_now():
    now = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)

    assert parse_moment("2h", now) == now - timedelta(hours=2)
    assert parse_moment("15m", now) == now - timedelta(minutes=15)
    assert parse_moment("2026-12-03T10:00", now) == datetime(2026, 12, 3, 10, tzinfo=UTC)
    with pytest.raises(QueryRefused, match="is not a time"):
        parse_moment("yesterday-ish", now)
    with pytest.raises(QueryRefused, match="is not KEY=VALUE"):
        parse_meta(["user"])


def test_a_walk_stopped_by_its_deadline_is_a_page_cut_short_with_a_cursor_to_go_on(place):
    target, _made = place
    storage = open_storage(target)
    read = storage.signals_at
    calls = []

    def signals_until_the_deadline(thread_id, checkpoint_ids, checkpoint_ns=""):
        # The fifth thread's read meets the deadline (as SQLite's progress handler or
        # Postgres's statement_timeout would say it): the page keeps the four read before it
        # (a kind that reads a page together, its batch past the timeout, reads one by one).
        calls.append(thread_id)
        if len(calls) == 5:
            raise took_too_long(storage.label, 2)
        return read(thread_id, checkpoint_ids, checkpoint_ns)

    def batch_past_its_timeout(heads):
        raise took_too_long(storage.label, 2)

    storage.signals_at = signals_until_the_deadline
    if hasattr(storage, "heads_read"):  # a kind that reads a page's rows together (Postgres):
        storage.heads_read = batch_past_its_timeout  # its batch meets the statement timeout
    try:
        page = thread_page(storage, ThreadQuery(limit=50))
        assert [row.summary.thread_id for row in page.rows] == calls[:4]
        assert page.cut == f"{storage.label}: this database took longer than 2 s to read: stopped"
        assert page.next_cursor  # the next page starts where this one stopped

        storage.signals_at = read
        vars(storage).pop("heads_read", None)
        again = thread_page(storage, ThreadQuery(limit=50, after=page.next_cursor))
        # The thread the deadline cut into is the next page's first, not lost between pages.
        assert again.rows[0].summary.thread_id == calls[4]
    finally:
        storage.close()
