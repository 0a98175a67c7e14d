"""Inspect's header is the thread shown, in a real Chromium: after each filter change, row click
and page turn, the **Thread** box names the thread whose tree, details and **Download thread**
are below it (the file a download gives is that thread's export), or, when the filtered list is
empty, none of them is shown. On a production-shaped SQLite file made by the real saver
(playground/testing/many_threads.py: 300 threads, a quarter each finished, paused, failed and
forked, newest first in the order they were written)."""

from __future__ import annotations

import json

import pytest

from playground.testing.many_threads import make_sqlite
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(chromium_missing(), reason="Debian's chromium is not installed")
THREADS, SEEDS = 300, 40


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    """(the folder Inspect lists, each thread's seed, the threads newest first)."""
    folder = tmp_path_factory.mktemp("header") / "inspect"
    folder.mkdir()
    expected = make_sqlite(folder / "app.sqlite", THREADS, seeds=SEEDS)
    return folder, expected, list(reversed(expected))


def _box(tab: ShotTab):
    return tab.page.locator('[data-testid="stMainBlockContainer"] [data-testid="stSelectbox"]'
                            ).filter(has=tab.page.get_by_text("Thread", exact=True))


def _shows(tab: ShotTab, thread: str, expected: dict, tmp_path) -> None:
    """The header names ``thread``, and the tree, details and download below it are its."""
    box = _box(tab)
    assert box.count() == 1
    assert box.locator("input").first.input_value() == thread  # what the box says
    seed = expected[thread]
    shown = tab.text()
    # the details: a failed thread's error, a paused one's question, neither for the rest
    assert ("failed: LookupError" in shown) == (seed.kind == "failed"), (thread, seed.kind)
    assert ("Approve a refund" in shown) == (seed.kind == "paused"), (thread, seed.kind)
    tips = tab.page.locator(".ht-row .ht-tip", has_text="failed").count()
    assert (tips > 0) == (seed.kind == "failed")  # the tree's tip says it too
    if seed.kind != "forked":  # a fork's head was written by update_state, not the run
        tab.page.get_by_role("tab", name="Metadata").click()
        assert f'user: "{seed.user}"' in tab.text()  # the head's metadata: the run's user
    with tab.page.expect_download() as download:
        tab.page.get_by_role("button", name="Download thread").click()
    assert download.value.suggested_filename == f"{thread}.json"
    saved = tmp_path / "download.json"
    download.value.save_as(saved)
    assert json.loads(saved.read_text())["thread_id"] == thread


def _shows_none(tab: ShotTab) -> None:
    """An empty list: no box, no tree, no details, no download."""
    assert _box(tab).count() == 0
    assert tab.page.get_by_role("button", name="Download thread").count() == 0
    assert tab.page.locator(".ht-row").count() == 0
    assert "No thread matches these filters." in tab.text()


def test_inspect_header_names_the_thread_shown_after_each_filter_change_row_click_and_page(
        browser, listed, tmp_path):
    folder, expected, newest_first = listed
    failed = [t for t in newest_first if expected[t].kind == "failed"]
    paused = [t for t in newest_first if expected[t].kind == "paused"]
    forked = [t for t in newest_first if expected[t].kind == "forked"]
    with playground_server(tmp_path, env={"PLAYGROUND_INSPECT_DIR": str(folder)}) as server:
        tab = ShotTab(browser.new_context(viewport={"width": 1440, "height": 2000},
                                          accept_downloads=True), server).open()
        tab.open("inspect")
        tab.select("Database file", "inspect/app.sqlite")
        tab.click("Open")
        _shows(tab, newest_first[0], expected, tmp_path)

        tab.select("Status", "failed")  # the thread shown is not failed: the list's first is
        _shows(tab, failed[0], expected, tmp_path)
        tab.click_thread_row(2)
        _shows(tab, failed[2], expected, tmp_path)

        tab.select("Status", "paused")  # the clicked failed thread is not in this list
        _shows(tab, paused[0], expected, tmp_path)
        tab.click_thread_row(1)
        _shows(tab, paused[1], expected, tmp_path)

        tab.type_into("Text", forked[3][:8])  # a forked thread's id: no paused thread has it
        _shows_none(tab)
        tab.select("Status", "any")  # the same id's start, any status: that thread
        _shows(tab, forked[3], expected, tmp_path)

        assert forked[3] in newest_first[:50]
        tab.type_into("Text", "")  # every thread again: the thread shown is still listed
        _shows(tab, forked[3], expected, tmp_path)
        tab.click_thread_row(0)
        _shows(tab, newest_first[0], expected, tmp_path)
        tab.click("Older threads")  # the next page does not hold it: the page's first is shown
        _shows(tab, newest_first[50], expected, tmp_path)
