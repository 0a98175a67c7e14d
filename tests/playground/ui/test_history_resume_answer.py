"""History's Resume the head at a question (issue 51): the question is shown with an Answer
field beside the button; an answer finishes the thread, no answer is refused in a sentence
and writes nothing."""

from __future__ import annotations

import os
import sqlite3

from tests.playground.ui.conftest import EXAMPLES, rendered

CHAT = f"{EXAMPLES}/support_chat.py:graph"


def _checkpoints() -> int:
    with sqlite3.connect(os.environ["PLAYGROUND_CHECKPOINTS"]) as conn:
        return conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]


def _history_at_the_question(graph_app, ui):
    at = graph_app(CHAT)
    at.chat_input(key="run-message").set_value("Please refund A17").run()
    assert not at.exception, at.exception
    at.switch_page("views/history.py").run()
    assert not at.exception, at.exception
    return at


def test_history_shows_the_heads_question_and_an_answer_field(graph_app, ui):
    at = _history_at_the_question(graph_app, ui)

    assert "**tools** asks: Approve a refund of $40.00 for order A17?" in ui.texts(at)
    assert ui.text_area(at, "Answer") is not None
    assert not ui.button(at, "Resume the head").disabled


def test_an_answer_resumes_the_head_to_its_end(graph_app, ui):
    at = _history_at_the_question(graph_app, ui)

    ui.text_area(at, "Answer").input("yes")
    ui.button(at, "Resume the head").click().run()

    assert not at.exception, at.exception
    assert "Refunded $40.00 for order A17." in ui.texts(at)
    said = rendered("\n".join(str(e.value) for e in at.success))
    assert "tools, assistant ran, finished" in said
    assert "Answer" not in [t.label for t in at.text_area]  # the head asks nothing now


def test_an_empty_answer_is_refused_in_a_sentence_and_writes_nothing(graph_app, ui):
    at = _history_at_the_question(graph_app, ui)
    before = _checkpoints()

    ui.button(at, "Resume the head").click().run()

    assert not at.exception, at.exception
    said = rendered("\n".join(str(e.value) for e in at.error))
    assert "not resumed, nothing was run" in said and "type an answer" in said
    assert "startswith" not in said and "Traceback" not in said
    assert _checkpoints() == before
