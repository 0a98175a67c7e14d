"""Every page renders without an exception, on an empty workspace and on a populated one."""

from __future__ import annotations

import pytest

PAGES = ["start", "agent", "history", "conflicts", "sizes", "schema", "inspect"]


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_an_empty_workspace(app, page):
    at = app()

    at.switch_page(f"views/{page}.py").run()

    assert not at.exception, at.exception


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_on_a_populated_workspace(app, ui, page):
    at = app()
    at.switch_page("views/agent.py").run()
    ui.button(at, "Run turn").click().run()
    ui.button(at, "Resume").click().run()
    ui.button(at, "Run turn").click().run()  # a finished turn, then a paused one

    at.switch_page(f"views/{page}.py").run()

    assert not at.exception, at.exception
    assert at.title, "every page has a title"
