"""The thread list, a page at a time, on production-shaped databases made by the real savers
(playground/testing/many_threads.py): each filter finds exactly the threads made that way, and
paging with the cursor visits every thread once, even when each page is cut by its deadline;
on SQLite and Postgres alike."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from playground.places.door import open_storage
from playground.places.sqlite.thread_list import spellings
from playground.testing.many_threads import make_postgres, make_sqlite
from playground.timetravel import thread_list
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
        # the deadline said, and how far the page got
        assert page.cut.startswith(
            f"{storage.label}: this database took longer than 2 s to read: stopped; read ")
        assert page.cut.endswith(", found 4 threads") and not page.complete
        assert page.next_cursor  # the next page starts where this one stopped

        storage.signals_at = read
        vars(storage).pop("heads_read", None)
        again = thread_page(storage, ThreadQuery(limit=50, after=page.next_cursor))
        # The thread the deadline cut into is the next page's first, not lost between pages.
        assert again.rows[0].summary.thread_id == calls[4]
    finally:
        storage.close()


class SlowClock:
    """The thread list's clock, each look a second later (the databases keep the real one): a
    walk meets its share of the deadline after 15 steps, whatever this machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


@pytest.mark.parametrize("meta", [(), ("user=u7",)])
def test_a_walk_cut_by_its_deadline_at_every_step_still_lists_each_thread_once(
        place, meta, monkeypatch):
    target, expected = place
    monkeypatch.setattr(thread_list, "time", SlowClock())
    query = ThreadQuery(meta=parse_meta(list(meta)), limit=1_000)
    found, cuts = [], []
    storage = open_storage(target)
    try:
        while True:
            page = thread_page(storage, query)
            found += [row.summary.thread_id for row in page.rows]
            cuts += [page.cut] if page.cut else []
            if not page.next_cursor:
                break
            query = replace(query, after=page.next_cursor)
    finally:
        storage.close()

    wanted = [t for t, seed in expected.items() if not meta or seed.user == "u7"]
    assert sorted(found) == sorted(wanted)  # each once: none lost between two cut pages
    assert len(cuts) > 1  # the walk met its deadline again and again
    assert all(cut.startswith("stopped at the read's deadline (15 s); read ") for cut in cuts)


def test_a_metadata_filter_reads_on_past_a_row_whose_metadata_is_not_json(tmp_path):
    path = tmp_path / "app.sqlite"
    expected = make_sqlite(path, 120, seeds=12)
    broken = list(expected)[-1]
    conn = sqlite3.connect(path)
    conn.execute("UPDATE checkpoints SET metadata = CAST('{not json' AS BLOB) "
                 "WHERE thread_id = ?", (broken,))
    conn.commit()
    conn.close()

    found, _ = _all(str(path), ThreadQuery(meta=parse_meta(["user=u3"]), limit=200))

    assert sorted(found) == sorted(t for t, s in expected.items()
                                   if s.user == "u3" and t != broken)


def test_an_ids_start_is_looked_up_in_every_spelling_of_its_first_letters():
    assert spellings("aB-9") == ["AB-9", "Ab-9", "aB-9", "ab-9"]
    assert spellings("9e3157c9") == ["9E31", "9e31"]
