"""Crafted databases and links in a real browser: shown as the literal text they hold, never
fetched, never signed-in without the key, and a slow read in one tab holds no other tab.

A local "pixel" server counts every request: a page that rendered a database's markdown
image, HTML image or link would make Chromium fetch it.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import ormsgpack
import pytest

from playground.access.peers import public_address
from playground.server_process import free_port
from tests.playground import hostile_cases as cases
from tests.playground.ui.browser import (
    ShotTab,
    Tab,
    chromium_missing,
    playground_server,
    printed_room_url,
)

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


@pytest.fixture
def pixel():
    """A local server that only counts the requests it gets; yields (URL, requests list)."""
    seen: list[str] = []

    class Count(BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Count)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()


def _tab(browser, server) -> ShotTab:
    return ShotTab(browser.new_context(viewport={"width": 1400, "height": 2200}), server).open()


def test_a_database_whose_every_text_is_markup_shows_it_literally_and_fetches_nothing(
        browser, tmp_path, pixel):
    url, seen = pixel
    inspect = tmp_path / "inspect"
    inspect.mkdir()
    cases.write_markup(inspect / "markup.sqlite", f"{url}/pixel.png")
    with playground_server(tmp_path, env={"PLAYGROUND_INSPECT_DIR": str(inspect)}) as server:
        tab = _tab(browser, server)
        tab.open("inspect")
        tab.select("Database file", "inspect/markup.sqlite")
        tab.click("Open")
        tab.page.get_by_role("tab", name="Conversation").click()
        tab.page.wait_for_timeout(500)  # an image would have been requested by now

        shown = tab.text()
        assert f"![pixel]({url}/pixel.png)" in shown
        assert f"[Sign in again]({url}/pixel.png/login)" in shown
        assert '<img src="' in shown and "**bold**" in shown
        assert tab.page.locator(f'img[src^="{url}"], a[href^="{url}"]').count() == 0
        assert seen == []


def test_a_crafted_thread_link_shows_its_text_and_fetches_nothing(browser, tmp_path, pixel):
    url, seen = pixel
    link = f"![pixel]({url}/p.png) [Sign in again]({url}/login)"
    with playground_server(tmp_path) as server:
        tab = Tab(browser.new_page(), server, "crafted")
        tab.open(f"history?thread={link}".replace(" ", "%20"))
        tab.page.wait_for_timeout(500)

        assert "![pixel](" in tab.text()
        assert tab.page.locator(f'img[src^="{url}"], a[href^="{url}"]').count() == 0
        assert seen == []


def _many_threads(path, threads: int) -> None:
    """A SqliteSaver file of ``threads`` one-checkpoint threads, none failed, kept in rollback
    journal mode so that another connection's write lock holds its readers."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path)
    SqliteSaver(conn).setup()
    conn.execute("PRAGMA journal_mode=DELETE")
    blob = ormsgpack.packb({"v": 4, "ts": "2026-11-30T12:00:00+00:00", "id": "c",
                            "channel_values": {"note": "x" * 200}, "channel_versions": {},
                            "versions_seen": {}})
    conn.executemany("INSERT INTO checkpoints VALUES (?, '', 'c', NULL, 'msgpack', ?, '{}')",
                     ((f"thread-{n:06d}", blob) for n in range(threads)))
    conn.commit()
    conn.close()


def test_a_search_held_up_in_one_tab_holds_no_other_tab_and_ends_in_one_line(browser,
                                                                            tmp_path):
    inspect = tmp_path / "inspect"
    inspect.mkdir()
    path = inspect / "many.sqlite"
    # None of these threads was written after 2026: a time is checked on each thread's head
    # (a status or a text is one query now), so the search reads them one by one and stops
    # after reading 100,000 (MAX_SCANNED).
    _many_threads(path, 150_000)
    env = {"PLAYGROUND_INSPECT_DIR": str(inspect), "PLAYGROUND_READ_TIMEOUT": "600"}
    running = '[data-testid="stApp"][data-test-script-state="running"]'
    with playground_server(tmp_path, env=env) as server:
        slow, other = _tab(browser, server), _tab(browser, server)
        slow.open("inspect?since=2027-01-01")  # a link to a time search of any database
        slow.select("Database file", "inspect/many.sqlite")
        # Another program writes to the file: the search waits for its lock for as long as
        # the test holds it, so the other tab's page runs while this one's search surely does.
        writer = sqlite3.connect(path, isolation_level=None)
        writer.execute("BEGIN EXCLUSIVE")
        try:
            button = slow.page.locator('[data-testid^="stBaseButton"]').filter(
                has=slow.page.locator("p", has_text=re.compile(r"^Open$"))).first
            button.click()  # returns at once: the search goes on in the server
            slow.page.locator(running).wait_for(timeout=30_000)

            other.open("")  # another tab's whole page, while the search waits

            assert slow.page.locator(running).count() == 1, "the search did not wait"
        finally:
            writer.rollback()
            writer.close()
        slow.page.get_by_text("stopped after reading 100,000 threads").first.wait_for(
            timeout=60_000)
        said = slow.text()
        assert "The search stopped early" in said and "Traceback" not in said
        assert "No thread found yet among those read: keep reading to go on." in said
        assert slow.page.get_by_role("button", name="keep reading").count() == 1


def test_a_server_beyond_loopback_shows_only_a_sign_in_line_without_its_token(browser,
                                                                              tmp_path):
    if public_address() is None:
        pytest.skip("this machine has no address but loopback (its own person needs no token)")
    with playground_server(tmp_path, "--host", "0.0.0.0", cwd=tmp_path):
        room_url = printed_room_url(tmp_path)
        base = room_url.split("/?")[0]
        stranger = Tab(browser.new_page(), base, "stranger")
        stranger.page.goto(base)
        stranger.page.get_by_text("Sign in: open the room URL").wait_for(timeout=60_000)
        assert "Run turn" not in stranger.page.inner_text("body")

        guest = Tab(browser.new_page(), base)
        guest.page.goto(room_url)
        guest.page.get_by_text("Room code").first.wait_for(timeout=60_000)
        assert "Sign in" not in guest.page.inner_text("body")
