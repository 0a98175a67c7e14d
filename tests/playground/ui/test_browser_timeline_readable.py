"""The timeline in Chromium reads at first sight after a replay made a while after its run: the
idle time before the replay is folded from the start (a break marked with its length, one click
to unfold), a drag that starts at the plot's left edge or on a bar zooms, and a phone's narrow
axis has several readable ticks, each with its unit. Each check reads what a person sees: the
toggle, the texts drawn, the bars' widths on the screen."""

from __future__ import annotations

import itertools
import os
import re

import pytest

from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)

RUNNING = '.tl-mark[aria-label*="what: running;"]'
TICK_LABEL = re.compile(r"^\d[\d,]*(\.\d+)? (ms|s|min|h|days)$")


@pytest.fixture(scope="module")
def replayed(browser, tmp_path_factory):
    """A playground whose thread ran a whole turn, then was replayed from an earlier checkpoint
    a few seconds later (the person looked at it first): its URL and room."""
    with playground_server(tmp_path_factory.mktemp("replayed")) as url:
        context = browser.new_context(viewport={"width": 1400, "height": 2200})
        tab = ShotTab(context, url).open()
        tab.open("agent").click("Run turn")
        tab.click("Resume")
        tab.open("history")
        tab.click("Previous").click("Previous")
        tab.page.wait_for_timeout(2500)  # idle: the person reads the checkpoint, then replays
        tab.click("Replay from here")
        assert "new checkpoints on a new branch" in tab.text()
        context.close()
        yield url, tab.room


def _history(browser, replayed, width: int, shots=None) -> ShotTab:
    """The History page of the replayed thread in a new tab ``width`` px wide, its timeline
    drawn and in view."""
    url, room = replayed
    tab = ShotTab(browser.new_context(viewport={"width": width, "height": 1600}), url, shots)
    tab.room = room
    tab.open("history")
    chart = tab.page.locator(".tl").last
    chart.locator(".tl-mark").first.wait_for()
    chart.locator(".tl-ground").evaluate("node => node.scrollIntoView({block: 'center'})")
    tab.page.mouse.move(0, 0)
    return tab


def _folded(tab: ShotTab) -> bool:
    return tab.page.get_by_role("switch", name="Fold long waits").is_checked()


def _widest_running_share(tab: ShotTab) -> float:
    """The widest running bar's width, as a share of the plot's."""
    chart = tab.page.locator(".tl").last
    plot = chart.locator(".tl-ground").bounding_box()["width"]
    return max(box["width"] for box in chart.locator(RUNNING).evaluate_all(
        "marks => marks.map(mark => mark.getBoundingClientRect().toJSON())")) / plot


def _ticks(tab: ShotTab) -> list[dict]:
    """The axis' tick labels as drawn: each one's text and box on the screen."""
    return tab.page.locator(".tl").last.locator(".tl-axis .tick text").evaluate_all(
        "texts => texts.map(text => ({text: text.textContent, "
        "box: text.getBoundingClientRect().toJSON()}))")


def _click_and_wait(tab: ShotTab, locator, what: str) -> None:
    before = tab.runs
    locator.click()
    tab._wait_for_run_after(before, what)
    tab.page.mouse.move(0, 0)


def _drag(tab: ShotTab, from_x: float, to_x: float, y: float) -> None:
    """Press at ``from_x``, move to ``to_x`` in small steps, let go; wait for the page's run."""
    before = tab.runs
    tab.page.mouse.move(from_x, y)
    tab.page.mouse.down()
    for step in range(1, 11):
        tab.page.mouse.move(from_x + (to_x - from_x) * step / 10, y)
    tab.page.mouse.up()
    tab._wait_for_run_after(before, "dragging across the timeline")
    tab.page.locator(".tl").last.locator(".tl-mark").first.wait_for()


def test_after_a_replay_the_idle_time_starts_folded_behind_a_marked_break_that_unfolds_on_click(
        browser, replayed, shots):
    tab = _history(browser, replayed, 1440, shots)
    chart = tab.page.locator(".tl").last

    assert _folded(tab)  # on from the start: the toggle says so
    label = chart.locator(".tl-break-label")
    assert label.count() == 1
    assert re.fullmatch(r"\d+(\.\d)? s idle folded", label.text_content()), label.text_content()
    assert "1 long wait folded" in tab.text()
    assert _widest_running_share(tab) > 0.2  # the steps are bars one reads, not slivers
    chart.scroll_into_view_if_needed()
    chart.screenshot(path=str(shots / "timeline-replay-folded.png"))

    _click_and_wait(tab, label, "clicking the fold's break")

    assert not _folded(tab)  # one click unfolded, and the toggle shows it
    assert chart.locator(".tl-break-label").count() == 0
    assert "long wait folded" not in tab.text()
    assert _widest_running_share(tab) < 0.1  # at real scale the idle time dwarfs the steps


def test_a_drag_that_starts_at_the_plots_left_edge_or_on_a_bar_there_zooms(browser, replayed):
    tab = _history(browser, replayed, 1440)
    ground = tab.page.locator(".tl").last.locator(".tl-ground").bounding_box()
    y = ground["y"] + 13  # the first lane's middle
    whole = _widest_running_share(tab)

    # From the plot's left edge, a few pixels outside it, to its middle.
    _drag(tab, ground["x"] - 3, ground["x"] + ground["width"] / 2, y)

    assert tab.page.get_by_role("button", name="Whole branch").count() == 1
    assert _widest_running_share(tab) > 1.5 * whole  # the dragged range fills the plot

    _click_and_wait(tab, tab.page.get_by_role("button", name="Whole branch"), "Whole branch")
    assert tab.page.get_by_role("button", name="Whole branch").count() == 0

    # From x = 0, over the first step's bar.
    start = ground["x"] + 1
    pressed = tab.page.evaluate(f"document.elementFromPoint({start}, {y}).getAttribute('class')")
    assert "tl-mark" in pressed  # the press lands on a bar
    _drag(tab, start, ground["x"] + ground["width"] / 2, y)

    assert tab.page.get_by_role("button", name="Whole branch").count() == 1
    assert _widest_running_share(tab) > 1.5 * whole


def test_at_390_px_the_axis_shows_at_least_four_readable_ticks_folded_or_not(
        browser, replayed, shots):
    tab = _history(browser, replayed, 390, shots)
    chart = tab.page.locator(".tl").last

    for folded in (True, False):
        assert _folded(tab) is folded
        ticks = _ticks(tab)
        texts = [tick["text"] for tick in ticks]
        assert len(ticks) >= 4, texts
        assert all(TICK_LABEL.match(text) for text in texts), texts  # a number and its unit
        for before, after in itertools.pairwise(ticks):  # apart, left to right
            assert before["box"]["right"] + 2 <= after["box"]["left"], texts
        assert all(tick["box"]["left"] >= 0 and tick["box"]["right"] <= 390 for tick in ticks)
        title = chart.locator(".tl-axis-title").bounding_box()
        assert title["x"] >= 0 and title["x"] + title["width"] <= 390  # not cut
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(shots / f"timeline-390-{'folded' if folded else 'real'}.png"))
        if folded:
            _click_and_wait(tab, tab.page.get_by_text("Fold long waits").first,
                            "turning Fold long waits off")
