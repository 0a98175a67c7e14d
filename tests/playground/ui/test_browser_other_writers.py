"""A LangGraph.js file in a real Chromium: Inspect opens it, draws its checkpoint tree with the
forks, and a waiting thread shows the question with the node that asked it."""

from __future__ import annotations

import shutil

import pytest

from tests.playground.places.other_writers import JS_FILE, JS_QUESTION
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed")


def test_a_js_file_opens_in_inspect_with_its_tree_and_question_in_chromium(
        browser, tmp_path, shots):
    inspect = tmp_path / "inspect"
    inspect.mkdir()
    shutil.copyfile(JS_FILE, inspect / "from-js.sqlite")
    with playground_server(tmp_path, env={"PLAYGROUND_INSPECT_DIR": str(inspect)}) as server:
        tab = ShotTab(browser.new_context(viewport={"width": 1400, "height": 2200}), server,
                      shots).open()
        tab.open("inspect")
        tab.select("Database file", "inspect/from-js.sqlite")
        tab.click("Open")
        assert "written by LangGraph.js (JSON)" in tab.text()

        tab.select("Thread", "chat")
        tab.tree_point(13).wait_for()  # drawn in the browser after the run
        assert "13 checkpoints · 3 branches" in tab.text()

        tab.select("Thread", "waiting")
        # the inspector's signal (the thread table's "why" cell says it too, in the grid's
        # hidden copy for screen readers)
        tab.page.get_by_text(f"asks: {JS_QUESTION}").locator("visible=true").first.wait_for()
        assert f"approve asks: {JS_QUESTION}" in tab.text()
        tab.shot("inspect-langgraphjs")
