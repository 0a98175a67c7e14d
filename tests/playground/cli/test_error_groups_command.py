"""Why did they fail? ``playground threads --group-by error`` on 300 threads a real graph ran on
the real saver (SQLite and Postgres), 19 of them failed in five ways whose messages differ in a
number, an id or a uuid: each way is one group, with its exact count, its newest time and a real
example; ``--json`` says the same; ``--group-by`` implies ``--status failed`` and refuses what
does not fit it in one line; a walk cut by its deadline says how many it grouped."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from playground.places.door import open_storage
from playground.timetravel.thread_list import ThreadQuery, group_errors
from tests.playground import databases
from tests.playground.error_kinds import GROUPS, NODES, THREADS, make_threads, stored_error


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", params=databases.KINDS)
def failures(request, tmp_path_factory) -> Iterator[tuple[str, dict]]:
    """A database of 300 threads, 19 failed in five ways (tests/playground/error_kinds.py)."""
    with databases.database(request.param, tmp_path_factory.mktemp("failures")) as made:
        yield made.target, make_threads(made.saver)


def _groups_json(db: str, *args: str) -> dict:
    result = playground("threads", db, "--group-by", "error", "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_group_by_error_prints_each_failure_once_with_its_exact_count_and_an_example(failures):
    db, made = failures
    assert sum(GROUPS.values()) == 19 and len(made) == THREADS  # rare, as in production

    result = playground("threads", db, "--status", "failed", "--group-by", "error")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1].startswith("19 failed threads in 5 groups of errors")
    # the largest first, the newest first among equals (GROUPS is in that order)
    assert [(int(line[:7].replace(",", "")), line[30:]) for line in lines[3::2]] == [
        (count, key) for key, count in GROUPS.items()]
    examples = lines[4::2]
    for line, key in zip(examples, GROUPS, strict=True):
        assert line.strip().startswith(f"in {NODES[key]}; e.g. ")
        thread = line.split("e.g. ", 1)[1].split(":", 1)[0]
        assert made[thread] == key  # a real thread of that group
        assert line.endswith(f"{thread}: {stored_error(int(thread[4:]))}")  # as stored
    assert "cut short" not in result.stdout


def test_group_by_json_gives_the_same_groups_and_says_every_failed_thread_was_read(failures):
    db, made = failures

    found = _groups_json(db)  # no --status: --group-by error means the failed threads

    assert {group["error"]: group["count"] for group in found["groups"]} == GROUPS
    assert [group["count"] for group in found["groups"]] == sorted(GROUPS.values(), reverse=True)
    assert (found["failed_read"], found["groups_total"], found["complete"], found["cut"]) == (
        19, 5, True, None)
    for group in found["groups"]:
        example = group["example"]["thread_id"]
        assert made[example] == group["error"]
        assert group["example"]["error"] == stored_error(int(example[4:]))
        assert group["nodes"] == [NODES[group["error"]]]
        assert group["newest_at"]


def test_group_by_applies_the_other_filters_and_limit_caps_the_groups_shown(failures):
    db, _ = failures

    matching = _groups_json(db, "--match", "ticket")
    capped = playground("threads", db, "--group-by", "error", "--limit", "2")

    assert {group["error"]: group["count"] for group in matching["groups"]} == {
        key: count for key, count in GROUPS.items() if "ticket" in key}
    assert capped.returncode == 0, capped.stderr
    assert "and 3 more groups (7 threads): --limit 5 shows them all" in capped.stdout


@pytest.mark.parametrize("args, said", [
    (("--status", "paused"), "--group-by error groups the failed threads: give --status "
                             "failed or no --status, not --status paused"),
    (("--count",), "leave out --count"),
    (("--after", "r12"), "leave out --after"),
])
def test_group_by_refuses_what_does_not_fit_it_in_one_line(failures, args, said):
    db, _ = failures

    result = playground("threads", db, "--group-by", "error", *args)

    assert result.returncode == 2
    assert said in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_grouping_walk_cut_by_its_deadline_says_how_many_failed_threads_it_grouped(failures):
    db, _ = failures
    storage = open_storage(db)
    try:
        found = group_errors(storage, ThreadQuery(), seconds=0)  # the deadline at once
    finally:
        storage.close()

    assert not found.complete and 0 < found.failed < 19
    assert f"grouped {found.failed:,} failed threads" in found.cut
    assert sum(group.count for group in found.groups) == found.failed
