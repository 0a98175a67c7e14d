"""Start page: the tour is there, and a new visitor gets a private room."""

from __future__ import annotations

from tests.playground.ui.conftest import EXAMPLES


def test_start_page_renders_the_numbered_tour_without_exception(app, ui):
    at = app()

    assert not at.exception
    shown = ui.texts(at)
    for step in ("1. Run a turn", "2. Restart", "3. Resume", "4. Conflict", "5. Time travel",
                 "6. Fork", "7. Sizes", "8. Schema"):
        assert step in shown


def test_each_session_gets_its_own_room_in_the_url(app, ui):
    first, second = app(), app()

    assert first.query_params["room"] != second.query_params["room"]
    assert f"`{first.query_params['room']}`" in ui.texts(first)


def test_room_code_in_the_url_joins_that_room(app, ui):
    at = app(room="monday-class")

    assert at.query_params["room"] == "monday-class"
    assert "`monday-class`" in ui.texts(at)


def test_invalid_room_code_in_the_url_is_replaced_by_a_private_room(app):
    at = app(room="../../etc")

    assert not at.exception
    assert at.query_params["room"] != "../../etc"


def test_the_start_page_of_a_graph_of_yours_speaks_of_that_graph(graph_app, ui):
    at = graph_app(f"{EXAMPLES}/support_chat.py:graph")
    at.switch_page("views/start.py").run()

    shown = ui.texts(at)
    assert "This server runs **your graph**" in shown
    assert "edits tickets" not in shown and "**reads** a ticket" not in shown


def test_a_room_whose_records_say_a_step_was_done_shows_it_done_and_the_next_as_next(
        app, ui, tmp_path):
    from playground.lessons import tour
    from playground.lessons.room_records import records_beside

    records_beside(str(tmp_path / "checkpoints.sqlite")).record("monday-class", tour.PAUSED)

    shown = ui.texts(app(room="monday-class"))

    assert "1 of 8 steps done in this room" in shown
    assert "Done: a turn paused before write." in shown
    assert "Done when the process restarted after a turn paused." in shown


def test_records_that_cannot_be_read_leave_the_tour_drawn_and_say_so(app, ui, tmp_path):
    (tmp_path / "rooms.sqlite").mkdir()  # not a database: a folder in its place

    at = app()

    assert not at.exception
    shown = ui.texts(at)
    assert "This room's progress could not be read" in shown
    assert "0 of 8 steps done in this room" in shown and "1. Run a turn" in shown


def test_the_step_the_room_is_on_is_marked_with_how_far_this_room_is_from_it(app, ui, tmp_path):
    from playground.lessons import tour
    from playground.lessons.room_records import records_beside

    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    records.record("monday-class", tour.PAUSED)
    records.set_focus(3)

    shown = ui.texts(app(room="monday-class"))

    assert "The room is on step 3, **Resume**: you have 2 steps to do up to it." in shown
    assert "**3. Resume.** :blue-badge[next]" not in shown  # step 2 is next, not 3
    assert ":orange-badge[the room is here]" in shown
