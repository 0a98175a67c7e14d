"""The room driver against a real ``playground run``: it clicks as a browser does, fragments
included. No timing is asserted here."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

import pytest

from playground.lessons.board import REFRESH_S
from tests.playground.ui.browser import playground_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def room():
    """bench.room (the repository root importable, as in test_load)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("bench.room")


def test_a_click_in_a_fragment_reruns_only_it_and_the_rest_of_the_page_stays(room, tmp_path):
    with playground_server(tmp_path) as url:
        tab = room.StreamlitTab(url, "driver-test")

        async def walk() -> None:
            await tab.connect()
            await tab.open("conflicts")
            caption = "Two agent threads and a colleague edit the same ticket"
            assert any(caption in text for text in tab.last.texts)

            await tab.click("Run turn")  # in the lab's fragment
            assert any('conflict-a read t7 at "v1"' in text for text in tab.last.texts)
            assert not any(caption in text for text in tab.last.texts)  # not sent again
            assert "Start over" in tab.last.buttons  # drawn outside it, still there to click

            await tab.click("Start over")  # outside any fragment: the whole page runs
            assert any("Started over" in text for text in tab.last.texts)
            assert any(caption in text for text in tab.last.texts)
            await tab.close()

        asyncio.run(walk())


def test_the_workshop_path_runs_without_errors_for_two_tabs(room, tmp_path):
    with playground_server(tmp_path) as url:
        timings = asyncio.run(room.walk_room(url, 2))

    assert timings.errors == {}
    for action, *_ in room.PATH:
        assert len(timings.seconds[action]) == 2, action


def test_a_paced_room_with_the_board_open_walks_the_path_and_the_board_refreshes(
        room, tmp_path):
    spread = 2.0
    # The walk lasts at least each action's latest drawn moment (the draw walk_room takes):
    # long enough for the board, which reruns every REFRESH_S, to refresh more than once.
    draw = room.click_moments(2, spread)
    waited = sum(max(draw.uniform(0, spread), draw.uniform(0, spread)) for _ in room.PATH)
    assert waited > 2 * REFRESH_S
    with playground_server(tmp_path) as url:
        timings = asyncio.run(room.walk_room(url, 2, board=True, spread=spread))

    assert timings.errors == {}
    for action, *_ in room.PATH:
        assert len(timings.seconds[action]) == 2, action
    assert timings.seconds["board refresh"], "the board's tab saw no refresh"
