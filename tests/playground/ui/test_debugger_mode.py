"""The debugger and the workshop are two modes (AppTest). A server `playground run` started on
one's own graph on loopback is a debugger: no room, no tour, no room code, and a thread's id is
the one typed (in the file too); the workshop keeps its rooms whatever it runs."""

from __future__ import annotations

import os
import sqlite3

import pytest

from playground.access.mode import DEBUGGER, MODE_ENV, WORKSHOP
from tests.playground.ui.conftest import EXAMPLES, rendered

CHAT = f"{EXAMPLES}/support_chat.py:graph"


@pytest.fixture
def debugger_app(graph_app, monkeypatch):
    monkeypatch.setenv(MODE_ENV, DEBUGGER)
    return graph_app


def _stored_threads() -> set[str]:
    with sqlite3.connect(os.environ["PLAYGROUND_CHECKPOINTS"]) as conn:
        return {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}


def test_the_debugger_keeps_the_thread_id_typed_in_the_file_and_on_the_page(debugger_app, ui):
    at = debugger_app(CHAT)
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()

    assert not at.exception
    assert _stored_threads() == {"thread-1"}  # no room code in front of it
    assert "room" not in at.query_params
    at.switch_page("views/history.py").run()
    assert at.text_input(key="sidebar-thread").value == "thread-1"
    assert " checkpoints · " in ui.texts(at)


def test_the_debugger_shows_no_room_code_no_tour_and_says_its_mode_once(debugger_app, ui):
    at = debugger_app(CHAT)
    at.switch_page("views/start.py").run()

    shown = rendered(ui.texts(at))
    assert "A debugger on your machine" in shown
    assert [h.value for h in at.subheader] == ["Where to begin"]
    assert "Room code" not in shown and "Join a room" not in shown
    assert "steps done" not in shown  # no tour
    assert shown.count("Debugger") == 1
    labels = {widget.label for widget in [*at.text_input, *at.button]}
    assert not labels & {"Your name", "Join", "Leave room"}


def test_the_workshop_keeps_its_rooms_for_a_graph_of_ones_own(graph_app, monkeypatch, ui):
    monkeypatch.setenv(MODE_ENV, WORKSHOP)  # `playground run --workshop --graph ...`
    at = graph_app(CHAT, room="monday-class")
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()

    assert _stored_threads() == {"monday-class/thread-1"}
    at.switch_page("views/start.py").run()
    assert "Room code" in rendered(ui.texts(at)) and "steps done" in rendered(ui.texts(at))


def test_a_thread_written_under_a_room_before_still_opens_in_the_debugger(graph_app, monkeypatch,
                                                                          ui):
    at = graph_app(CHAT, room="monday-class")
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()
    monkeypatch.setenv(MODE_ENV, DEBUGGER)

    at = graph_app(CHAT, thread="monday-class/thread-1")
    at.switch_page("views/history.py").run()

    assert not at.exception
    assert " checkpoints · " in ui.texts(at)


def test_a_place_opened_from_the_command_line_comes_first_and_opening_another_is_folded(
        debugger_app, monkeypatch, tmp_path, ui):
    import shutil

    from playground.access.mode import OPEN_PLACE_ENV
    from playground.ui.inspect_access import SAMPLES_DIR

    theirs = tmp_path / "their.sqlite"
    shutil.copy(SAMPLES_DIR / "sample-app.sqlite", theirs)
    monkeypatch.setenv(OPEN_PLACE_ENV, str(theirs))
    at = debugger_app(CHAT).switch_page("views/inspect.py").run()

    assert not at.exception
    assert [e.label for e in at.expander][:1] == ["Open another database"]
    assert at.expander[0].tabs[0].label.endswith("From the server's folder")
    assert f"**Open:** {theirs} " in rendered(ui.texts(at))


def test_a_new_tab_on_a_name_the_file_lacks_offers_its_newest_threads_one_click_each(
        debugger_app, ui):
    at = debugger_app(CHAT)  # the app writes its own ids into the playground's file
    at.session_state["thread_name"] = "user-42 [x](http://e.example)"
    at.run()
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()

    fresh = debugger_app(CHAT).switch_page("views/history.py").run()  # a new tab: thread-1

    assert "Thread thread-1 has no checkpoints yet" in rendered(ui.texts(fresh))
    offered = [b for b in fresh.button if b.key and b.key.startswith("newest-")]
    assert [rendered(b.label) for b in offered] == [
        "user-42 [x](http://e.example) · finished"]  # the id as written, escaped on the page
    offered[0].click().run()
    assert fresh.query_params["thread"] == "user-42 [x](http://e.example)"
    assert " checkpoints · " in ui.texts(fresh)
