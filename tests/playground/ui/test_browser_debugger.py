"""The debugger in Chromium, as a developer starts it on their own machine: ``playground run
their.sqlite`` opens on the file's threads with no room anywhere, a thread cloned to work on
opens in History while the file stays as it was; with ``--graph`` the threads keep the ids typed,
and a thread exported as a test passes run from another folder."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3

import pytest

from playground.ui.inspect_access import SAMPLES_DIR
from tests.playground.test_regression import pytest_in
from tests.playground.ui.browser import Tab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tab(browser, server: str) -> Tab:
    return Tab(browser.new_context(viewport={"width": 1440, "height": 1500}).new_page(), server)


def test_run_on_a_file_opens_on_its_threads_and_a_clone_opens_in_history(browser, tmp_path):
    theirs = tmp_path / "their.sqlite"
    shutil.copy(SAMPLES_DIR / "sample-app.sqlite", theirs)
    before = _digest(theirs)
    with playground_server(tmp_path, str(theirs)) as server:
        tab = _tab(browser, server).visit(f"{server}/")

        shown = tab.text()
        assert shown.lstrip().startswith("search Inspect") or "Inspect\n" in shown[:40], \
            shown[:200]  # the first page is the file's threads
        assert f"Open: {theirs}" in shown and "page 1 · 7 threads" in shown, shown[:3000]
        assert "room" not in tab.page.url
        body = tab.page.inner_text("body")
        assert "Room code" not in body and "Join a room" not in body and "Debugger" in body

        tab.page.get_by_role("button", name="Clone to work on it").click()
        tab.click("Clone")

        assert "/history" in tab.page.url
        shown = tab.text()
        assert "Cloned thread chat/refund from" in shown
        assert "head · paused: tools asks" in shown
    with sqlite3.connect(tmp_path / "checkpoints.sqlite") as conn:
        copied = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert copied == {"chat/refund"}  # under the id the app gave it, no room in front
    assert _digest(theirs) == before  # the file it came from is as it was


def test_a_file_that_is_not_a_checkpoint_database_is_one_line_before_any_server(tmp_path):
    import subprocess
    import sys

    notes = tmp_path / "notes.sqlite"
    with sqlite3.connect(notes) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    said = subprocess.run([sys.executable, "-m", "playground.cli", "run", str(notes)],
                          capture_output=True, text=True, timeout=120)

    assert said.returncode == 2
    assert said.stderr.startswith("playground run: ") and "Traceback" not in said.stderr
    assert len(said.stderr.strip().splitlines()) == 1


def test_with_a_graph_the_ids_typed_are_the_ids_stored_and_an_export_runs_anywhere(
        browser, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(EXAMPLES / "support_chat.py", project / "support_chat.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with playground_server(tmp_path, "--graph", "support_chat.py:graph", cwd=project) as server:
        tab = _tab(browser, server).visit(f"{server}/run")
        tab.say("Where is my order A17?")
        tab.open("history")
        assert "room" not in tab.page.url
        assert tab.page.get_by_role("textbox", name="Thread").input_value() == "thread-1"
        with tab.page.expect_download() as download:
            tab.page.get_by_role("button", name="Export as test").click()
        exported = elsewhere / "test_thread_1.py"
        download.value.save_as(exported)
    with sqlite3.connect(tmp_path / "checkpoints.sqlite") as conn:
        stored = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert stored == {"thread-1"}

    ran = pytest_in(elsewhere, exported)  # saved and run in another folder than the project
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
