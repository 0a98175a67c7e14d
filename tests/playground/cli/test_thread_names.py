"""A page shows a thread by its name (``thread-1``); the playground stores it inside its room
(``43d16b7762/thread-1``). The commands take either, as separate processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from playground.apps.launch import AppChoice, load_app
from playground.runtime.run import GraphRun
from playground.savers import open_saver
from playground.ui.workspace import Workspace

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


def _chat_in_rooms(path: Path, *rooms: str) -> None:
    """The support chat's thread-1, asked one question in each room, as its Run page does."""
    app = load_app(AppChoice(graph=f"{EXAMPLES}/support_chat.py:graph"))
    with open_saver(path, app.serde()) as saver:
        graph = app.graph(saver)
        for room in rooms:
            config = {"configurable": {"thread_id": Workspace(room).thread_id("thread-1")}}
            list(GraphRun(graph, config, {"messages": [HumanMessage("Where is my order A17?")]}))


@pytest.mark.parametrize("command", ["history", "timeline", "chat"])
def test_the_name_a_page_shows_is_taken_and_the_stored_id_said(command, tmp_path):
    db = tmp_path / "support_chat.sqlite"
    _chat_in_rooms(db, "43d16b7762")

    by_name = playground(command, str(db), "--thread", "thread-1")
    by_id = playground(command, str(db), "--thread", "43d16b7762/thread-1")

    assert by_name.returncode == 0, by_name.stderr
    assert "'thread-1' is stored as '43d16b7762/thread-1'" in by_name.stderr
    assert by_name.stdout == by_id.stdout and by_id.returncode == 0


def test_a_name_in_several_rooms_is_refused_with_each_stored_id(tmp_path):
    db = tmp_path / "support_chat.sqlite"
    _chat_in_rooms(db, "43d16b7762", "monday-class")

    shown = playground("history", str(db), "--thread", "thread-1")

    assert shown.returncode == 2
    assert "2 rooms hold a thread of that name" in shown.stderr
    assert "43d16b7762/thread-1" in shown.stderr and "monday-class/thread-1" in shown.stderr
    assert "Traceback" not in shown.stderr


def test_an_unknown_name_is_still_one_line_and_exit_2(tmp_path):
    db = tmp_path / "support_chat.sqlite"
    _chat_in_rooms(db, "43d16b7762")

    shown = playground("timeline", str(db), "--thread", "thread-9")

    assert shown.returncode == 2 and shown.stderr.count("\n") == 1
    assert "no thread 'thread-9'" in shown.stderr
