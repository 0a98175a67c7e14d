"""Inspect in Chromium on a production-shaped Postgres database (threads made by a real graph
on PostgresSaver, copied to 2,500, failures rare): the first page, the failed threads with the
metadata people filter by as columns, one opened on its failure and its metadata."""

from __future__ import annotations

import os

import pytest

from playground.testing.many_threads import make_postgres
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server
from tests.postgres import SKIP_REASON, database_url, throwaway_database

pytestmark = [
    pytest.mark.skipif(chromium_missing() and not os.environ.get("CI"),
                       reason="Debian chromium is not installed (bash .ci/run installs it)"),
    pytest.mark.skipif(not database_url(), reason=SKIP_REASON),
]


@pytest.fixture(scope="module")
def production():
    with throwaway_database() as url:
        yield url, make_postgres(url, 2_500, seeds=250, rare=True)


def test_inspect_lists_the_first_page_then_the_failed_threads_and_opens_one(
        production, browser, tmp_path, shots):
    url, expected = production
    failed = {t for t, seed in expected.items() if seed.kind == "failed"}
    with playground_server(tmp_path) as server:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1800}), server,
                      shots).open("inspect")
        tab.page.get_by_role("tab", name="Postgres URL").click()
        box = tab.page.get_by_role("textbox", name="Postgres URL")
        box.fill(url)
        tab.click("Connect")
        assert "page 1 · 50 threads" in tab.text()

        tab.select("Status", "failed")
        assert "status=failed" in tab.page.url  # the link says what the table shows
        assert f"page 1 · {len(failed)} threads" in tab.text()  # 0.4%: found whole at once
        # the metadata people filter by, as columns: each failed thread's user and channel
        chips = tab.page.locator('[data-testid="stMultiSelect"]').first.inner_text()
        assert "user" in chips and "channel" in chips
        tab.click_thread_row(2)

        shown = tab.text()
        box = tab.page.locator('[data-testid="stMainBlockContainer"] [data-testid="stSelectbox"]'
                               ).filter(has=tab.page.get_by_text("Thread", exact=True)).first
        picked = box.locator("input").first.input_value()  # the Thread box's value
        assert picked in failed, picked  # the row clicked: a failed thread
        assert "failed: LookupError" in shown  # the head's error
        assert tab.page.locator(".ht-row .ht-tip", has_text="failed").count() >= 1  # in the tree
        tab.shot("inspect-failed-threads")

        tab.page.get_by_role("tab", name="Metadata").click()
        seed = expected[picked]
        metadata = tab.text()
        assert f'user: "{seed.user}"' in metadata and f'channel: "{seed.channel}"' in metadata
