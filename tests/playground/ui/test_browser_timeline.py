"""The timeline in Chromium: History draws where the support chat's time and tokens went, and
selecting a bar selects that checkpoint in the tree."""

from __future__ import annotations

import os
import re

import pytest

from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


def test_history_draws_the_timeline_and_a_picked_bar_selects_its_checkpoint(browser, shots,
                                                                           tmp_path):
    with playground_server(tmp_path, "--graph", f"{EXAMPLES}/support_chat.py:graph") as url:
        tab = ShotTab(browser.new_context(viewport={"width": 1400, "height": 2200}), url,
                      shots).open()
        tab.say("where is my order A17?")
        tab.open("history")
        shown = tab.text()
        assert re.search(r"Where the time and tokens went · branch to #\d+: ran [\d.]+ s", shown)
        tokens = re.search(r"; (\d+) tokens in, (\d+) out", shown)
        assert tokens and int(tokens.group(1)) > 0 and int(tokens.group(2)) > 0
        for lane in ("triage", "assistant", "tools"):  # one lane per node
            assert f"\n{lane}\n" in shown
        assert "share of wall time" in shown  # the table per node
        chart = tab.page.locator(".tl").last
        chart.locator(".tl-mark").first.wait_for()
        assert tab.page.get_by_text("Checkpoint #6").count() >= 1  # the head, selected
        _picture(tab, shots)
        # The bar of the step that wrote #3 (the assistant's tool call): aria-label names it.
        bar = chart.locator('.tl-mark[aria-label*="checkpoint: #3;"]').first
        before = tab.runs
        bar.click()
        tab._wait_for_run_after(before, "picking a bar")
        tab.page.get_by_text("Checkpoint #3").first.wait_for()
        tab.shot("timeline")


def _picture(tab: ShotTab, shots) -> None:
    """The README's picture: the timeline's part of the page, from its line to its table."""
    tab.page.mouse.move(0, 0)
    tab.page.wait_for_timeout(800)  # the table and the chart finish drawing
    line = tab.page.get_by_text("Where the time and tokens went").first
    line.evaluate("node => node.scrollIntoView({block: 'start'})")  # the page scrolls inside
    tab.page.wait_for_timeout(300)
    top = line.bounding_box()
    chart = tab.page.locator(".tl").last.bounding_box()
    tab.page.screenshot(path=str(shots / "timeline-chart.png"), clip={
        "x": top["x"] - 16, "y": top["y"] - 16, "width": chart["width"] + 32,
        "height": 560})  # the line, the chart, the notes and the table per node
