"""The history tree in Chromium: click a checkpoint, move with the arrow keys, read the branch
labels and the legend, and reach the first of 10,000 checkpoints, drawn whole.

The support chat runs a question, then ``Edit and fork`` rewrites it: two branches History draws
side by side. The long thread is the pause graph's real checkpoints, run by LangGraph on a
SqliteSaver, repeated in SQL under new ids (a real graph takes minutes to write 10,000).
"""

from __future__ import annotations

import os
import re
import sqlite3
import uuid
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from tests.playground.timetravel import sample_graphs
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)

TREE = ".ht"


@pytest.fixture(scope="module")
def forked_chat(tmp_path_factory, browser):
    """A support chat thread with an edited fork, and the server that ran it."""
    with playground_server(tmp_path_factory.mktemp("chat"), "--workshop", "--graph",
                           f"{EXAMPLES}/support_chat.py:graph") as url:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1900}), url).open()
        tab.say("Where is my order A17?")
        tab.page.get_by_role("button", name="Edit and fork").first.click()
        before = tab.runs
        box = tab.page.get_by_label("Edited message", exact=True).last
        box.fill("Where is my order B22?")
        box.press("Control+Enter")
        tab._wait_for_run_after(before, "committing the edit")
        if not tab.page.get_by_text("Fork from here").first.is_visible():  # the rerun closed it
            tab.page.get_by_role("button", name="Edit and fork").first.click()
        tab.click("Fork from here")
        assert "Your order B22 is processing." in tab.text()
        tab.page.close()
        yield url, tab.room


def _history(browser, server: str, room: str, shots=None) -> ShotTab:
    tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1900}), server, shots)
    tab.room = room
    return tab.open("history")


def test_clicking_a_checkpoint_in_the_tree_opens_it_in_the_inspector(forked_chat, browser):
    tab = _history(browser, *forked_chat)
    assert "Checkpoint #3" not in tab.text()

    tab.click_tree(3)

    assert "Checkpoint #3" in tab.text()
    assert "checkpoint=" in tab.page.url  # the link points at it


def test_arrow_keys_move_the_selection_along_the_branch(forked_chat, browser):
    tab = _history(browser, *forked_chat)
    tab.click_tree(3)

    before = tab.runs
    tab.page.keyboard.press("ArrowDown")
    tab._wait_for_run_after(before, "pressing Down")
    assert "Checkpoint #2" in tab.text()

    before = tab.runs
    tab.page.keyboard.press("ArrowUp")
    tab._wait_for_run_after(before, "pressing Up")
    assert "Checkpoint #3" in tab.text()


def test_branch_labels_and_the_legend_are_drawn_in_readable_text(forked_chat, browser, shots):
    tab = _history(browser, *forked_chat, shots)
    tab.tree_point(tab.checkpoints()).wait_for()
    tree = tab.page.locator(TREE).first

    drawn = tree.inner_text()

    assert "head · finished · fork of #" in drawn and "(edited)" in drawn
    assert "finished · original run" in drawn
    for entry in ("checkpoints", "a node ran", "new input", "edited (update_state)", "lines",
                  "selected branch", "other branches", "marks", "selected"):
        assert entry in drawn, entry
    # 12 px text or larger, and no label runs past the tree's right edge
    sizes = tree.locator(".ht-row, .ht-legend").evaluate_all(
        "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert min(sizes) >= 12
    right = tree.bounding_box()["x"] + tree.bounding_box()["width"]
    for row in tree.locator(".ht-row").all():
        box = row.bounding_box()
        assert box["x"] + box["width"] <= right + 1
    tab.shot("history-tree")


def test_hovering_a_checkpoint_shows_its_id_node_step_source_time_and_size(forked_chat,
                                                                          browser):
    tab = _history(browser, *forked_chat)
    row = tab.tree_point(3)
    row.hover()

    tooltip = tab.page.locator(".ht-tooltip")
    tooltip.wait_for()
    said = tooltip.inner_text()
    for field in ("checkpoint", "id", "node", "step", "source", "time", "stored bytes",
                  "its branch"):
        assert field in said, field
    assert row.get_attribute("data-id") in said and "#3 " in said


def _long_thread(path, thread_id: str, checkpoints: int) -> None:
    """``checkpoints`` checkpoints in one chain: the pause graph's real rows of one turn,
    repeated under new time-ordered ids."""
    conn = sqlite3.connect(path, check_same_thread=False)
    graph = sample_graphs.pause_graph(SqliteSaver(conn))
    config = sample_graphs.config("seed")
    graph.invoke({"ticket": "t1"}, config)
    graph.invoke(None, config)
    rows = conn.execute("SELECT type, checkpoint, metadata FROM checkpoints "
                        "WHERE thread_id = 'seed' ORDER BY checkpoint_id").fetchall()
    parent, base = None, uuid.uuid1().time
    with conn:
        for n in range(checkpoints):
            type_, blob, metadata = rows[n % len(rows)]
            cid = str(uuid.UUID(int=(base + n) << 64 | 0x8000_0000_0000_0000 | n))
            conn.execute("INSERT INTO checkpoints VALUES (?, '', ?, ?, ?, ?, ?)",
                         (thread_id, cid, parent, type_, blob, metadata))
            parent = cid
    conn.close()


def test_a_ten_thousand_checkpoint_thread_is_drawn_whole_and_reaches_its_first(
        browser, tmp_path):
    _long_thread(tmp_path / "checkpoints.sqlite", "long", 10_000)
    spec = f"{Path(sample_graphs.__file__)}:pause"
    with playground_server(tmp_path, "--graph", spec) as url:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1900}), url)
        tab.open()
        tab.open("history?thread=/long")
        assert "10,000 checkpoints · 1 branch" in tab.text()
        assert "Checkpoint #10000" in tab.text()
        tab.tree_point(10_000).wait_for()  # drawn, its newest rows in view
        assert tab.page.locator(".ht-row").count() < 60  # only the rows in view are elements
        # a press at the foot of the strip (the whole thread) scrolls to the oldest rows,
        # without a run of the page
        strip = tab.page.locator(".ht-strip").bounding_box()
        runs = tab.runs
        tab.page.mouse.click(strip["x"] + strip["width"] / 2, strip["y"] + strip["height"] - 1)
        tab.tree_point(1).wait_for()
        assert tab.runs == runs

        tab.type_into("Go to checkpoint", "#1")

        shown = tab.text()
        assert re.search(r"Checkpoint #1(?!\d)", shown)
        tab.tree_point(1).wait_for()  # the tree scrolled to it
        assert tab.tree_point(1).get_attribute("aria-selected") == "true"
        # none of the old tree's notes: a run folded, checkpoints left out
        assert not re.search(r"collapsed|runs? folded|[\d,]+ not drawn", shown)
        tab.page.evaluate("document.activeElement.blur()")  # as a click away from the box
        before = tab.runs
        tab.page.keyboard.press("ArrowUp")  # and on along the branch from there
        tab._wait_for_run_after(before, "pressing Up")
        assert "Checkpoint #2" in tab.text()


def test_a_range_brushed_on_the_timeline_is_shown_alone_until_whole_branch(forked_chat,
                                                                            browser):
    tab = _history(browser, *forked_chat)
    timeline = tab.page.locator(".tl").first
    timeline.locator(".tl-mark").first.wait_for()
    timeline.scroll_into_view_if_needed()  # a pointer reaches only what is on the screen
    box = timeline.locator(".tl-ground").bounding_box()  # the plot, right of the lane names
    y = box["y"] + 13  # on the first lane

    before = tab.runs
    tab.page.mouse.move(box["x"] + box["width"] * 0.45, y)
    tab.page.mouse.down()
    tab.page.mouse.move(box["x"] + box["width"] * 0.75, y, steps=8)
    tab.page.mouse.up()
    tab._wait_for_run_after(before, "brushing a range")

    assert tab.page.get_by_role("button", name="Whole branch").is_visible()
    tab.click("Whole branch")
    assert not tab.page.get_by_role("button", name="Whole branch").is_visible()
