"""Inspect on 300 threads a real graph ran on the real saver, 20 of them failed in six ways:
with Status failed, the errors come first, grouped as ``threads --group-by error`` groups them
(exact counts, the masked error, the newest time, an example); a click on a group lists its
threads only and **All failed threads** lists them all again; the open thread's error is shown
whole (not cut at a cell's width), as text, and says no traceback was stored."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import TypedDict

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from tests.playground.error_kinds import GROUPS, NODES, make_threads

# The newest failed thread: an error longer than a cell, with markdown in it that must stay text.
LONG = "long-failure"
LONG_ERROR = RuntimeError("mode " + "**x** ![pic](http://evil.example/p.png) " * 12
                          + "HTTP 503 (upstream overloaded)")


class _State(TypedDict, total=False):
    n: int


def _fail_long(state: _State) -> dict:
    raise LONG_ERROR


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("groups") / "inspect"  # listed as inspect/app.sqlite
    folder.mkdir()
    conn = sqlite3.connect(folder / "app.sqlite", check_same_thread=False)
    try:
        expected = make_threads(SqliteSaver(conn))
        builder = StateGraph(_State)
        builder.add_node("agent", _fail_long)
        builder.add_edge(START, "agent")
        builder.add_edge("agent", END)
        with contextlib.suppress(RuntimeError):
            builder.compile(checkpointer=SqliteSaver(conn)).invoke(
                {"n": 0}, {"configurable": {"thread_id": LONG}})
    finally:
        conn.close()
    return folder, expected


def _failed(app, made, monkeypatch):
    folder, _ = made
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(folder))
    at = app().switch_page("views/inspect.py").run()
    files = at.selectbox(key="inspect-file")
    files.select_index(files.options.index("inspect/app.sqlite")).run()
    at.button(key="inspect-open-file").click().run()
    return at.selectbox(key="inspect-filter-status").set_value("failed").run()


def _threads(at) -> list[str]:
    table = next(frame.value for frame in at.dataframe if "thread" in frame.value.columns)
    return list(table["thread"])


def _groups(at):
    frame = next(frame for frame in at.dataframe if "count" in frame.value.columns)
    table = frame.value
    return list(zip(table["error"], table["count"], strict=True)), frame


def test_failed_threads_come_grouped_by_error_with_exact_counts_above_the_list(
        app, made, monkeypatch, ui):
    _, expected = made

    at = _failed(app, made, monkeypatch)

    groups, frame = _groups(at)
    table = frame.value
    assert groups[:5] == list(GROUPS.items())  # the largest first
    (long_key, long_count), = groups[5:]
    assert long_key.startswith("RuntimeError('mode **x** ![pic]") and long_count == 1
    assert all(table["newest"]) and set(table["example"]) <= {*expected, LONG}
    assert list(table["nodes"]) == [*(NODES[key] for key in GROUPS), "agent"]
    for error, example in zip(table["error"][:5], table["example"][:5], strict=True):
        assert expected[example] == error  # a real thread of its group
    assert sorted(_threads(at)) == sorted([LONG, *(t for t, key in expected.items() if key)])
    assert "Failed threads by error" in ui.texts(at)
    assert not at.exception


def test_a_click_on_a_group_lists_its_threads_only_and_all_failed_threads_lists_them_again(
        app, made, monkeypatch):
    _, expected = made
    at = _failed(app, made, monkeypatch)
    groups, frame = _groups(at)
    picked, count = groups[1]  # RuntimeError('ticket <n> not found')

    # a click on the groups table's second row, as the browser reports it
    at.session_state[frame.key] = {"selection": {"rows": [1], "columns": []}}
    at.run()

    assert sorted(_threads(at)) == sorted(t for t, key in expected.items() if key == picked)
    assert len(_threads(at)) == count == 6
    at.button(key="inspect-all-failed").click().run()
    assert len(_threads(at)) == sum(GROUPS.values()) + 1
    assert not at.exception


def test_the_open_threads_error_is_whole_as_text_and_says_no_traceback_was_stored(
        app, made, monkeypatch, ui):
    at = _failed(app, made, monkeypatch)

    assert at.selectbox(key="inspect-thread").value == LONG  # the newest failed thread
    whole = repr(LONG_ERROR)
    assert len(whole) > 400  # longer than the thread list's one line of it
    assert [block.value for block in at.code if block.value == whole] == [whole]
    assert "No traceback stored" in ui.texts(at)
    # the database's text reaches the page as a table cell, a code block or escaped markdown
    for element in (*at.markdown, *at.caption):
        assert "![pic](" not in str(element.value)
