"""The facilitator's board in Streamlit's AppTest. No session there has a TCP peer, so none is
the server's own person unless the test says its browser runs on the server's machine (the
one seam faked here: the peer a real connection would have). The sign-in with the key is the
server's own page and is tested on a real server (test_gate.py) and in Chromium."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from playground.access.token import TOKEN_ENV, fingerprint
from playground.lessons import tour
from playground.lessons.room_records import records_beside
from tests.playground.ui.conftest import APP, rendered


@pytest.fixture
def rooms(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "0.0.0.0")
    monkeypatch.delenv("PLAYGROUND_FACILITATOR_KEY", raising=False)
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    records.record("attendee-one", tour.PAUSED, "a turn paused before write")
    records.record("attendee-one", "name", "Ada")
    return records


@pytest.fixture
def on_the_servers_machine(monkeypatch):
    """This session's browser connects from loopback, as one on the server's machine does."""
    monkeypatch.setattr("playground.ui.access.peer_address", lambda: "127.0.0.1")


def _board(app):
    return app().switch_page("views/board.py").run()


def test_the_board_refuses_a_session_from_elsewhere_when_the_server_has_no_key(
        app, rooms, ui):
    at = _board(app)

    shown = rendered(ui.texts(at))
    assert "opens only for the person who started this server" in shown
    assert "attendee-one" not in shown and not at.dataframe


def test_with_a_key_the_board_sends_a_session_from_elsewhere_to_the_servers_sign_in(
        app, rooms, ui, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_FACILITATOR_KEY", "right-key-0123")
    at = _board(app)

    links = at.get("link_button")
    assert [link.proto.label for link in links] == ["Sign in as the facilitator"]
    assert links[0].proto.url == "/_playground/board-sign-in"
    assert "attendee-one" not in rendered(ui.texts(at)) and not at.dataframe
    assert "right-key-0123" not in rendered(ui.texts(at))


def test_the_servers_own_person_sees_each_rooms_step_and_its_attendees_name(
        app, rooms, on_the_servers_machine):
    at = _board(app)

    assert not at.exception
    table = at.dataframe[0].value
    row = table[table["room"] == "attendee-one"].iloc[0]
    assert row["steps done"] == "1 of 8" and row["next"] == "Restart"
    assert row["who"] == "Ada"


def test_the_board_draws_no_attendee_controls_and_makes_no_room(app, rooms, ui,
                                                                 on_the_servers_machine):
    app()  # the fixture's settings, in a session of its own
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.switch_page("views/board.py").run()  # opened straight at /board

    labels = {widget.label for widget in [*at.text_input, *at.button]}
    assert not labels & {"Your name", "Thread", "Join", "Leave room", "Room code"}
    assert "Room code" not in ui.texts(at)
    assert "room" not in at.query_params


def test_the_facilitators_mark_is_kept_under_the_rooms_token(app, rooms, tmp_path, monkeypatch,
                                                             on_the_servers_machine):
    monkeypatch.setenv(TOKEN_ENV, "the-rooms-token-123456")
    at = _board(app)

    at.selectbox(key="board-focus").set_value(4).run()

    assert not at.exception
    target = str(tmp_path / "checkpoints.sqlite")
    assert records_beside(target, fingerprint("the-rooms-token-123456")).focus() == 4
    # a new token (`--new-token`) starts without one
    assert records_beside(target, fingerprint("a-new-token-654321abc")).focus() is None
