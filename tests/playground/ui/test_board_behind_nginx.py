"""A room of replicas served to the network: two replicas behind the workshop's nginx on all
interfaces, on one PostgreSQL database (deploy/workshop.py, as ``make workshop --host 0.0.0.0``
starts them), opened in Chromium at the room URL it prints. An attendee whose replica dies is
moved to the other and stays signed in; the facilitator signs in through nginx (every request
reaches a replica from loopback there, so never as the server's own person) and sees both
rooms."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from deploy.workshop import start_room
from playground.access.peers import public_address
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
    pytest.mark.skipif(public_address() is None, reason="this machine has no address but "
                       "loopback to serve a room on"),
]
KEY = "workshop-facilitator-key-7"


def _replica(tab: Tab) -> str:
    """The replica nginx sends this browser to (its sticky cookie rides along)."""
    return tab.page.request.get(f"{tab.base}/_stcore/health").headers["x-playground-replica"]


def test_an_attendee_moved_to_another_replica_stays_signed_in_and_the_board_shows_both_rooms(
        browser, tmp_path, monkeypatch):
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    monkeypatch.setenv("WORKSHOP_TEST_KEY", KEY)
    monkeypatch.setenv("PLAYGROUND_ACCESS_TOKEN", "workshop-room-token-0123")
    with postgres.throwaway_database() as url, \
            start_room(replicas=2, port=free_port(), host="0.0.0.0", database=url,
                       home=tmp_path, facilitator_key_env="WORKSHOP_TEST_KEY") as room:
        assert room.url.endswith("/?token=workshop-room-token-0123")
        base = room.url.split("/?")[0]
        assert "127.0.0.1" not in base

        first = Tab(browser.new_context(viewport={"width": 1400, "height": 1600}
                                              ).new_page(), base).visit(room.url)
        first.open("agent").click("Run turn")
        second = Tab(browser.new_context().new_page(), base).visit(room.url)
        second.open("agent").click("Run turn").click("Restart process")

        gone = _replica(first)
        next(r for r in room.replicas if gone.endswith(f":{r.port}")).kill()
        before = first.runs
        first.page.reload()  # the tab's replica died: nginx sends it to the live one
        first._wait_for_run_after(before, "reloading after its replica died")
        assert _replica(first) != gone
        assert "Sign in" not in first.text()
        first.click("Resume")  # the paused turn, read back from Postgres on the other replica
        assert "t7" in first.text()

        facilitator = Tab(browser.new_context(viewport={"width": 1400, "height": 1800}
                                              ).new_page(), base)
        facilitator.visit(room.url)
        facilitator.page.goto(f"{base}/board")  # through nginx: the key, never local
        assert facilitator.page.url.endswith("/_playground/board-sign-in")
        facilitator.page.get_by_label("Facilitator key").fill(KEY)
        before = facilitator.runs
        facilitator.page.get_by_role("button", name="Open the board").click()
        facilitator._wait_for_run_after(before, "signing in")
        facilitator.page.get_by_text("Redrawn every 5 s").wait_for()
        shown = facilitator.text()

        assert re.search(r"Rooms\s*2", shown), shown  # both attendees, whatever their replica
        # the first resumed after its replica died, not after a restart it did itself
        assert "1. Run a turn: 2 · 2. Restart: 1 · 3. Resume: 0" in shown
    for log in tmp_path.glob("*.log"):
        assert KEY not in log.read_text()
