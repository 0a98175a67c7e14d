"""One graph per page, in its address (issue 51), on a real ``langgraph dev`` serving the two
examples: the second graph stays the page's after a sidebar link and a reload, and the pages
it reaches say their messages as plain text (no literal backticks)."""

from __future__ import annotations

import os

import pytest

from tests.playground.ui.browser import Tab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


def test_on_a_server_the_second_graph_survives_a_sidebar_link_and_a_reload(
        agent_server, browser, tmp_path):
    url, _ = agent_server
    with playground_server(tmp_path, "--workshop", "--server", url) as site:
        context = browser.new_context(viewport={"width": 1440, "height": 1500})
        tab = Tab(context.new_page(), site).open("run?graph=research")
        tab.page.get_by_label("topic · str").fill("addresses")
        tab.click("Run")
        assert "Finished." in tab.text()

        tab.follow_sidebar_link("History")
        for _ in range(2):
            assert "graph=research" in tab.page.url, tab.page.url
            assert "has no checkpoints yet" not in tab.text(), tab.text()[:2000]
            tab.tree_point(1).wait_for()
            tab.reload()

        tab.follow_sidebar_link("Sizes")
        shown = tab.text()
        assert "graph=research" in tab.page.url
        assert "`" not in shown and "Traceback" not in shown, shown[:2000]
        assert "Prune is not offered here" in shown
        context.close()
