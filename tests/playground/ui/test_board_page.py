"""The facilitator's board in Streamlit's AppTest, on a server that listens beyond loopback
(``PLAYGROUND_BIND_HOST``, as ``playground run --host 0.0.0.0`` sets it): no session is the
server's own local one, so none sees anything about any room until it gives the facilitator's
key. (The local case, and a real non-loopback address, are walked in Chromium.)"""

from __future__ import annotations

import pytest

from playground.lessons import tour
from playground.lessons.room_records import records_beside
from tests.playground.ui.conftest import rendered

SUBMIT = "FormSubmitter:board-sign-in-Open the board"


@pytest.fixture
def rooms(tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "0.0.0.0")
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    records.record("attendee-one", tour.PAUSED, "a turn paused before write")
    return records


def _board(app):
    return app().switch_page("views/board.py").run()


def test_the_board_refuses_every_session_of_a_server_beyond_loopback_without_a_key(
        app, rooms, ui):
    at = _board(app)

    shown = rendered(ui.texts(at))
    assert "opens only for the person who started this server" in shown
    assert "attendee-one" not in shown and not at.dataframe


def test_the_board_asks_for_the_key_and_refuses_a_wrong_one(app, rooms, ui, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_FACILITATOR_KEY", "right-key-0123")
    at = _board(app)
    at.text_input(key="board-key").input("wrong-key")
    at.button(key=SUBMIT).click().run()

    assert "That is not the facilitator's key." in rendered(ui.texts(at))
    assert "attendee-one" not in rendered(ui.texts(at)) and not at.dataframe


def test_the_right_key_opens_the_board_with_each_rooms_step(app, rooms, ui, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_FACILITATOR_KEY", "right-key-0123")
    at = _board(app)
    at.text_input(key="board-key").input("right-key-0123")
    at.button(key=SUBMIT).click().run()

    assert not at.exception
    table = at.dataframe[0].value
    row = table[table["room"] == "attendee-one"].iloc[0]
    assert row["steps done"] == "1 of 8" and row["next"] == "Restart"
    assert "right-key-0123" not in rendered(ui.texts(at))  # the key is never drawn


def test_the_facilitator_marks_the_step_the_room_is_on(app, rooms, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_FACILITATOR_KEY", "right-key-0123")
    at = _board(app)
    at.text_input(key="board-key").input("right-key-0123")
    at.button(key=SUBMIT).click().run()

    at.selectbox(key="board-focus").set_value(4).run()

    assert not at.exception
    assert rooms.focus() == 4
