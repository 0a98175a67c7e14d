"""The workshop path in a real browser: Debian Chromium driven by Playwright, against
``playground run`` started as users start it (its own process, embedded API, SQLite file).

Screenshots of every page are taken and checked on every run; ``make screenshots`` keeps them
in assets/screenshots/ for the README (a plain test run leaves the source tree alone).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from playground.timetravel.transfer import dumps_export, export_thread
from tests.playground import hostile_db
from tests.playground.ui.browser import (
    ARGS,
    CHROMIUM,
    Tab,
    chromium_missing,
    free_port,
    wait_until_up,
)

SHOTS_ENV = "PLAYGROUND_SCREENSHOTS"  # a folder to keep the screenshots in

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``playground run`` on a free port with its own checkpoint and ticket files."""
    home = tmp_path_factory.mktemp("browser")
    port = free_port()
    env = dict(os.environ, PLAYGROUND_CHECKPOINTS=str(home / "checkpoints.sqlite"),
               PLAYGROUND_TICKETS_DB=str(home / "tickets.sqlite"))
    process = subprocess.Popen(
        [sys.executable, "-m", "playground.cli", "run", "--port", str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{url}/_stcore/health", process)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=20)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: $PLAYGROUND_SCREENSHOTS if set, else a temporary folder."""
    folder = os.environ.get(SHOTS_ENV)
    return Path(folder) if folder else tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


class WorkshopTab(Tab):
    """A tab that also reads the tree's checkpoint count and saves screenshots."""

    def __init__(self, context, base: str, shots: Path | None = None) -> None:
        super().__init__(context.new_page(), base)
        self.shots = shots

    def checkpoints(self) -> int:
        """The checkpoint count the History page states under the tree."""
        shown = self.text()
        match = re.search(r"([\d,]+) checkpoints · ", shown)
        assert match, f"no checkpoint count on the page:\n{shown[:3000]}"
        return int(match.group(1).replace(",", ""))

    def shot(self, name: str) -> None:
        self.page.mouse.move(0, 0)  # no hover tooltip in the picture
        self.page.wait_for_timeout(800)  # let charts finish drawing
        assert self.shots is not None, "this tab was opened without a screenshot folder"
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000, f"{name}.png looks empty"


def test_full_workshop_path_in_chromium(server, browser, shots):
    # Tall viewport: a full-page screenshot of Streamlit captures only the viewport (DESIGN.md).
    context = browser.new_context(viewport={"width": 1400, "height": 2300})
    tab = WorkshopTab(context, server, shots).open()
    tab.shot("start")

    tab.open("agent").click("Run turn")
    assert 'read t7 at "v1", proposed {"priority": "high"}' in tab.text()
    tab.shot("agent")
    tab.click("Restart process")
    assert "Process restarted" in tab.text()
    tab.click("Resume")
    assert 'resumed with ticket t7: priority is high at "v2"' in tab.text()

    tab.open("conflicts").click("Run turn").click("Simulate concurrent edit").click("Resume")
    assert "412" in tab.text()
    assert "changed t7 after the agent read it" in tab.text()
    tab.shot("conflicts")

    tab.open("history")
    before = tab.checkpoints()
    tab.click("Previous").click("Previous").click("Replay from here")
    after_replay = tab.checkpoints()
    assert after_replay > before
    assert "new checkpoints on a new branch" in tab.text()
    tab.page.get_by_label(re.compile(r"^changes")).fill('{"priority": "low"}')
    tab.click("Fork with edit")
    assert tab.checkpoints() > after_replay
    assert tab.page.locator("svg g.node").count() >= 5  # the tree is drawn in the page
    tab.shot("history")

    for page in ("sizes", "schema"):
        tab.open(page)
        assert "Traceback" not in tab.text()
        tab.shot(page)

    tab.open("inspect").click("Open")  # the bundled sample database, read-only
    assert "sample-app.sqlite" in tab.text() and "Checkpoint #" in tab.text()
    # Its newest thread is the support chat, paused at the refund approval: a conversation.
    shown = tab.text()
    assert "tools asks: Approve a refund of $12.50 for order B22?" in shown
    assert "Where is my order A17?" in shown and "lookup_order(order_id='A17')" in shown
    tab.shot("inspect")
    with tab.page.expect_download() as download:
        tab.page.get_by_role("button", name="Download thread").click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["thread_id"] == "chat/refund" and len(exported["checkpoints"]) == 18
    context.close()


def test_inspect_upload_and_import_of_hostile_data_run_nothing(server, browser, tmp_path):
    path = hostile_db.write_sqlite(tmp_path / "theirs.sqlite", tmp_path)
    with sqlite3.connect(path) as conn:
        (tmp_path / "thread.json").write_text(
            dumps_export(export_thread(conn, hostile_db.THREAD)))
    conn.close()
    tab = WorkshopTab(browser.new_context(viewport={"width": 1400, "height": 2000}),
                      server).open("inspect")

    for label, upload in (("Upload a file", path), ("Import thread", tmp_path / "thread.json")):
        tab.page.get_by_role("tab", name=label).click()
        before = tab.runs
        tab.page.locator('[data-testid="stTabPanel"]:visible input[type="file"]').set_input_files(
            str(upload))
        tab._wait_for_run_after(before, f"uploading {upload.name}")
        shown = tab.text()
        assert f"Open: {upload.name}" in shown
        assert "approve asks: Approve a refund of $40 for order A17?" in shown, shown[-4000:]
        assert "charge failed: ValueError('card declined')" in shown
        for _ in range(len(hostile_db.IDS) - 1):
            tab.click("Previous")
            assert "Traceback" not in tab.text()
        assert "Where is my order A17?" in tab.text()
    assert hostile_db.canaries(tmp_path) == []


def test_two_browser_contexts_work_in_separate_workspaces(server, browser):
    first = WorkshopTab(browser.new_context(), server).open("agent")
    second = WorkshopTab(browser.new_context(), server).open("agent")

    first.click("Run turn")
    second.open("history")

    assert first.room != second.room
    assert "has no checkpoints yet" in second.text()
    first.open("history")
    assert first.checkpoints() == 4
