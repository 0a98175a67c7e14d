"""Inspect on databases whose values name code: every way in shows the data and runs nothing.

The folder, an upload, a Postgres URL and Import thread each open the hostile database of
``hostile_db``; the session then steps through every checkpoint of its thread.
"""

from __future__ import annotations

from contextlib import closing

import pytest

from playground.places.door import open_storage
from playground.timetravel.transfer import dumps_export, export_thread
from tests.playground import hostile_db
from tests.playground.ui.conftest import rendered


@pytest.fixture
def page(app, monkeypatch, hostile_sqlite):
    path, _ = hostile_sqlite
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(path.parent))
    return app().switch_page("views/inspect.py").run()


def _visit_every_checkpoint(at, ui) -> list[str]:
    """Select the hostile thread, then go from the head back to #1; the texts of each stop."""
    at.selectbox(key="inspect-thread").set_value(hostile_db.THREAD).run()
    assert not at.exception, at.exception
    seen = [ui.texts(at)]
    while not at.button(key="inspect-prev").disabled:
        at.button(key="inspect-prev").click().run()
        assert not at.exception, at.exception
        seen.append(ui.texts(at))
    return seen


def _check(seen: list[str], folder, checkpoints: int) -> None:
    assert hostile_db.canaries(folder) == []
    assert len(seen) == checkpoints
    head, first = seen[0], seen[-1]
    assert "approve** asks: Approve a refund of $40 for order A17?" in head
    assert "charge** failed: ValueError('card declined')" in head
    assert "Where is my order A17?" in first  # the conversation tab
    assert any("checkpoint not readable:" in texts for texts in seen)
    assert not any("Traceback" in texts for texts in seen)


def test_folder_database_shows_every_checkpoint_and_runs_nothing(page, ui, hostile_sqlite):
    _, folder = hostile_sqlite
    files = page.selectbox(key="inspect-file")
    files.select_index(files.options.index("inspect/hostile.sqlite")).run()
    page.button(key="inspect-open-file").click().run()

    seen = _visit_every_checkpoint(page, ui)

    _check(seen, folder, len(hostile_db.IDS))
    assert "pickle, " in "\n".join(seen) and "not opened" in "\n".join(seen)


def test_uploaded_database_shows_every_checkpoint_and_runs_nothing(page, ui, hostile_sqlite):
    path, folder = hostile_sqlite

    page.file_uploader(key="inspect-upload").upload("theirs.sqlite", path.read_bytes()).run()
    seen = _visit_every_checkpoint(page, ui)

    _check(seen, folder, len(hostile_db.IDS))


def test_imported_thread_export_shows_every_checkpoint_and_runs_nothing(page, ui, hostile_sqlite):
    path, folder = hostile_sqlite
    with closing(open_storage(path)) as storage:
        text = dumps_export(export_thread(storage, hostile_db.THREAD))

    page.file_uploader(key="inspect-import").upload("bug-report.json", text.encode()).run()
    assert not page.exception
    assert "Open:** bug-report.json" in ui.texts(page)
    seen = _visit_every_checkpoint(page, ui)

    _check(seen, folder, len(hostile_db.IDS))


def test_import_of_a_file_that_is_not_an_export_is_refused_in_one_line(page):
    page.file_uploader(key="inspect-import").upload("notes.json", b'{"hello": 1}').run()

    assert not page.exception
    assert len(page.error) == 1 and "unknown format" in rendered(page.error[0].value)
    assert not page.dataframe


def test_postgres_database_shows_every_checkpoint_and_runs_nothing(page, ui, hostile_postgres):
    url, folder = hostile_postgres

    page.text_input(key="inspect-pg-url").input(url)
    page.button(key="FormSubmitter:inspect-pg-form-Connect").click().run()
    seen = _visit_every_checkpoint(page, ui)

    _check(seen, folder, 3)
