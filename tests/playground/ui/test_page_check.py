"""The page check: every page of both tours, walked in Chromium at 1440 px and at 390 px.

The walk does each tour's steps as an attendee does them (so the pages show real threads, a
412, a replay, a fork, a repair), then opens every page again on a phone-sized screen. It fails
on a request to another host, a 4xx or 5xx from the playground's server (but the two Streamlit
makes that docs/security.md names), an exception box or dialog, text that reads as code (an
escaped or doubled quote outside the As JSON viewer, ``_DeltaSnapshot``, ``<class``, a function
name in a heading), a label cut with no way to read it whole, and a tab beyond its row's edge.
A table's cells are drawn on a canvas: a cell too long for its column opens whole in the grid's
overlay (pick it and press Enter, or double-click), checked once on the Conflicts page's write
timeline.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.playground.ui.browser import Tab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES
from tests.playground.ui.page_check import PageCheck

pytestmark = [
    pytest.mark.skipif(chromium_missing() and not os.environ.get("CI"),
                       reason="Debian chromium is not installed (bash .ci/run installs it)"),
    pytest.mark.page_check,  # in the fast lane too (make check)
]

WIDE, PHONE = 1440, 390
TICKET_PAGES = ("", "agent", "conflicts", "history", "sizes", "schema", "inspect", "board")
OWN_GRAPH_PAGES = ("", "start", "history", "memory", "sizes", "inspect")  # "" is Run


def _tab(browser, server: str, width: int, room: str | None = None) -> tuple[Tab, PageCheck]:
    phone = width < 500
    context = browser.new_context(viewport={"width": width, "height": 1600},
                                  is_mobile=phone, has_touch=phone)
    check = PageCheck(context, server)
    return Tab(context.new_page(), server, room), check


def _looked(tab: Tab, check: PageCheck, where: str) -> Tab:
    check.look(tab.page, where)
    return tab


def _each_page_on_a_phone(browser, server: str, room: str, pages: tuple[str, ...]
                          ) -> list[str]:
    tab, check = _tab(browser, server, PHONE, room)
    for page in pages:
        _looked(tab.open(page), check, f"/{page} at {PHONE} px")
    tab.page.context.close()
    return check.problems


def _a_cut_cell_opens_whole(tab: Tab) -> None:
    """A table's cell too long for its column (the write timeline's last column, why) is read
    whole in the grid's own overlay: pick the cell, press Enter (or double-click it), as every
    table's cells are."""
    grid = tab.page.locator('[data-testid="stDataFrame"]').first
    cell = grid.locator('td[aria-colindex="7"]').first
    whole = cell.text_content()
    box = grid.bounding_box()
    # The grid's first click may only take the focus: click until the cell says it is picked.
    for _ in range(3):
        tab.page.mouse.click(box["x"] + box["width"] - 40, box["y"] + 52)  # row 1, why
        try:
            tab.page.wait_for_function(
                "cell => cell.getAttribute('aria-selected') === 'true'", arg=cell.element_handle(),
                timeout=2000)
            break
        except Exception:  # Playwright's TimeoutError: not picked yet
            continue
    tab.page.keyboard.press("Enter")
    overlay = tab.page.locator("textarea.gdg-input")
    overlay.wait_for()
    assert overlay.input_value() == whole
    tab.page.keyboard.press("Escape")


def test_every_page_of_the_workshop_tour_reads_as_words_and_asks_only_its_server(
        browser, tmp_path):
    with playground_server(tmp_path) as server:
        tab, check = _tab(browser, server, WIDE)
        tab.open()
        for page in TICKET_PAGES:  # an empty room first: nothing done yet
            _looked(tab.open(page), check, f"/{page} (empty room)")

        tab.open("agent")
        for action in ("Run turn", "Restart process", "Resume", "Run turn"):
            _looked(tab.click(action), check, f"Agent after {action}")
        tab.open("conflicts")
        for action in ("Run turn", "Simulate concurrent edit", "Resume"):
            _looked(tab.click(action), check, f"Conflicts after {action}")
        _a_cut_cell_opens_whole(tab)
        tab.open("history")
        _looked(tab.click("Previous").click("Previous").click("Replay from here"), check,
                "History after a replay")
        tab.click("Previous")
        tab.page.get_by_label(re.compile(r"^changes")).fill('{"priority": "low"}')
        _looked(tab.click("Fork with edit"), check, "History after a fork")
        _looked(tab.open("sizes").click("Compare"), check, "Sizes after Compare")
        tab.open("schema")
        for action in ("Pause a thread under etag", "Deploy the rename and resume",
                       "Pause a thread and resume with both keys",
                       "Preview the repair (dry run)", "Apply the repair",
                       "Resume with the version schema"):
            _looked(tab.click(action), check, f"Schema after {action}")
        _looked(tab.open("inspect").click("Open"), check, "Inspect with the sample open")
        for page in TICKET_PAGES:
            _looked(tab.open(page), check, f"/{page} at {WIDE} px")
        assert "8 of 8 steps done in this room" in tab.open("").text()
        problems = check.problems + _each_page_on_a_phone(browser, server, tab.room,
                                                          TICKET_PAGES)

    assert problems == [], "\n".join(problems)


def test_every_page_of_the_own_graph_tour_reads_as_words_and_asks_only_its_server(
        browser, tmp_path):
    # the own-graph tour is the workshop's (a debugger has none)
    with playground_server(tmp_path, "--workshop", "--graph",
                           f"{EXAMPLES}/support_chat.py:graph") as server:
        tab, check = _tab(browser, server, WIDE)
        tab.open()
        for page in OWN_GRAPH_PAGES:
            _looked(tab.open(page), check, f"/{page} (empty room)")

        tab.open("")
        _looked(tab.say("Please refund A17"), check, "Run at the refund question")
        box = tab.page.get_by_label("Answer", exact=True).last
        box.fill("yes")
        before = tab.runs
        box.press("Control+Enter")
        tab._wait_for_run_after(before, "committing the answer")
        _looked(tab.click("Resume"), check, "Run after the answer")
        tab.open("history")
        _looked(tab.click("Previous").click("Replay from here"), check, "History after a replay")
        _looked(tab.segment("Compare"), check, "History's Compare")
        _looked(tab.open("inspect").click("Open"), check, "Inspect with the sample open")
        for page in OWN_GRAPH_PAGES:
            _looked(tab.open(page), check, f"/{page} at {WIDE} px")
        assert "3 of 4 steps done in this room" in tab.open("start").text()
        problems = check.problems + _each_page_on_a_phone(browser, server, tab.room,
                                                          OWN_GRAPH_PAGES)

    assert problems == [], "\n".join(problems)


# Each slip the page check guards against, on one hand-made page served at a made-up address
# (the check itself under test: it must name every one, and nothing in the JSON viewer).
SLIPS = """<html><body><div data-testid="stMainBlockContainer">
<h3><span style="font-family: 'Material Symbols Rounded'">schema</span>
  Threads find_stranded cannot resume</h3>
<p>etag: "\\"v2\\""</p>
<input value='"\\"v2\\""'>
<p>"etag" : ""v1""</p>
<p>outcome: &lt;class 'dict'&gt;</p>
<p>messages: _DeltaSnapshot(value=[])</p>
<div data-testid="stException">Traceback</div>
<p style="width: 60px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis">
  Postgres URL of the database</p>
<div data-testid="stTabs"><div role="tablist" style="display: flex; width: 120px;
  overflow: hidden"><div role="tab" style="flex: none; width: 90px">Folder</div>
  <div role="tab" style="flex: none; width: 90px">Postgres URL</div></div></div>
<div data-testid="stJson">{"etag": "\\"v2\\""}</div>
<img src="http://fonts.elsewhere.test/icon.png">
<script>fetch('/missing'); fetch('/agent/_stcore/health');</script>
</div></body></html>"""


def test_the_page_check_names_each_slip_and_spares_the_json_viewer(browser):
    own = "http://playground.test"
    context = browser.new_context()
    check = PageCheck(context, own)

    def serve(route):
        path = route.request.url.removeprefix(own)
        if not route.request.url.startswith(own):
            route.abort()
        elif path == "/":
            route.fulfill(status=200, content_type="text/html", body=SLIPS)
        else:
            route.fulfill(status=404, body="not found")

    context.route("**/*", serve)
    page = context.new_page()
    page.goto(own + "/")
    page.wait_for_load_state("networkidle")
    check.look(page, "slips")
    context.close()
    said = "\n".join(check.problems)

    assert "a request to another host: http://fonts.elsewhere.test/icon.png" in said
    assert "404 from the app's server: /missing" in said
    assert "/agent/_stcore/health" not in said  # Streamlit's own, named in docs/security.md
    assert "an identifier in a heading (find_stranded)" in said
    assert "schema" not in said.split("find_stranded")[0]  # the icon's word is no text
    # the line, the field and the doubled quotes, not the JSON viewer
    assert said.count("an escaped or doubled quote") == 3
    assert "code on the page (<class)" in said and "code on the page (_DeltaSnapshot)" in said
    assert "1 exception box(es)" in said
    assert "text cut with no way to read it whole: 'Postgres URL of the database'" in said
    assert "a tab beyond the edge of its row: 'Postgres URL'" in said
    assert len(check.problems) == 11, said
