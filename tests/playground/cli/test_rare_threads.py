"""Which threads failed? ``playground threads`` on a production-shaped database where the
threads one looks for are rare (0.4% failed, 0.4% paused, spread through the table), on SQLite
and Postgres: each filter finds exactly the threads made so, in one page and across pages; a
count equals the truth; the metadata people filter by is shown as the saver stores it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from playground.places.door import open_place
from playground.testing.many_threads import make_postgres, make_sqlite
from playground.timetravel.thread_list import own_metadata
from tests import postgres

THREADS, SEEDS = 2_500, 250  # 10 failed, 10 paused


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def rare(request, tmp_path_factory) -> Iterator[tuple[str, dict]]:
    """A database of 2,500 threads made by the real saver, failures and pauses rare."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("rare") / "app.sqlite"
        yield str(path), make_sqlite(path, THREADS, seeds=SEEDS, rare=True)
        return
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        yield url, make_postgres(url, THREADS, seeds=SEEDS, rare=True)


def _threads(db: str, *args: str) -> dict:
    result = playground("threads", db, "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _all_pages(db: str, *args: str) -> list[str]:
    seen, after = [], []
    while True:
        page = _threads(db, *args, *after)
        seen += [row["thread_id"] for row in page["threads"]]
        if not page["next"]:
            return seen
        after = ["--after", page["next"]]


@pytest.mark.parametrize("status", ["failed", "paused"])
def test_a_rare_status_is_found_whole_in_one_page_and_across_pages(rare, status):
    db, expected = rare
    made = {thread for thread, seed in expected.items() if seed.kind == status}
    assert 0 < len(made) < len(expected) / 100  # rare, as in production

    page = _threads(db, "--status", status, "--limit", "500")
    paged = _all_pages(db, "--status", status, "--limit", "3")

    assert {row["thread_id"] for row in page["threads"]} == made
    assert page["next"] is None and page["cut"] is None
    assert sorted(paged) == sorted(made)  # each once
    # SQL picked them: the page read the matching threads, not the table
    assert page["scanned"] <= 2 * len(made)


@pytest.mark.parametrize("args, wanted", [
    ((), lambda seed: True),
    (("--status", "failed"), lambda seed: seed.kind == "failed"),
    (("--status", "paused"), lambda seed: seed.kind == "paused"),
    (("--status", "finished"), lambda seed: seed.kind in ("finished", "forked")),
    (("--meta", "user=u7", "--meta", "channel=email"),
     lambda seed: seed.user == "u7" and seed.channel == "email"),
    (("--status", "failed", "--since", "1d"), lambda seed: seed.kind == "failed"),
])
def test_count_equals_the_truth_as_one_line_counted_by_the_database(rare, args, wanted):
    db, expected = rare

    result = playground("threads", db, "--count", *args)

    assert result.returncode == 0, result.stderr
    truth = sum(1 for seed in expected.values() if wanted(seed))
    assert result.stdout.splitlines() == [
        f"{truth:,} thread{'s' if truth != 1 else ''}{' match' if args else ''} "
        "(counted by the database)"]
    assert result.stderr == ""  # into a pipe: no progress line


def test_two_metadata_keys_find_exactly_the_threads_started_with_both(rare):
    db, expected = rare

    found = _all_pages(db, "--meta", "user=u7", "--meta", "channel=email", "--limit", "1000")

    assert sorted(found) == sorted(t for t, seed in expected.items()
                                   if seed.user == "u7" and seed.channel == "email")


def test_threads_and_history_show_the_metadata_the_saver_stores(rare):
    db, expected = rare
    page = _threads(db, "--status", "paused", "--limit", "5")
    thread = page["threads"][0]["thread_id"]
    history = json.loads(playground("history", db, "--thread", thread, "--json").stdout)

    with open_place(db).saver() as saver:
        listed = list(saver.list({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}))
    stored = {t.config["configurable"]["checkpoint_id"]: t.metadata for t in listed}
    first = stored[min(stored)]
    assert page["threads"][0]["metadata"] == own_metadata(first) == {
        "user": expected[thread].user, "channel": expected[thread].channel}
    assert {c["checkpoint_id"]: c["metadata"] for c in history["checkpoints"]} == stored


def test_a_metadata_column_shows_the_key_filtered_by(rare):
    db, expected = rare

    result = playground("threads", db, "--meta", "channel=slack", "--show-meta", "user",
                        "--limit", "5")

    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()[1:6]
    assert header.split()[5:8] == ["channel", "user", "status"]
    for line in rows:
        thread, *_, channel, user, _status = line.split()[:8]
        assert (channel, user) == ("slack", expected[thread].user)
