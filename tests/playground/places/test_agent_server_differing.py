"""Servers that differ from ``langgraph dev``: what the playground does when a server lacks an
option, answers an older form, is busy for a moment, or refuses (a stand-in server:
tests/playground/stand_in_server.py)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from playground.places import agent_server
from playground.places.door import open_storage
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.tree import load_tree
from tests.playground.stand_in_server import THREAD, stand_in_server, url_of


@pytest.fixture
def stand_in() -> Iterator:
    with stand_in_server() as server:
        yield server


def _url(server) -> str:
    return url_of(server)


def _cli(server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args, _url(server)],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin"})


def test_threads_lists_a_server_that_refuses_select_by_asking_without_it(stand_in):
    stand_in.quirks = {"no-select"}

    shown = _cli(stand_in, "threads")

    assert shown.returncode == 0, shown.stderr
    assert THREAD in shown.stdout and "3 " in shown.stdout  # its three checkpoints
    searches = [asked for path, asked in stand_in.asked if path == "/threads/search"]
    assert "select" in searches[0] and all("select" not in a for a in searches[1:])
    assert len([a for a in searches if "select" in a]) == 1  # refused once, not asked again


def test_a_refused_option_is_asked_once_per_place_not_once_per_read(stand_in):
    from playground.places.door import open_place

    stand_in.quirks = {"no-select"}
    place = open_place(_url(stand_in))

    for _ in range(3):  # each page run reads the place anew
        place.reads().fingerprint(THREAD)

    with_select = [a for path, a in stand_in.asked if path == "/threads/search" and "select" in a]
    assert len(with_select) == 1


def test_a_metadata_filter_the_server_refuses_is_checked_here_instead(stand_in):
    stand_in.quirks = {"no-metadata"}

    found = _cli(stand_in, "threads", "--meta", "user=acme")
    none = _cli(stand_in, "threads", "--meta", "user=nobody")

    assert found.returncode == 0 and none.returncode == 0, found.stderr + none.stderr
    assert THREAD in found.stdout and THREAD not in none.stdout
    assert "no threads match" in none.stdout


def test_a_history_longer_than_a_page_is_read_whole_from_a_server_that_takes_only_bare_before(
        stand_in, monkeypatch):
    stand_in.quirks = {"bare-before-only"}
    monkeypatch.setattr(agent_server, "PAGE", 2)  # three checkpoints: two pages

    tree = load_tree(open_storage(_url(stand_in)), THREAD)

    assert sorted(tree.nodes) == ["cp-0001", "cp-0002", "cp-0003"]
    assert tree.nodes["cp-0002"].parent_id == "cp-0001"


def test_history_columns_line_up_when_a_server_lists_a_fan_outs_tasks(stand_in):
    shown = subprocess.run([sys.executable, "-m", "playground.cli", "history", _url(stand_in),
                            "--thread", THREAD], capture_output=True, text=True, timeout=60)

    assert shown.returncode == 0, shown.stderr
    heading, *rows = shown.stdout.splitlines()[1:]
    assert any(" tick ×4 " in row for row in rows), rows  # four tasks of one node, said once
    bytes_end = heading.index("bytes") + len("bytes")
    assert all(row[bytes_end - 1].isdigit() and row[bytes_end] == " " for row in rows), rows


def test_a_server_busy_for_a_moment_is_asked_again_and_the_list_shows(stand_in):
    stand_in.quirks, stand_in.busy_left = {"busy"}, 1

    shown = _cli(stand_in, "threads")

    assert shown.returncode == 0, shown.stderr
    assert THREAD in shown.stdout


def test_a_server_that_stays_busy_is_said_as_one_to_try_again_in_a_moment(stand_in):
    stand_in.quirks, stand_in.busy_left = {"busy"}, 99

    shown = _cli(stand_in, "threads")

    assert shown.returncode == 2
    assert shown.stderr.strip().splitlines() == [
        f"playground threads: {_url(stand_in)}: the server could not answer just now "
        "(429: Too many requests); try again in a moment"]


def test_a_refusal_the_server_will_repeat_is_said_with_its_reason_not_as_passing(stand_in):
    storage = open_storage(_url(stand_in))

    with pytest.raises(CheckpointDbError) as refused:
        storage.client.call(storage.client.sdk.threads.get, "no-such-thread")

    said = str(refused.value)
    assert said.startswith(f"{_url(stand_in)}: the server refused the request (404: Not Found)")
    assert "check the id" in said and "just now" not in said
    assert refused.value.lasting
