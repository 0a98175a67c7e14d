"""Inspect's thread list on a production-shaped database (many threads, made by the real saver):
a page at a time, filters that find exactly the threads made that way, filters read from the
link, a row that opens its thread, and a page cut by its deadline that reads on when asked."""

from __future__ import annotations

import pytest

from playground.testing.many_threads import make_sqlite
from playground.timetravel import thread_list

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


def _table(at):
    # the thread table (with Status failed, the errors' groups come first)
    return next(frame.value for frame in at.dataframe if "thread" in frame.value.columns)


def _listed(at) -> list[str]:
    return list(_table(at)["thread"])


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
    assert set(_table(at)["status"]) == {"failed"}
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


class SlowClock:
    """The thread list's clock, each look five seconds later (the database keeps the real
    one): a walk meets its share of the deadline (15 s) after three steps."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 5.0
        return self.now


def _keep_reading(at):
    return [button for button in at.button if button.key == "inspect-keep-reading"]


def test_a_page_cut_by_its_deadline_offers_keep_reading_which_adds_what_it_finds(
        app, made, monkeypatch, ui):
    _, expected = made
    at = _open(app, made, monkeypatch)
    clock = SlowClock()
    monkeypatch.setattr(thread_list, "time", clock)

    at.text_input(key="inspect-filter-meta").input("user=u7").run()

    first = _listed(at)
    wanted = [t for t in reversed(expected) if expected[t].user == "u7"]  # newest first
    assert len(first) < len(wanted) and first == wanted[: len(first)]
    assert "The search stopped early: stopped at the read's deadline" in ui.texts(at)
    assert _keep_reading(at)
    looked = clock.now
    at.run()  # another run (a click elsewhere) keeps the page: no walk again
    assert clock.now == looked and _listed(at) == first
    while _keep_reading(at):
        _keep_reading(at)[0].click().run()
        assert at.selectbox(key="inspect-thread").value in _listed(at)
    assert _listed(at) == wanted  # each once, newest first, on one page
    assert not at.exception
