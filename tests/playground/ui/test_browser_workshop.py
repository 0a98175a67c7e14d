"""The workshop path in a real browser: Debian Chromium driven by Playwright, against
``playground run`` started as users start it (its own process, embedded API, SQLite file).

Screenshots of every page are taken and checked on every run; ``make screenshots`` keeps them
in assets/screenshots/ for the README (a plain test run leaves the source tree alone).
"""

from __future__ import annotations

import json
import os
from contextlib import closing
from pathlib import Path

import pytest

from playground.places.door import open_storage
from playground.timetravel.transfer import dumps_export, export_thread
from tests.playground import hostile_db
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``playground run`` on a free port with its own checkpoint and ticket files."""
    with playground_server(tmp_path_factory.mktemp("browser")) as url:
        yield url


def test_full_workshop_path_in_chromium(server, browser, shots):
    # Tall viewport: a full-page screenshot of Streamlit captures only the viewport
    # (docs/architecture.md).
    context = browser.new_context(viewport={"width": 1400, "height": 2300})
    tab = ShotTab(context, server, shots).open()
    tab.shot("start")
    # After each action: no banner of the step before, no green box for a failure, no label
    # cut short (issue 29's walk).
    seen = tab.reads_as_one_page()

    tab.open("agent").click("Run turn")
    assert 'read t7 at "v1", proposed {"priority": "high"}' in tab.text()
    seen = tab.reads_as_one_page()
    tab.shot("agent")
    tab.click("Restart process")
    assert "Process restarted" in tab.text()
    seen = tab.reads_as_one_page()
    tab.click("Resume")
    assert 'resumed with ticket t7: priority is high at "v2"' in tab.text()
    seen = tab.reads_as_one_page()

    tab.open("conflicts")
    seen = tab.reads_as_one_page(seen)  # the Agent page's "resumed with ticket" stays there
    for action in ("Run turn", "Simulate concurrent edit", "Resume"):
        tab.click(action)
        seen = tab.reads_as_one_page()
    assert "412" in tab.text()
    assert "changed t7 after the agent read it" in tab.text()
    tab.shot("conflicts")
    tab.click("Resume one paused thread twice at once")  # its own fragment, then the page
    assert "2 branches from the paused checkpoint" in tab.text()
    assert "agent conflict-race" in tab.text()  # its writes are on the timeline above
    seen = tab.reads_as_one_page()

    tab.open("history")
    seen = tab.reads_as_one_page(seen)
    before = tab.checkpoints()
    tab.click("Previous").click("Previous").click("Replay from here")
    after_replay = tab.checkpoints()
    assert after_replay > before
    assert "new checkpoints on a new branch" in tab.text()
    seen = tab.reads_as_one_page()
    tab.type_into("changes · dict | None", '{"priority": "low"}')  # a dict: JSON
    tab.click("Fork with edit")
    assert tab.checkpoints() > after_replay
    seen = tab.reads_as_one_page()  # a fork whose write got a 412 is no green box
    tab.tree_point(tab.checkpoints()).wait_for()  # the newest row, drawn after the run
    tab.shot("history")
    tab.segment("Compare")  # the two newest branches, the fork's and the replay's
    shown = tab.text()
    assert "Common ancestor: #" in shown and "First difference at step " in shown
    tab.segment("Explore")
    assert "Checkpoint #" in tab.text()

    for page in ("sizes", "schema"):
        tab.open(page)
        assert "Traceback" not in tab.text()
        seen = tab.reads_as_one_page(seen)  # History's fork message stays on History
        tab.shot(page)

    tab.open("inspect").click("Open")  # the bundled sample database, read-only
    seen = tab.reads_as_one_page(seen)
    assert "sample-app.sqlite" in tab.text() and "Checkpoint #" in tab.text()
    # Its newest thread is the support chat, paused at the refund approval: a conversation.
    shown = tab.text()
    assert "tools asks: Approve a refund of $12.50 for order B22?" in shown
    assert "Where is my order A17?" in shown and 'lookup_order(order_id="A17")' in shown
    tab.shot("inspect")
    with tab.page.expect_download() as download:
        tab.page.get_by_role("button", name="Download thread").click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["thread_id"] == "chat/refund" and len(exported["checkpoints"]) == 18
    # The chat's edited-message fork against its original, message by message.
    tab.segment("Compare")
    shown = tab.text()
    assert ("First difference at step 1 after the common ancestor: the left branch runs input, "
            "the right runs update_state") in shown
    assert "+ human: Please refund B22" in shown  # the final states, message by message
    assert tab.page.locator('[data-testid="stDataFrame"]').count() >= 2  # threads, then steps
    tab.shot("compare")
    context.close()


def test_inspect_upload_and_import_of_hostile_data_run_nothing(server, browser, tmp_path):
    path = hostile_db.write_sqlite(tmp_path / "theirs.sqlite", tmp_path)
    with closing(open_storage(path)) as storage:
        (tmp_path / "thread.json").write_text(
            dumps_export(export_thread(storage, hostile_db.THREAD)))
    tab = ShotTab(browser.new_context(viewport={"width": 1400, "height": 2000}),
                      server).open("inspect")

    for label, upload in (("Upload a file", path), ("Import thread", tmp_path / "thread.json")):
        another = tab.page.get_by_text("Open another database")
        if another.count():  # a database is open: the ways in are folded under it
            another.click()
        tab.page.get_by_role("tab", name=label).click()
        before = tab.runs
        tab.page.locator('[data-testid="stTabPanel"]:visible input[type="file"]').set_input_files(
            str(upload))
        tab._wait_for_run_after(before, f"uploading {upload.name}")
        # the upload holds a plain thread too, written after the hostile one (listed first)
        box = tab.page.locator('[data-testid="stMainBlockContainer"] [data-testid="stSelectbox"]'
                               ).filter(has=tab.page.get_by_text("Thread", exact=True)).first
        if box.locator("input").first.input_value() != hostile_db.THREAD:
            tab.select("Thread", hostile_db.THREAD)
        shown = tab.text()
        assert f"Open: {upload.name}" in shown
        assert "approve asks: Approve a refund of $40 for order A17?" in shown, shown[-4000:]
        assert "charge failed: ValueError('card declined')" in shown
        for _ in range(len(hostile_db.IDS) - 1):
            tab.click("Previous")
            assert "Traceback" not in tab.text()
        assert "Where is my order A17?" in tab.text()
    assert hostile_db.canaries(tmp_path) == []


def test_a_click_in_the_agent_panel_runs_the_request_typed_above_it(server, browser):
    # Run turn reruns only the panel below the Request box (a fragment): the browser still
    # sends what the box holds.
    tab = ShotTab(browser.new_context(), server).open("agent")
    tab.type_into("Request", "set t3 priority to low").click("Run turn")

    assert 'read t3 at "v1", proposed {"priority": "low"}' in tab.text()
    tab.type_into("Request", "assign t2 to dara").click("Run turn")
    assert "read t2" in tab.text() and '"assignee": "dara"' in tab.text()


def test_two_browser_contexts_work_in_separate_workspaces(server, browser):
    first = ShotTab(browser.new_context(), server).open("agent")
    second = ShotTab(browser.new_context(), server).open("agent")

    first.click("Run turn")
    second.open("history")

    assert first.room != second.room
    assert "has no checkpoints yet" in second.text()
    first.open("history")
    assert first.checkpoints() == 4
