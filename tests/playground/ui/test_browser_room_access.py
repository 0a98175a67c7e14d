"""A room server in Chromium, as a workshop meets it: ``playground run --host 0.0.0.0
--facilitator-key-env``, opened at this machine's network address as the attendees' laptops
open it. An attendee reloads, changes page and opens a bookmark in a new tab without signing
in again; the server restarts with the same command and the URL handed out, the browsers'
cookies and the facilitator's mark all hold; the facilitator signs in once, and looks at a
room read-only without any write control or their own room changing; a file over the upload
limit is refused by the server itself."""

from __future__ import annotations

import os
import re
from contextlib import contextmanager

import pytest
from google.protobuf.message import DecodeError
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from playground.access.peers import public_address
from playground.server_process import free_port
from playground.ui.inspect_access import MAX_UPLOAD_MB
from tests.playground.ui.browser import (
    ShotTab,
    Tab,
    chromium_missing,
    playground_server,
    printed_room_url,
)

ADDRESS = public_address()
pytestmark = [
    pytest.mark.skipif(chromium_missing() and not os.environ.get("CI"),
                       reason="Debian chromium is not installed (bash .ci/run installs it)"),
    pytest.mark.skipif(ADDRESS is None, reason="this machine has no address but loopback"),
]
KEY = "room-access-facilitator-key"
# Every label of the pages that writes to a room (the workshop's scripts click these).
WRITES = ("Run turn", "Resume", "Restart process", "Simulate concurrent edit", "Replay from here",
          "Fork with edit", "Re-run on current code", "Resume the head", "Apply the repair",
          "Re-read and re-plan", "Prune", "Compare", "Join", "Leave room", "Run", "Continue")


@contextmanager
def _room_server(home, port: int):
    """The room's server, started as the README's step 1 says, on a fixed port (a restart
    keeps the URL handed out)."""
    with playground_server(home, "--host", "0.0.0.0", "--facilitator-key-env", "ROOM_TEST_KEY",
                           env={"ROOM_TEST_KEY": KEY}, cwd=home, port=port) as local:
        yield local, printed_room_url(home)


def _room_of(tab: Tab) -> str:
    return re.search(r"room=([a-z0-9-]+)", tab.page.url).group(1)


def _signed_out(tab: Tab) -> bool:
    return "Sign in: open the room URL" in tab.page.inner_text("body")


def _write_controls(tab: Tab) -> list[str]:
    """The enabled buttons of the page whose label writes to a room."""
    found = []
    for button in tab.page.locator('[data-testid^="stBaseButton"]').all():
        label = button.inner_text().strip().splitlines()[-1] if button.inner_text() else ""
        if label in WRITES and button.is_enabled():
            found.append(label)
    return found


def test_an_attendee_stays_in_through_reloads_pages_tabs_and_a_server_restart(
        browser, tmp_path, shots):
    port = free_port()
    with _room_server(tmp_path, port) as (_, room_url):
        base = room_url.split("/?")[0]
        assert base == f"http://{ADDRESS}:{port}"
        attendee = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1200}),
                           base, shots)
        attendee.visit(room_url)
        assert "token=" not in attendee.page.url  # the gate took it out of the address bar
        room = _room_of(attendee)
        cookies = {c["name"]: c for c in attendee.page.context.cookies()}
        access = cookies[f"playground_access_{port}"]
        assert access["httpOnly"] and access["sameSite"] == "Lax"
        assert attendee.page.evaluate("document.cookie").find("playground_access") == -1

        before = attendee.runs
        attendee.page.reload()
        attendee._wait_for_run_after(before, "a reload")
        assert not _signed_out(attendee) and _room_of(attendee) == room

        attendee.page.get_by_role("link", name="Agent").click()  # the sidebar's page link
        attendee.page.wait_for_url(re.compile(r"/agent"))
        attendee.page.get_by_text("Run turn").first.wait_for()
        attendee.click("Run turn")
        assert not _signed_out(attendee)

        bookmark = Tab(attendee.page.context.new_page(), base)
        bookmark.visit(f"{base}/history")  # a bookmark opened in a new tab: no room, no token
        assert not _signed_out(bookmark) and _room_of(bookmark) == room
        assert "#4 loop · plan" in bookmark.text()  # the room's paused turn, from its own thread
        attendee.shot("room-after-reload")

    # The same command again: the URL handed out and the browser's cookie still hold.
    with _room_server(tmp_path, port) as (_, again):
        assert again == room_url
        before = attendee.runs
        attendee.page.reload()
        attendee._wait_for_run_after(before, "a reload after the restart")
        assert not _signed_out(attendee) and _room_of(attendee) == room
        attendee.click("Resume")
        assert "written" in attendee.text() or "v2" in attendee.text()


def test_the_facilitator_signs_in_once_marks_a_step_and_the_mark_outlives_a_restart(
        browser, tmp_path, shots):
    port = free_port()
    with _room_server(tmp_path, port) as (_, room_url):
        base = room_url.split("/?")[0]
        attendee = Tab(browser.new_context().new_page(), base).visit(room_url)
        name = attendee.page.get_by_role("textbox", name="Your name")
        name.fill("Ada Lovelace")
        before = attendee.runs
        name.press("Enter")
        attendee._wait_for_run_after(before, "giving a name")
        attendee.open("agent").click("Run turn")
        start = Tab(attendee.page.context.new_page(), base).visit(f"{base}/")

        facilitator = ShotTab(browser.new_context(viewport={"width": 1440, "height": 1300}),
                              base, shots)
        facilitator.visit(room_url)  # the facilitator's laptop is another machine too
        facilitator.page.goto(f"{base}/board")  # the board's address: its sign-in first
        assert facilitator.page.url == f"{base}/_playground/board-sign-in"
        assert "Rooms" not in facilitator.page.inner_text("body")
        facilitator.page.get_by_label("Facilitator key").fill(KEY)
        before = facilitator.runs
        facilitator.page.get_by_role("button", name="Open the board").click()
        facilitator._wait_for_run_after(before, "signing in")
        facilitator.page.get_by_text("Redrawn every 5 s").wait_for()
        assert KEY not in facilitator.page.content()

        before = facilitator.runs
        facilitator.page.reload()
        facilitator._wait_for_run_after(before, "reloading the board")
        facilitator.page.get_by_text("Redrawn every 5 s").wait_for()
        assert "Sign in as the facilitator" not in facilitator.text()
        # who, by name (in the grid, drawn on a canvas over its cells)
        facilitator.page.get_by_text("Ada Lovelace").first.wait_for(state="attached")

        facilitator.select("The room is on", "3. Resume")
        # The attendee's open Start page picks the mark up as it redraws, with no reload.
        start.page.get_by_text("The room is on step 3").wait_for(timeout=30_000)
        facilitator.shot("board-signed-in")

    with _room_server(tmp_path, port):
        start.visit(f"{base}/")
        assert "The room is on step 3" in start.text()


def test_a_room_looked_at_from_the_board_shows_no_write_control_on_any_page(browser, tmp_path):
    port = free_port()
    with _room_server(tmp_path, port) as (local, room_url):
        base = room_url.split("/?")[0]
        attendee = Tab(browser.new_context().new_page(), base).visit(room_url)
        attendee.open("agent").click("Run turn")
        room = _room_of(attendee)

        # On the server's own machine: the board opens without the key.
        facilitator = Tab(browser.new_context(viewport={"width": 1440, "height": 1300}
                                              ).new_page(), local)
        facilitator.visit(f"{local}/agent")
        own = _room_of(facilitator)
        facilitator.visit(f"{local}/board")
        facilitator.page.get_by_text("Redrawn every 5 s").wait_for()
        # the room's History link, as the board's table holds it (its grid is a canvas)
        facilitator.visit(f"{local}/history?room={room}&view=read-only")

        sidebar = facilitator.page.locator('[data-testid="stSidebarNav"]')
        shown_pages = [a.inner_text().splitlines()[-1] for a in sidebar.get_by_role("link").all()]
        assert shown_pages == ["Start", "History"]
        for page in ("", "agent", "conflicts", "schema", "run", "sizes", "inspect", "history"):
            facilitator.visit(f"{local}/{page}?room={room}&view=read-only")
            assert _write_controls(facilitator) == [], page
            assert _room_of(facilitator) == room
        # from a page of the look, a click on the sidebar stays in the look
        facilitator.page.get_by_role("link", name="Start").click()
        facilitator.page.wait_for_url(re.compile(r"view=read-only"))
        assert _write_controls(facilitator) == []
        before = facilitator.runs
        facilitator.page.reload()
        facilitator._wait_for_run_after(before, "reloading the look")
        assert "view=read-only" in facilitator.page.url and _write_controls(facilitator) == []

        kept = {c["name"]: c["value"] for c in facilitator.page.context.cookies()}
        assert kept["playground_room"] == own  # the facilitator's own room is as it was
        mine = Tab(facilitator.page.context.new_page(), local).visit(f"{local}/agent")
        assert _room_of(mine) == own and _write_controls(mine)


def test_a_file_over_the_upload_limit_is_refused_by_the_server_itself(browser, tmp_path):
    with _room_server(tmp_path, free_port()) as (_, room_url):
        base = room_url.split("/?")[0]
        tab = Tab(browser.new_context().new_page(), base)
        sessions: list[str] = []

        def _session(payload) -> None:
            if isinstance(payload, bytes):
                try:
                    message = ForwardMsg.FromString(payload)
                except DecodeError:
                    return
                if message.WhichOneof("type") == "new_session":
                    sessions.append(message.new_session.initialize.session_id)

        tab.page.on("websocket", lambda socket: socket.on("framereceived", _session))
        tab.visit(room_url)
        tab.visit(f"{base}/inspect")
        put = """async ([session, megabytes]) => {
            const xsrf = document.cookie.split("; ").find(c => c.startsWith("_streamlit_xsrf="))
                .split("=").slice(1).join("=");
            const form = new FormData();
            form.append("file", new Blob([new Uint8Array(megabytes * 1024 * 1024)]), "a.sqlite");
            const answer = await fetch(`/_stcore/upload_file/${session}/f${megabytes}`,
                {method: "PUT", body: form, headers: {"X-Xsrftoken": xsrf}});
            return answer.status;
        }"""
        assert tab.page.evaluate(put, [sessions[-1], 1]) == 204  # the same path takes a file
        assert tab.page.evaluate(put, [sessions[-1], MAX_UPLOAD_MB + 10]) == 413
