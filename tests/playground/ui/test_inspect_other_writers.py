"""Inspect on files other writers made (LangGraph.js, an older LangGraph): opened from the
folder or uploaded, browsed like Python's, with the writer named and a JS interrupt read as its
node's question."""

from __future__ import annotations

import shutil

import pytest

from tests.playground.places.other_writers import JS_FILE, JS_QUESTION, OLDER_PYTHON_FILE


@pytest.fixture
def page(app, tmp_path, monkeypatch):
    folder = tmp_path / "inspect"
    folder.mkdir()
    shutil.copyfile(JS_FILE, folder / "from-js.sqlite")
    shutil.copyfile(OLDER_PYTHON_FILE, folder / "older.sqlite")
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(folder))
    at = app()
    return at.switch_page("views/inspect.py").run()


def _open_file(at, label: str):
    files = at.selectbox(key="inspect-file")
    files.select_index(files.options.index(label)).run()
    return at.button(key="inspect-open-file").click().run()


def test_a_js_file_opens_from_the_folder_with_its_writer_named(page, ui):
    _open_file(page, "inspect/from-js.sqlite")

    assert not page.exception and not page.error
    assert "written by LangGraph.js (JSON)" in ui.texts(page)
    assert set(page.dataframe[0].value["thread"]) == {"chat", "refund", "waiting"}


def test_a_waiting_js_thread_shows_its_question_and_the_node_that_asked(page, ui):
    _open_file(page, "inspect/from-js.sqlite")

    page.selectbox(key="inspect-thread").set_value("waiting").run()

    assert not page.exception
    assert f"**approve** asks: {JS_QUESTION}" in ui.texts(page)


def test_an_uploaded_js_file_is_browsed_by_its_name(page, ui):
    page.file_uploader(key="inspect-upload").upload("theirs.sqlite", JS_FILE.read_bytes()).run()

    assert not page.exception and not page.error
    assert "Open:** theirs.sqlite" in ui.texts(page)
    page.selectbox(key="inspect-thread").set_value("chat").run()
    assert "13 checkpoints · 3 branches" in ui.texts(page)


def test_an_older_python_file_opens_with_its_writer_named(page, ui):
    _open_file(page, "inspect/older.sqlite")

    assert not page.exception and not page.error
    assert "written by LangGraph (Python, before task_path)" in ui.texts(page)
