"""The guided tour checks itself, in Chromium: after each step an attendee does, the Start page
shows that step done (from what the room did, recorded where the page saw it), and a step's page
visited without doing it stays undone."""

from __future__ import annotations

import os
import re

import pytest

from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


def _done(tab: ShotTab) -> int:
    """How many steps the Start page says this room has done."""
    shown = tab.open("").text()
    said = re.search(r"(\d) of 8 steps done in this room", shown)
    assert said, shown[:3000]
    return int(said.group(1))


def test_each_step_of_the_tour_shows_done_once_the_room_did_it_in_chromium(
        browser, tmp_path, shots):
    with playground_server(tmp_path) as server:
        tab = ShotTab(browser.new_context(viewport={"width": 1400, "height": 2300}), server,
                      shots).open()
        assert _done(tab) == 0

        for page in ("agent", "conflicts", "history", "sizes", "schema"):
            tab.open(page)  # visited, nothing done
        assert _done(tab) == 0

        tab.open("agent").click("Run turn")
        assert _done(tab) == 1
        tab.open("agent").click("Restart process")
        assert _done(tab) == 2
        tab.open("agent").click("Resume")
        assert _done(tab) == 3

        tab.open("conflicts")
        for action in ("Run turn", "Simulate concurrent edit", "Resume"):
            tab.click(action)
        assert "412" in tab.text()
        assert _done(tab) == 4

        tab.open("history")
        tab.click("Previous").click("Previous").click("Replay from here")
        assert _done(tab) == 5
        tab.open("history")
        tab.click("Previous")
        tab.type_into("changes · dict | None", '{"priority": "low"}')  # a dict: JSON
        tab.click("Fork with edit")
        assert _done(tab) == 6

        tab.open("sizes").click("Compare")
        assert _done(tab) == 7

        tab.open("schema")
        for action in ("Pause a thread under etag", "Deploy the rename and resume",
                       "Preview the repair (dry run)", "Apply the repair",
                       "Resume with the version schema"):
            tab.click(action)
        shown = tab.open("").text()
        assert "8 of 8 steps done in this room" in shown
        assert len(re.findall(r"\d\. [A-Z][a-z ]+\. done ", shown)) == 8  # every step marked
        tab.shot("start-tour-done")
