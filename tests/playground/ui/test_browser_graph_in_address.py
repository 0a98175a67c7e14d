"""One graph per page, in its address (issue 51), in Chromium: on a playground serving the
examples' langgraph.json (two graphs), the second graph picked stays the page's graph after a
click on the sidebar's History link, a reload, and the page's address opened in a new tab."""

from __future__ import annotations

import os

import pytest

from tests.playground.ui.browser import Tab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


def _shows_research_thread(tab: Tab) -> None:
    """History shows research's thread-1 (its checkpoints, drawn from research's steps), and
    the sidebar and the address name research."""
    shown = tab.text()
    assert "has no checkpoints yet" not in shown, shown[:2000]
    tab.tree_point(1).wait_for()
    assert "graph=research" in tab.page.url and "thread=thread-1" in tab.page.url, tab.page.url
    picker = tab.page.locator('[data-testid="stSelectbox"]').filter(has_text="Graph").first
    assert picker.locator("input").first.input_value() == "research"
    tree = tab.page.locator(".ht-row").all_inner_texts()
    assert any("review" in row for row in tree), tree
    assert not any("assistant" in row for row in tree), tree


def test_the_second_graph_stays_after_a_sidebar_link_a_reload_and_a_new_tab(browser, tmp_path):
    with playground_server(tmp_path, "--workshop", "--config",
                           str(EXAMPLES / "langgraph.json")) as server:
        context = browser.new_context(viewport={"width": 1440, "height": 1500})
        tab = Tab(context.new_page(), server).open("run")
        tab.select("Graph", "research")
        tab.page.get_by_label("topic · str").fill("checkpoints")
        tab.click("Run")
        assert "Finished." in tab.text()

        tab.follow_sidebar_link("History")
        _shows_research_thread(tab)

        tab.reload()
        _shows_research_thread(tab)

        bookmark = Tab(context.new_page(), server).visit(tab.page.url)  # a new tab
        _shows_research_thread(bookmark)
        context.close()
