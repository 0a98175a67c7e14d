"""The timeline in Chromium tells a pause from running: a turn on the Agent page, two seconds
before Resume, then History's chart shows ``write`` running briefly after a wait of the pause's
length; the same for a breakpoint held on the Run page. The numbers are read from the chart's
marks (their aria-labels carry the tooltip's fields), not from a picture."""

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


def _marks(chart) -> list[dict[str, str]]:
    """Each mark's tooltip fields, as the drawing writes them into its aria-label."""
    found = []
    for label in chart.locator(".tl-mark[aria-label]").evaluate_all(
            "marks => marks.map(mark => mark.getAttribute('aria-label'))"):
        fields = dict(part.split(": ", 1) for part in label.split("; ") if ": " in part)
        found.append(fields)
    return found


def _runs_and_waits(chart, node: str) -> tuple[list[float], list[tuple[float, str]], list]:
    """The timeline's running seconds and its (seconds, note) waits on ``node``'s lane."""
    chart.locator(".tl-mark").first.wait_for()
    marks = [mark for mark in _marks(chart) if mark.get("node") == node]
    running = [float(m["seconds"]) for m in marks if m.get("what") == "running"]
    waiting = [(float(m["seconds"]), m.get("note")) for m in marks if m.get("what") == "waiting"]
    return running, waiting, marks


def test_a_turn_resumed_after_two_seconds_shows_write_running_briefly_after_a_wait(
        browser, shots, tmp_path):
    with playground_server(tmp_path) as url:
        tab = ShotTab(browser.new_context(viewport={"width": 1400, "height": 2200}), url).open()
        tab.open("agent").click("Run turn")
        assert "waiting for the user" in tab.text()
        tab.page.wait_for_timeout(2000)  # the pause under test: the person reads the proposal
        tab.click("Resume")
        assert "resumed with ticket t7" in tab.text()

        tab.open("history")
        shown = tab.text()
        heading = re.search(r"Where the time and tokens went · branch to #\d+: ran ([\d.]+) s, "
                            r"waited ([\d.]+) s, idle ([\d.]+) s", shown)
        assert heading, shown[:3000]
        assert float(heading.group(2)) >= 1.5 and float(heading.group(1)) < 1.5
        # The playground recorded the run's start: no step is left as "may include a pause".
        assert not re.search(r"\d+ steps? may include a pause", shown)
        chart = tab.page.locator(".tl").last
        running, waiting, write = _runs_and_waits(chart, "write")
        assert len(running) == 1 and running[0] < 0.5, write
        assert len(waiting) == 1 and waiting[0][0] >= 1.5 and waiting[0][1] == \
            "paused before write", write

        # The wait outweighs the running time: it starts folded, its real length in the label
        # drawn at its break; the toggle shows it, unfolds it, and folds it again.
        toggle = tab.page.get_by_role("switch", name="Fold long waits")
        assert toggle.is_checked()
        assert "1 long wait folded" in tab.text()
        assert re.fullmatch(r"\d+(\.\d)? s wait folded",
                            chart.locator(".tl-break-label").text_content())
        for folded in (False, True):
            before = tab.runs
            tab.page.get_by_text("Fold long waits").first.click()
            tab._wait_for_run_after(before, "folding long waits" if folded else "unfolding")
            assert toggle.is_checked() is folded
            assert ("1 long wait folded" in tab.text()) is folded
            assert chart.locator(".tl-break-label").count() == int(folded)
        chart.scroll_into_view_if_needed()
        tab.page.mouse.move(0, 0)
        shots.mkdir(parents=True, exist_ok=True)
        chart.screenshot(path=str(shots / "timeline-pause-folded.png"))


def test_a_breakpoint_held_two_seconds_on_run_is_a_wait_before_the_node(browser, tmp_path):
    """``Pause before`` tools on the Run page, two seconds, ``Continue``: History's timeline
    shows tools running briefly after a wait, not a two-second tools."""
    with playground_server(tmp_path, "--graph", f"{EXAMPLES}/support_chat.py:graph") as url:
        tab = ShotTab(browser.new_context(viewport={"width": 1400, "height": 2200}), url).open()
        tab.page.get_by_text("Breakpoints and settings").click()
        tab.choose("Pause before", "tools")
        tab.say("Where is my order A17?")
        assert "Paused before tools." in tab.text()
        tab.page.wait_for_timeout(2000)  # the pause under test: the person looks at the state
        tab.click("Continue")
        assert "Finished." in tab.text()

        tab.open("history")
        chart = tab.page.locator(".tl").last
        running, waiting, tools = _runs_and_waits(chart, "tools")
        assert len(running) == 1 and running[0] < 0.5, tools
        assert len(waiting) == 1 and waiting[0][0] >= 1.5 and waiting[0][1] == \
            "paused before tools", tools
