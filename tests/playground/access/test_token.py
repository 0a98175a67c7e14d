"""The room's access token: kept across restarts, given by the environment, changed only when
asked; the cookie a browser gets, and its name."""

from __future__ import annotations

import stat

import pytest

from playground.access.token import (
    TOKEN_ENV,
    TokenError,
    cookie_name,
    cookie_value,
    fingerprint,
    room_token,
)


@pytest.fixture(autouse=True)
def _no_given_token(monkeypatch):
    monkeypatch.delenv(TOKEN_ENV, raising=False)


def test_the_first_start_makes_a_token_only_its_owner_can_read(tmp_path):
    path = tmp_path / ".playground" / "access-token"

    token = room_token(path)

    assert len(token) >= 16
    assert path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_restart_keeps_the_token_and_a_new_token_replaces_it(tmp_path):
    path = tmp_path / "access-token"
    first = room_token(path)

    assert room_token(path) == first
    renewed = room_token(path, renew=True)
    assert renewed != first
    assert room_token(path) == renewed


def test_a_token_from_the_environment_wins_and_is_not_written(tmp_path, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, "replicas-share-this-token-1")
    path = tmp_path / "access-token"

    assert room_token(path) == "replicas-share-this-token-1"
    assert not path.exists()


@pytest.mark.parametrize("given", ["short", "has spaces in it, long enough", "a/b?c=d&e=f-longer"])
def test_a_token_too_short_or_not_url_safe_is_refused_in_one_line(monkeypatch, tmp_path, given):
    monkeypatch.setenv(TOKEN_ENV, given)

    with pytest.raises(TokenError, match="at least 16 letters"):
        room_token(tmp_path / "access-token")


def test_a_token_file_that_cannot_be_written_is_one_line_naming_the_way_out(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder would go")

    with pytest.raises(TokenError, match=TOKEN_ENV):
        room_token(blocker / "access-token")


def test_the_cookie_holds_a_value_derived_from_the_token_never_the_token():
    token = "room-token-abcdefghij"

    assert cookie_value(token) == cookie_value(token)  # every replica derives the same
    assert token not in cookie_value(token)
    assert cookie_value(token) != cookie_value("room-token-abcdefghik")
    assert fingerprint(token) != fingerprint("room-token-abcdefghik")


@pytest.mark.parametrize(("host", "name"), [
    ("192.0.2.2:8503", "playground_access_8503"),
    ("vm:8501", "playground_access_8501"),
    ("example.org", "playground_access_80"),
    ("[2001:db8::2]:8600", "playground_access_8600"),
    ("[2001:db8::2]", "playground_access_80"),
    (None, "playground_access_80"),
])
def test_the_cookie_is_named_with_the_port_the_browser_asked_for(host, name):
    assert cookie_name(host) == name
