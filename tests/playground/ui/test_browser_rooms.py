"""Rooms that stay: a browser goes back to its room when a page is opened without one (a new tab,
a bookmark), from what the browser keeps, and Leave room starts a fresh one on purpose."""

from __future__ import annotations

import os
import re

import pytest

from playground.testing.browser import Tab
from tests.playground.apps import user_graphs
from tests.playground.ui.browser import chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


def _room(tab: Tab) -> str:
    return re.search(r"room=([a-z0-9-]+)", tab.page.url).group(1)


def test_a_new_tab_without_a_room_opens_the_browsers_room_and_leave_room_starts_anew(
        browser, tmp_path):
    spec = f"{user_graphs.write_support(tmp_path)}:graph"
    with playground_server(tmp_path, "--workshop", "--graph", spec) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1900})
        first = Tab(context.new_page(), server).open()
        first.say("where is A17?")
        room = first.room

        # a new tab, typed or bookmarked: /history with no room in its URL
        second = Tab(context.new_page(), server)
        second.open("history")

        assert _room(second) == room
        assert "checkpoints · " in second.text()  # the room's thread, not an empty room

        second.click("Leave room")
        fresh = _room(second)
        assert fresh != room
        third = Tab(context.new_page(), server).open("history")
        assert _room(third) == fresh  # the browser now keeps the fresh room

        stranger = Tab(browser.new_context().new_page(), server).open("history")
        assert _room(stranger) not in (room, fresh)  # another browser: a room of its own
