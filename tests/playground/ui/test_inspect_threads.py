"""Inspect's thread list on a production-shaped database (many threads, made by the real saver):
a page at a time, filters that find exactly the threads made that way, filters read from the
link, and a row that opens its thread."""

from __future__ import annotations

import pytest

from playground.testing.many_threads import make_sqlite

THREADS = 300


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("many") / "inspect"  # listed as inspect/app.sqlite
    folder.mkdir()
    return folder, make_sqlite(folder / "app.sqlite", THREADS, seeds=40)


def _open(app, made, monkeypatch, **query):
    folder, _ = made
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(folder))
    at = app(**query).switch_page("views/inspect.py").run()
    files = at.selectbox(key="inspect-file")
    files.select_index(files.options.index("inspect/app.sqlite")).run()
    return at.button(key="inspect-open-file").click().run()


def _listed(at) -> list[str]:
    return list(at.dataframe[0].value["thread"])


def test_the_first_page_lists_fifty_threads_and_older_pages_go_on(app, made, monkeypatch):
    _, expected = made
    at = _open(app, made, monkeypatch)

    first = _listed(at)
    assert len(first) == 50 and first[0] == list(expected)[-1]  # the last written first
    assert len(at.selectbox(key="inspect-thread").options) == 50  # never every thread

    at.button(key="inspect-page-older").click().run()
    second = _listed(at)
    assert len(second) == 50 and not set(first) & set(second)
    at.button(key="inspect-page-newer").click().run()
    assert _listed(at) == first


def test_the_failed_filter_lists_only_failed_threads_and_opens_one_on_its_failure(
        app, made, monkeypatch, ui):
    _, expected = made
    at = _open(app, made, monkeypatch)

    at.selectbox(key="inspect-filter-status").set_value("failed").run()

    listed = _listed(at)
    failed = {t for t, seed in expected.items() if seed.kind == "failed"}
    assert listed and set(listed) <= failed
    assert set(at.dataframe[0].value["status"]) == {"failed"}
    assert at.query_params["status"] == "failed"  # the link says it
    at.selectbox(key="inspect-thread").set_value(listed[3]).run()
    assert not at.exception
    assert "failed: LookupError" in ui.texts(at)  # the head's error, on the opened thread


def test_a_link_with_filters_opens_on_them(app, made, monkeypatch):
    _, expected = made
    at = _open(app, made, monkeypatch, status="paused", meta="user=u5")

    listed = _listed(at)
    assert at.selectbox(key="inspect-filter-status").value == "paused"
    assert sorted(listed) == sorted(
        t for t, seed in expected.items() if seed.kind == "paused" and seed.user == "u5")


def test_a_filter_that_cannot_be_read_is_said_and_not_applied(app, made, monkeypatch, ui):
    at = _open(app, made, monkeypatch)

    at.text_input(key="inspect-filter-since").input("last tuesday").run()

    assert not at.exception
    assert "is not a time" in ui.texts(at) and "(not applied)" in ui.texts(at)
    assert len(_listed(at)) == 50
