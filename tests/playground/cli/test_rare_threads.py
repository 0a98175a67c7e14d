"""Which threads failed? ``playground threads`` on a production-shaped database where the
threads one looks for are rare (0.4% failed, 0.4% paused, spread through the table), on SQLite
and Postgres: each filter finds exactly the threads made so, in one page and across pages; a
count equals the truth; the metadata people filter by is shown as the saver stores it; a filter
that meets its deadline prints what it found and how to keep reading; ``--match`` reads errors
and questions, and ids by their start only."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from playground.cli import main
from playground.places.door import open_place
from playground.testing.many_threads import make_postgres, make_sqlite
from playground.timetravel import thread_list
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


class SlowClock:
    """The thread list's clock, each look a quarter second later (the databases keep the real
    one): a walk meets its share of the deadline after 60 steps (a few windows of rows), as one
    on a cold 9 GB file does, whatever this machine's speed."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.25
        return self.now


def _in_process(capsys, *args: str) -> tuple[int, str, str]:
    """``playground threads ARGS`` run in this process: (exit code, stdout, stderr)."""
    code = main(["threads", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_filter_that_reaches_its_deadline_prints_the_threads_it_found_and_exits_0(
        rare, capsys, monkeypatch):
    db, expected = rare
    monkeypatch.setattr(thread_list, "time", SlowClock())

    code, out, err = _in_process(capsys, db, "--meta", "channel=web", "--limit", "500")

    assert code == 0 and err == ""
    lines = out.splitlines()
    rows = [line.split()[0] for line in lines[2:] if line.split()[0] in expected]
    assert rows and all(expected[thread].channel == "web" for thread in rows)
    assert len(rows) < sum(1 for seed in expected.values() if seed.channel == "web")
    cut = next(line for line in lines if line.startswith("cut short: "))
    assert "stopped at the read's deadline (15 s)" in cut  # 75% of PLAYGROUND_READ_TIMEOUT
    assert f"found {len(rows)} thread" in cut and "of the checkpoints" in cut  # how far
    assert lines[-1].startswith("more: add --after ")
    assert "to keep reading from where it stopped (or --deadline 60" in lines[-1]


def test_a_page_cut_by_its_deadline_says_complete_false_and_its_cursor_reads_on_to_each_thread(
        rare, capsys, monkeypatch):
    db, expected = rare
    monkeypatch.setattr(thread_list, "time", SlowClock())
    seen, after, pages = [], [], []
    while True:
        code, out, _ = _in_process(capsys, db, "--meta", "channel=web", "--limit", "1000",
                                   "--json", *after)
        assert code == 0
        page = json.loads(out)
        pages.append(page)
        seen += [row["thread_id"] for row in page["threads"]]
        if not page["next"]:
            break
        after = ["--after", page["next"]]

    assert pages[0]["complete"] is False and pages[0]["cut"] and pages[0]["threads"]
    assert 0 < pages[0]["walked"] < 1  # the share of the checkpoints read
    assert pages[-1]["complete"] or not pages[-1]["threads"]
    assert sorted(seen) == sorted(t for t, s in expected.items() if s.channel == "web")


@pytest.mark.parametrize("seconds", ["0", "-1", "3601", "nan"])
def test_a_deadline_out_of_bounds_is_refused_in_one_line(rare, seconds):
    db, _ = rare

    result = playground("threads", db, "--meta", "channel=web", "--deadline", seconds)

    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == ("playground threads: --deadline takes more than 0 and at "
                                     "most 3,600 seconds")


def test_a_longer_deadline_reads_the_whole_filter_and_says_it_is_complete(rare):
    db, expected = rare

    page = _threads(db, "--meta", "user=u7", "--limit", "1000", "--deadline", "120")

    assert page["complete"] is True and page["cut"] is None and page["next"] is None
    assert sorted(row["thread_id"] for row in page["threads"]) == sorted(
        t for t, seed in expected.items() if seed.user == "u7")


def test_match_keeps_the_ids_that_start_with_the_text_in_any_case_only(rare):
    db, expected = rare
    thread = sorted(expected)[len(expected) // 2]
    start = thread[:6].upper()
    said = [row["reason"].lower() for status in ("failed", "paused")
            for row in _threads(db, "--status", status, "--limit", "1000")["threads"]]
    inside = _inside_only(thread, expected, said)

    by_start = _all_pages(db, "--match", start, "--limit", "1000")
    by_inside = _all_pages(db, "--match", inside, "--limit", "1000")

    assert thread in by_start
    assert sorted(by_start) == sorted(t for t in expected if t.lower().startswith(start.lower()))
    assert by_inside == []  # digits inside an id are not a match: "503" is a status code


def _inside_only(thread: str, expected: dict, said: list[str]) -> str:
    """Four characters from inside ``thread`` that start no thread id and are in no error or
    question of the database (``said``)."""
    for at in range(9, len(thread) - 4):
        part = thread[at:at + 4].lower()
        if "-" not in part and not any(t.lower().startswith(part) for t in expected) \
                and not any(part in reason for reason in said):
            return part
    raise AssertionError(f"no part of {thread} to look for")


@pytest.mark.parametrize("text, kind", [("NOT FOUND", "failed"),
                                        ("approve a refund", "paused")])
def test_match_finds_the_text_in_the_errors_and_the_questions(rare, text, kind):
    db, expected = rare

    page = _threads(db, "--match", text, "--limit", "1000")

    assert page["complete"] is True
    assert sorted(row["thread_id"] for row in page["threads"]) == sorted(
        t for t, seed in expected.items() if seed.kind == kind)
    assert all(text.lower() in row["reason"].lower() for row in page["threads"])
    # SQL picked them: the failed and paused threads were read, not the table
    assert page["scanned"] <= 2 * len(page["threads"]) + 50


def test_threads_help_says_match_reads_errors_and_questions_and_the_start_of_an_id():
    result = playground("threads", "--help")

    assert result.returncode == 0, result.stderr
    said = " ".join(result.stdout.split())
    assert "whose error or question contains TEXT, or whose id starts with it" in said
    assert "a filter's walk stops at 75% of it and shows the threads it found" in said
