"""How many failed? ``list_threads`` of a real ``playground mcp`` process on a production-shaped
SQLite file (playground/testing/many_threads.py, the real saver's rows): 5,040 threads of which
40 failed and 40 paused (0.8% each, spread through the table). A page says how many match in
all, counted by the database, not how many it shows; ``count=true`` answers the count alone; a
count that must read the threads one by one (a time filter, where one thread's checkpoint id
holds no time) says "at least N" where the read's deadline stopped it.

The failures are as rare as 400 among 50,400 threads, the smallest file the fixture helper makes
400 rare failures in; that file is 1.85 GB and took 113 to 149 s to write on this two-core
machine, so the count here is 40 of 5,040 (15 s): what the count must not do (say the page's
size, 20) is the same.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.mcp.threads import count_answer
from playground.testing.many_threads import Seed, make_sqlite
from playground.timetravel.limits import ReadStopped
from playground.timetravel.thread_list import ThreadQuery
from tests.playground.mcp.client import Session, mcp_session

THREADS, SEEDS = 5_040, 126  # rare: the 126th seed fails, the 51st pauses; 40 copies of each
SHORT_DEADLINE_S = "0.5"  # PLAYGROUND_READ_TIMEOUT for the count that must walk: it reads
#   about 1,700 threads a second here, so the walk of 5,041 stops, and its first page does not


OTHER_WRITER = "written-elsewhere"  # a thread whose checkpoint id is not LangGraph's uuid6


@pytest.fixture(scope="module")
def rare(tmp_path_factory) -> tuple[str, dict[str, Seed]]:
    """The production-shaped file, and what each thread is; beside them one thread another
    tool wrote through SqliteSaver with its own checkpoint id (not a uuid6, so no time can be
    read from it: a count with a time filter walks the threads, docs/architecture.md)."""
    path = tmp_path_factory.mktemp("rare") / "app.sqlite"
    expected = make_sqlite(path, THREADS, seeds=SEEDS, rare=True)
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        checkpoint = empty_checkpoint()
        checkpoint["id"] = "import-0001"
        SqliteSaver(conn).put({"configurable": {"thread_id": OTHER_WRITER, "checkpoint_ns": ""}},
                              checkpoint, {"source": "input", "step": -1}, {})
    finally:
        conn.close()
    return str(path), expected


@pytest.fixture(scope="module")
def session(rare) -> Iterator[Session]:
    with mcp_session(rare[0]) as connected:
        yield connected


def _truth(expected: dict[str, Seed], kind: str) -> int:
    return sum(1 for seed in expected.values() if seed.kind == kind)


def test_list_threads_says_the_rare_failed_threads_that_match_in_all_not_its_page_size(
        rare, session):
    _, expected = rare
    failed = _truth(expected, "failed")
    assert failed == 40 and failed < THREADS / 100  # rare, as in production

    result = session.call("list_threads", {"status": "failed"})
    recent = session.call("list_threads", {"status": "failed", "since": "1d", "limit": 100})

    facts = result.structured_content
    assert result.content[0].text.startswith("20 shown of 40 that match in ")
    assert (facts["shown"], facts["matching"], facts["matching_at_least"]) == (20, 40, None)
    assert facts["counted_by"] == "database" and facts["next_cursor"]
    assert {row["status"] for row in facts["threads"]} == {"failed"}
    # a page cut by its limit says the same count, not its size
    assert recent.content[0].text.startswith("40 shown of 40 that match in ")
    assert recent.structured_content["next_cursor"] is None


def test_count_true_answers_only_how_many_failed_and_paused_counted_by_the_database(
        rare, session):
    _, expected = rare

    failed = session.call("list_threads", {"status": "failed", "count": True})
    today = session.call("list_threads", {"status": "failed", "since": "24h", "count": True})
    paused = session.call("list_threads", {"status": "paused", "count": True})
    every = session.call("list_threads", {"count": True})

    for result, truth in ((failed, _truth(expected, "failed")),
                          (today, _truth(expected, "failed")),
                          (paused, _truth(expected, "paused")), (every, THREADS + 1)):
        facts = result.structured_content
        assert (facts["matching"], facts["matching_at_least"]) == (truth, None)
        assert facts["counted_by"] == "database" and "threads" not in facts
    assert failed.content[0].text.startswith("40 threads match in ")
    assert every.content[0].text.startswith(f"{THREADS + 1:,} threads in ")


def test_a_count_that_must_walk_says_at_least_n_where_a_short_deadline_stopped_it(rare):
    db, _ = rare

    # A time filter is counted from the heads' uuid6 ids; one head without one makes the count
    # read every thread's newest time instead, within the read's deadline.
    with mcp_session(db, env={"PLAYGROUND_READ_TIMEOUT": SHORT_DEADLINE_S}) as short:
        counted = short.call("list_threads", {"since": "3650d", "count": True})
        page = short.call("list_threads", {"since": "3650d", "limit": 5})

    assert not counted.is_error, counted.content[0].text
    facts = counted.structured_content
    assert facts["matching"] is None and 0 < facts["matching_at_least"] < THREADS
    assert facts["counted_by"] == "walk" and 0 < facts["scanned"] < THREADS
    assert facts["count_cut_short"]  # why it stopped, in the engine's words (its deadline)
    said = counted.content[0].text
    assert said.startswith(f"At least {facts['matching_at_least']:,} threads match in ")
    assert f"the count stopped after reading {facts['scanned']:,} threads" in said
    # a page never walks to count: it says at least what it shows, and how to count them all
    assert not page.is_error, page.content[0].text
    shown = page.structured_content
    assert shown["matching"] is None and shown["matching_at_least"] == shown["shown"] == 5
    assert page.content[0].text.startswith("5 shown of at least 5 that match in ")
    assert "count=true counts them all" in page.content[0].text


class _Storage:
    """Just what :func:`count_answer` asks of a place besides the count itself."""

    label = "stand-in.sqlite"
    writer = "LangGraph (Python)"


def test_a_count_stopped_between_two_pages_says_the_pages_it_counted(monkeypatch):
    def count_threads(storage, query, progress):
        progress(120, 5_000)  # one page counted, then the deadline before the next page
        raise ReadStopped("stand-in.sqlite: this database took longer than 1 s to read: "
                          "stopped")

    monkeypatch.setattr("playground.mcp.threads.count_threads", count_threads)

    found = count_answer(_Storage(), ThreadQuery(match="refund"))

    assert found.data["matching"] is None and found.data["matching_at_least"] == 120
    assert found.data["scanned"] == 5_000 and "took longer" in found.data["count_cut_short"]
    assert found.summary.startswith("At least 120 threads match in stand-in.sqlite: the count "
                                    "stopped after reading 5,000 threads")


def test_a_count_stopped_before_any_thread_is_a_refusal_not_a_count_of_zero(monkeypatch):
    def count_threads(storage, query, progress):
        raise ReadStopped("stand-in.sqlite: this database took longer than 1 s to read: "
                          "stopped")

    monkeypatch.setattr("playground.mcp.threads.count_threads", count_threads)

    with pytest.raises(ReadStopped, match="took longer"):
        count_answer(_Storage(), ThreadQuery(status="failed"))
