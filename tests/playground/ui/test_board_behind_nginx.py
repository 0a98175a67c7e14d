"""The board of a workshop of replicas: two replicas behind the workshop's nginx on one
PostgreSQL database (deploy/workshop.py, as ``make workshop`` starts them), an attendee on each,
and the facilitator's board through nginx, where it asks for the key (nginx forwards everyone
from loopback) and then shows both rooms."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from deploy.workshop import start_room
from playground.server_process import free_port
from playground.testing.browser import Tab
from tests import postgres
from tests.playground.ui.browser import chromium_missing

pytestmark = [
    pytest.mark.replicas,
    pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
                       reason="nginx is not installed (bash .ci/run installs nginx-light)"),
    pytest.mark.skipif(chromium_missing() and not os.environ.get("CI"),
                       reason="Debian chromium is not installed (bash .ci/run installs it)"),
]
KEY = "workshop-facilitator-key-7"


def _tab(browser, base: str) -> Tab:
    return Tab(browser.new_context(viewport={"width": 1400, "height": 1800}).new_page(), base)


def test_attendees_on_two_replicas_show_on_one_board_through_nginx_with_the_key(
        browser, tmp_path, monkeypatch):
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    monkeypatch.setenv("WORKSHOP_TEST_KEY", KEY)
    with postgres.throwaway_database() as url, \
            start_room(replicas=2, port=free_port(), database=url, home=tmp_path,
                       facilitator_key_env="WORKSHOP_TEST_KEY") as room:
        first, second = (_tab(browser, replica.url) for replica in room.replicas)
        first.open("agent").click("Run turn")
        second.open("agent").click("Run turn").click("Restart process")

        facilitator = _tab(browser, room.url).open("board")
        assert "Facilitator key" in facilitator.text()  # through nginx: never local
        facilitator.page.get_by_label("Facilitator key").fill(KEY)
        facilitator.click("Open the board")
        facilitator.page.get_by_text("Redrawn every 5 s").wait_for()
        shown = facilitator.text()

        assert re.search(r"Rooms\s*2", shown), shown
        assert "1. Run a turn: 2 · 2. Restart: 1 · 3. Resume: 0" in shown
    for log in tmp_path.glob("*.log"):
        assert KEY not in log.read_text()
