"""The facilitator's board in Chromium: three attendees at different steps, one of them stuck on
a node that fails; the board shows each room's step and who is stuck, opens a room's History
read-only, and refuses anyone who is not the facilitator."""

from __future__ import annotations

import os
import re

import pytest

from playground.access.peers import public_address
from playground.testing.browser import Tab
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)

ECHO = '''\
"""A graph that says its text back, and fails on one word (a node made to fail)."""
from typing import TypedDict

from langgraph.graph import END, START, StateGraph


class State(TypedDict, total=False):
    text: str
    said: str


def echo(state: State) -> dict:
    if "boom" in state["text"]:
        raise ValueError("echo cannot say boom")
    return {"said": state["text"]}


builder = StateGraph(State)
builder.add_node("echo", echo)
builder.add_edge(START, "echo")
builder.add_edge("echo", END)
graph = builder.compile()
'''


def _attendee(browser, server: str, text: str, name: str = "") -> Tab:
    """An attendee who gives the board a name (when ``name``) and runs the graph on ``text``."""
    tab = Tab(browser.new_context(viewport={"width": 1400, "height": 1600}).new_page(),
              server).open()
    if name:
        box = tab.page.get_by_role("textbox", name="Your name")
        box.fill(name)
        before = tab.runs
        box.press("Enter")
        tab._wait_for_run_after(before, "giving a name")
    tab.page.get_by_label("text · str").fill(text)
    tab.click("Run")
    return tab


def _room_of(tab: Tab) -> str:
    return re.search(r"room=([a-z0-9-]+)", tab.page.url).group(1)


# The board's text once one whole draw of it is on the page, read in the same moment it is
# checked: its fragment redraws every few seconds, and a read in the middle of a redraw misses
# what was not sent again yet (the metrics' columns come back empty for a moment).
_WHOLE_BOARD = """() => {
    const main = document.querySelector("[data-testid='stMainBlockContainer']");
    if (!main) return null;
    const labels = [...main.querySelectorAll("[data-testid='stMetricLabel']")]
        .map(label => label.innerText);
    const text = main.innerText;
    const whole = text.includes("Redrawn every 5 s")
        && ["Rooms", "Finished the tour", "Stuck"].every(
            name => labels.some(label => label.includes(name)));
    return whole ? text : null;
}"""


def _board_text(tab: Tab) -> str:
    """The board's text once a whole draw of its rooms is shown."""
    try:
        found = tab.page.wait_for_function(_WHOLE_BOARD)
    except Exception:
        raise AssertionError(f"no board drawn; the page shows:\n{tab.text()[:3000]}") from None
    return found.json_value().replace("\u2060", "")


def test_the_board_shows_each_rooms_step_and_the_stuck_one_and_opens_history_read_only(
        browser, tmp_path, shots):
    (tmp_path / "echo.py").write_text(ECHO)
    with playground_server(tmp_path, "--workshop", "--graph",
                           f"{tmp_path / 'echo.py'}:graph") as server:
        _attendee(browser, server, "hello", "Ada")
        replayed = _attendee(browser, server, "hello again")
        replayed.open("history").click("Previous").click("Replay from here")
        failed = _attendee(browser, server, "boom", "Grace")
        assert "echo cannot say boom" in failed.text()

        facilitator = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1500}),
                              server, shots).open("board")  # this machine, loopback only
        shown = _board_text(facilitator)
        facilitator.shot("board")
        assert re.search(r"Rooms\s*3", shown) and re.search(r"Stuck\s*1", shown), shown
        room = _room_of(failed)
        assert f"Grace ({room}) is stuck: a node failed: echo failed: ValueError: echo cannot " \
            "say boom" in shown
        assert "1. Run it: 2 · 2. Answer it: 0 · 3. Fork it: 1 · 4. Weigh it: 0" in shown, \
            re.findall(r"1\. Run it[^\n]*", shown)

        # the room's History link, as the board's table holds it
        facilitator.visit(f"{server}/history?room={room}&view=read-only")
        shown = facilitator.text()
        assert "Read-only: no replay, resume or fork here." in shown, shown[:2000]
        assert "echo failed" in shown  # the attendee's thread, at its failed node
        assert facilitator.page.get_by_role("button", name="Replay from here").count() == 0
        # looking at a room does not make it the facilitator's own
        again = Tab(facilitator.page.context.new_page(), server).open("history")
        assert _room_of(again) != room


def test_the_board_refuses_a_browser_on_another_address_until_it_gives_the_key(
        browser, tmp_path):
    address = public_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    key = "facilitator-key-never-on-a-page-42"
    with playground_server(tmp_path, "--host", "0.0.0.0", "--no-token",
                           "--facilitator-key-env", "WORKSHOP_KEY",
                           env={"WORKSHOP_KEY": key}) as server:
        port = server.rsplit(":", 1)[1]
        base = f"http://{address}:{port}"
        attendee = Tab(browser.new_context().new_page(), base).open()
        attendee.page.goto(f"{base}/board")  # the server's sign-in page, nothing of any room
        shown = attendee.page.inner_text("body")
        assert "Facilitator key" in shown and "Rooms" not in shown

        attendee.page.get_by_label("Facilitator key").fill("a-guess")
        attendee.page.get_by_role("button", name="Open the board").click()
        assert "That is not the facilitator's key." in attendee.page.inner_text("body")

        attendee.page.get_by_label("Facilitator key").fill(key)
        before = attendee.runs
        attendee.page.get_by_role("button", name="Open the board").click()
        attendee._wait_for_run_after(before, "signing in")
        shown = _board_text(attendee)
        assert re.search(r"Rooms\s*\d", shown)
        assert key not in attendee.page.content()
    assert key not in (tmp_path / "playground.log").read_text()
