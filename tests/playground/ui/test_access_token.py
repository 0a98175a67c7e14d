"""A server beyond loopback asks for its access token (AppTest)."""

from __future__ import annotations

import pytest


@pytest.fixture
def guarded(app, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_ACCESS_TOKEN", "room-key-123")
    return app


def test_a_page_opened_without_the_token_shows_only_a_sign_in_line(guarded, ui):
    at = guarded()

    assert not at.exception
    assert "Sign in: open the room URL" in ui.texts(at)
    assert not at.button and not at.text_input  # nothing to act on


def test_a_wrong_token_is_refused(guarded, ui):
    at = guarded(token="room-key-124")

    assert "Sign in: open the room URL" in ui.texts(at)


def test_the_rooms_url_signs_the_session_in_for_every_page(guarded, ui):
    at = guarded(token="room-key-123")

    assert "Sign in" not in ui.texts(at)
    del at.query_params["token"]  # the session stays signed in without it
    at.switch_page("views/history.py").run()
    assert not at.exception and "Sign in" not in ui.texts(at)


def test_a_server_on_loopback_asks_for_nothing(app, ui):
    assert "Sign in" not in ui.texts(app())
