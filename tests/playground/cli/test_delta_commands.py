"""``playground chat``, ``diff``, ``branches`` and ``export-test`` on threads whose state lives on
LangGraph 1.2's DeltaChannel: each says what LangGraph's own values say, never the stored
snapshot marker and never an empty conversation."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from tests.playground.timetravel import delta_graphs


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def delta_db(tmp_path):
    """A stock SqliteSaver file: a chat of four turns on LangGraph's delta messages reducer
    (snapshot every 3 updates) and a log on a reducer of the app's own, forked in the middle
    of its chain."""
    path = tmp_path / "delta.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    chat = delta_graphs.make_chat(saver, "m1", snapshot_frequency=3, turns=4, keep=100)
    log = delta_graphs.make_log(saver, "log")
    delta_graphs.fork_log(log, "log")
    history = {"m1": list(chat.get_state_history({"configurable": {"thread_id": "m1"}})),
               "log": list(log.get_state_history({"configurable": {"thread_id": "log"}}))}
    conn.close()
    return path, history


def test_chat_shows_the_conversation_langgraph_loads_at_the_head_and_before_the_last_turn(
        delta_db):
    path, history = delta_db
    head = playground("chat", str(path), "--thread", "m1")
    ordinal = len(history["m1"]) - 3  # the checkpoint before the last turn's input
    before = playground("chat", str(path), "--thread", "m1", "--at", f"#{ordinal}", "--json")

    assert head.returncode == 0, head.stderr
    spoken = [line for line in head.stdout.splitlines()[1:] if line.startswith(("human", "ai"))]
    expected = [m.content for m in history["m1"][0].values["messages"]]
    assert [line.split(": ", 1)[1] for line in spoken] == expected
    assert spoken[0] == "human: hello" and spoken[-1] == "ai: echo: thanks"
    assert len(spoken) == 8
    shown = json.loads(before.stdout)["conversations"]["messages"]
    assert len(shown) == 6


def test_diff_names_the_item_a_delta_channel_gained_and_never_prints_the_snapshot_marker(
        delta_db):
    path, history = delta_db
    steps = len(history["log"])
    outputs = [playground("diff", str(path), "--thread", "log", f"#{n}", f"#{n + 1}")
               for n in range(1, steps)]

    assert all(out.returncode == 0 for out in outputs), [o.stderr for o in outputs]
    text = "\n".join(out.stdout for out in outputs)
    assert "_DeltaSnapshot" not in text and "DeltaSnapshot" not in text
    # The log gains an entry every call: some diff says so, whether the value was folded or
    # shown as its writes.
    assert "item-1" in text


def test_branches_and_history_never_print_the_snapshot_marker(delta_db):
    path, _ = delta_db
    for args in (("history", str(path), "--thread", "m1", "--json"),
                 ("branches", str(path), "--thread", "log"),
                 ("chat", str(path), "--thread", "m1", "--json")):
        result = playground(*args)
        assert result.returncode == 0, (args, result.stderr)
        assert "DeltaSnapshot" not in result.stdout, args
