"""A chat whose messages live on LangGraph 1.2's DeltaChannel, opened in Inspect in a real
Chromium: the conversation LangGraph loads, at the head and before the last turn, with the line
that says how it was rebuilt; no stored marker type anywhere on the page."""

from __future__ import annotations

import sqlite3

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from tests.playground.timetravel import delta_graphs
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed")


def _chat_file(path) -> None:
    conn = sqlite3.connect(path, check_same_thread=False)
    delta_graphs.make_chat(SqliteSaver(conn), "m1", snapshot_frequency=3, turns=4, keep=100)
    conn.close()


def test_inspect_shows_a_delta_chat_as_langgraph_loads_it_at_the_head_and_before_the_last_turn(
        browser, tmp_path, shots):
    inspect = tmp_path / "inspect"
    inspect.mkdir()
    _chat_file(inspect / "delta.sqlite")
    with playground_server(tmp_path, env={"PLAYGROUND_INSPECT_DIR": str(inspect)}) as server:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 2200}), server,
                      shots).open()
        tab.open("inspect")
        tab.select("Database file", "inspect/delta.sqlite")
        tab.click("Open")
        tab.tree_point(16).wait_for()  # four turns of input, start, respond and trim
        bubbles = tab.page.locator('[data-testid="stChatMessage"]').locator("visible=true")

        assert bubbles.count() == 8
        assert "hello" in bubbles.first.inner_text()
        assert "echo: thanks" in bubbles.last.inner_text()
        shown = tab.text()
        assert "messages: rebuilt from the snapshot at #" in shown
        assert "LangGraph's messages reducer" in shown
        tab.shot("inspect-delta-chat")

        tab.click_tree(12)  # the third turn's end: six messages, before the last turn
        assert bubbles.count() == 6
        assert "echo: thanks" not in tab.text()
        tab.page.get_by_role("tab", name="Values").click()
        assert "DeltaSnapshot" not in tab.text() and "(empty)" not in tab.text()


def test_history_forks_a_delta_chat_in_the_middle_of_its_chain_and_the_fork_reads_right(
        browser, tmp_path, shots):
    with playground_server(tmp_path, "--graph", f"{EXAMPLES}/delta_chat.py:graph") as server:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 2400}), server,
                      shots).open()
        for said in ("hello", "where is my order?", "it was A17"):
            tab.say(said)
        tab.open("history")
        tab.tree_point(tab.checkpoints()).wait_for()
        # the second turn's end: its messages and notes are rebuilt from the chain
        tab.click_tree(8)
        assert "rebuilt from" in tab.text()
        tab.type_into("topic · str", "billing")  # a str: typed as text, no quotes
        tab.click("Fork with edit")

        shown = tab.text()
        assert "Forked #8" in shown and " · 2 branches · " in shown
        # The fork's head, as LangGraph loads it: the two turns kept, the notes folded by the
        # app's own reducer (the graph was named), nothing left as a stored marker.
        tab.page.get_by_role("tab", name="Values").click()
        values = tab.text()
        assert "DeltaSnapshot" not in values
        assert '"1. general: hello"' in values and '"2. general: where is my order?"' in values
        assert "folded by" not in values
        tab.shot("history-delta-fork")
