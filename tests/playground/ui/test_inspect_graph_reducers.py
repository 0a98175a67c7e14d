"""Inspect on a playground started with the app's graph (``--graph``): a DeltaChannel with the
app's own reducer shows the value that reducer makes, as History does; started without one, the
stored pieces and the page's own words for how to see it (restart with ``--graph``).

The database is another app's file in Inspect's folder: a chat whose conversation lives on a
DeltaChannel with a reducer only its file knows (``exchange_chat``), written by a real run on
the real SqliteSaver, with a fork.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.timetravel.delta import FOLDED_BY_GRAPH, NOT_FOLDED_BY, ON_PAGE, TO_FOLD
from tests.playground.timetravel import exchange_chat

SPEC = f"{exchange_chat.__file__}:graph"
THREAD = "exchanges"


@pytest.fixture
def chat_file(tmp_path, monkeypatch):
    """The chat's file in Inspect's folder, and the conversation LangGraph loads at its head."""
    folder = tmp_path / "inspect"
    folder.mkdir()
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(folder))
    path = folder / "chat.sqlite"
    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        app = exchange_chat.make_chat(SqliteSaver(conn), THREAD)
        exchange_chat.fork_chat(app, THREAD)
        loaded = exchange_chat.conversation_at(app, THREAD)
    return path, loaded


def _inspected(at):
    """Inspect with the chat's file open, at its thread's head."""
    page = at.switch_page("views/inspect.py").run()
    files = page.selectbox(key="inspect-file")
    files.select_index(files.options.index("inspect/chat.sqlite")).run()
    page.button(key="inspect-open-file").click().run()
    assert not page.exception, page.exception
    return page


def test_inspect_started_with_the_graph_shows_the_conversation_its_own_reducer_keeps(
        graph_app, chat_file, ui):
    _, loaded = chat_file

    page = _inspected(graph_app(SPEC))

    texts = ui.texts(page)
    assert f"({FOLDED_BY_GRAPH})" in texts
    assert loaded == ["it was A17", "echo: it was A17 (remembering 4)", "never mind",
                      "echo: never mind (remembering 4)"]
    for said in loaded:
        assert said in texts, said
    assert "echo: hello (remembering 0)" not in texts  # the window let the first go
    assert NOT_FOLDED_BY not in texts


def test_inspect_started_without_a_graph_shows_the_pieces_and_says_to_restart_with_it(
        app, chat_file, ui):
    page = _inspected(app())

    texts = ui.texts(page)
    assert f"shown unfolded: {NOT_FOLDED_BY}; {TO_FOLD[ON_PAGE]}" in texts
    assert "playground run ... --graph SPEC" in texts
    assert FOLDED_BY_GRAPH not in texts
