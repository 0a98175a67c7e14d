"""A page of a server beyond loopback shows the room only to a browser holding its cookie
(AppTest has no browser behind it: no cookie, no peer). The gate in front of the pages, the
cookie it gives and a real browser are tested on a real server (test_gate.py,
test_browser_room_access.py)."""

from __future__ import annotations

import pytest

from playground.access.token import REQUIRED_ENV, TOKEN_ENV


@pytest.fixture
def guarded(app, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, "room-key-1234567890")
    monkeypatch.setenv(REQUIRED_ENV, "1")
    return app


def test_a_page_opened_without_the_rooms_cookie_shows_only_a_sign_in_line(guarded, ui):
    at = guarded()

    assert not at.exception
    assert "Sign in: open the room URL" in ui.texts(at)
    assert not at.button and not at.text_input  # nothing to act on


def test_the_token_in_the_address_is_not_a_sign_in_for_the_page_itself(guarded, ui):
    # The gate turns the room URL into a cookie before a page runs; a page never reads it.
    at = guarded(token="room-key-1234567890")

    assert "Sign in: open the room URL" in ui.texts(at)


def test_a_server_on_loopback_asks_for_nothing(app, ui, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, "room-key-1234567890")  # kept for the mark, not asked for

    assert "Sign in" not in ui.texts(app())
