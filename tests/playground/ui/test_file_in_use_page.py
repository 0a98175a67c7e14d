"""A page that meets a moment of another process's write (the user's app writing the file it
reads) reads again instead of trading its content for an error; an error that persists is
still said in one line."""

from __future__ import annotations

import sqlite3

import pytest

from playground.places.sqlite import SqliteStorage


@pytest.fixture
def inspect_page(app, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(tmp_path))
    at = app()
    return at.switch_page("views/inspect.py").run()


def _open_sample(at):
    files = at.selectbox(key="inspect-file")
    files.select_index(files.options.index("samples/sample-app.sqlite")).run()
    return at.button(key="inspect-open-file").click().run()


def _failing(monkeypatch, times: int, message: str = "disk I/O error") -> list[int]:
    """The page's thread list (its first query, the walk from the newest row) fails ``times``
    times as a file being written makes it fail."""
    real, calls = SqliteStorage._rows_in, []

    def rows_in(self, low, high, wanted):
        calls.append(1)
        if len(calls) <= times:
            raise sqlite3.OperationalError(message)
        return real(self, low, high, wanted)

    monkeypatch.setattr(SqliteStorage, "_rows_in", rows_in)
    return calls


def test_a_moment_of_another_writer_is_read_again_and_the_page_keeps_its_content(
        inspect_page, monkeypatch):
    _open_sample(inspect_page)
    calls = _failing(monkeypatch, times=1)

    inspect_page.run()

    assert len(calls) == 2  # read again
    assert not inspect_page.exception and not inspect_page.error
    assert "support/ana" in set(inspect_page.dataframe[0].value["thread"])


def test_a_transient_error_that_persists_is_said_in_one_line(inspect_page, monkeypatch):
    _open_sample(inspect_page)
    _failing(monkeypatch, times=99)

    inspect_page.run()

    assert not inspect_page.exception
    (error,) = [e.value for e in inspect_page.error]
    assert "disk I/O error" in error


def test_an_error_that_is_not_transient_is_said_at_once(inspect_page, monkeypatch):
    _open_sample(inspect_page)
    calls = _failing(monkeypatch, times=99, message="no such column: checkpoint")

    inspect_page.run()

    assert len(calls) == 1
    assert "no such column" in " ".join(e.value for e in inspect_page.error)
