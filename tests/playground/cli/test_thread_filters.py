"""``playground threads`` on a production-shaped database: the newest page first, filters,
the cursor for the next page, a count, and one line for a refused option."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from playground.testing.many_threads import make_sqlite


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """A SqliteSaver file of 400 threads (20 seeds of each kind, copied) and their seeds."""
    path = tmp_path_factory.mktemp("threads") / "app.sqlite"
    return str(path), make_sqlite(path, 400, seeds=40)


def test_threads_shows_the_newest_fifty_and_says_how_to_see_more(many):
    db, expected = many

    result = playground("threads", db)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 + 50 + 1  # the place, the heading, a page, the way on
    assert lines[2].split()[0] == list(expected)[-1]  # the thread written last comes first
    assert lines[-1].startswith("more: add --after r")


def test_status_failed_lists_only_failed_threads_with_their_error(many):
    db, expected = many

    result = playground("threads", db, "--status", "failed", "--limit", "500", "--json")

    found = json.loads(result.stdout)
    failed = {t for t, seed in expected.items() if seed.kind == "failed"}
    assert {row["thread_id"] for row in found["threads"]} == failed
    assert all("not found" in row["reason"] for row in found["threads"])
    assert found["next"] is None and found["cut"] is None


def test_the_json_cursor_pages_through_every_thread_once(many):
    db, expected = many
    seen, after = [], []
    while True:
        page = json.loads(playground("threads", db, "--limit", "150", "--json", *after).stdout)
        seen += [row["thread_id"] for row in page["threads"]]
        if not page["next"]:
            break
        after = ["--after", page["next"]]

    assert sorted(seen) == sorted(expected)


def test_count_counts_the_matching_threads_by_the_database(many):
    db, expected = many

    result = playground("threads", db, "--count", "--meta", "user=u2")

    assert result.returncode == 0, result.stderr
    wanted = sum(1 for seed in expected.values() if seed.user == "u2")
    assert result.stdout.splitlines() == [f"{wanted:,} threads match (counted by the database)"]


def test_a_count_that_reads_the_threads_writes_no_progress_into_a_pipe(many):
    db, expected = many

    # text in an error needs the errors decoded: the threads that have one (the failed and
    # the paused, found by SQL) are read one by one
    result = playground("threads", db, "--count", "--match", "not found")

    assert result.returncode == 0, result.stderr
    wanted = sum(1 for seed in expected.values() if seed.kind == "failed")
    said = sum(1 for seed in expected.values() if seed.kind in ("failed", "paused"))
    assert result.stdout.splitlines() == [f"{wanted:,} threads match (read {said:,})"]
    assert result.stderr == ""


@pytest.mark.parametrize("args, said", [
    (("--after", "not-a-cursor"), "is not a cursor of this thread list"),
    (("--since", "last tuesday"), "is not a time"),
    (("--meta", "user"), "is not KEY=VALUE"),
    (("--limit", "0"), "--limit takes 1 to 1,000"),
    (("--status", "running"), "cannot say which threads are running (only an Agent Server"),
])
def test_a_refused_option_is_one_line_and_exit_2(many, args, said):
    db, _ = many

    result = playground("threads", db, *args)

    assert result.returncode == 2
    assert said in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_count_that_reads_the_threads_shows_its_progress_on_a_terminal(many):
    import os
    import pty

    db, _ = many
    leader, follower = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-m", "playground.cli", "threads", db,
                                 "--count", "--match", "not found"], stdout=subprocess.PIPE,
                                stderr=follower, text=True, timeout=120)
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)

    assert result.returncode == 0
    assert b"counted " in shown and b" threads read" in shown
