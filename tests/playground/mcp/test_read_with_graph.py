"""A read-only ``playground mcp PLACE --graph SPEC``: the app's own DeltaChannel reducer folds the
values the read tools show, as LangGraph loads them, and no write tool is listed; without a
graph the stored pieces say to start the server with one; a graph that does not load stops the
server before it starts, in one line.

The thread is a chat whose conversation lives on a DeltaChannel with a reducer only its file
knows (``exchange_chat``), written by a real run on the real SqliteSaver, served by a real
``playground mcp`` process through the official MCP client.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.mcp.server import READ_TOOLS
from playground.timetravel.delta import FOLDED_BY_GRAPH, ON_MCP, TO_FOLD, UNFOLDED_NOTE
from tests.playground.mcp.client import ROOT, mcp_session
from tests.playground.timetravel import exchange_chat

SPEC = f"{exchange_chat.__file__}:graph"
THREAD = "exchanges"


@pytest.fixture(scope="module")
def chat_db(tmp_path_factory):
    """(the file, the conversation LangGraph loads at the head): four turns of the exchange
    chat and a fork of the last one, on the stock SqliteSaver."""
    path = tmp_path_factory.mktemp("mcp-graph-reads") / "chat.sqlite"
    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        app = exchange_chat.make_chat(SqliteSaver(conn), THREAD)
        exchange_chat.fork_chat(app, THREAD)
        loaded = exchange_chat.conversation_at(app, THREAD)
    return path, loaded


def test_read_only_with_the_graph_folds_the_conversation_and_lists_no_write_tool(chat_db):
    path, loaded = chat_db
    with mcp_session(str(path), "--graph", SPEC) as session:
        tools = session.tools()
        checkpoint = session.answer("get_checkpoint", {"thread_id": THREAD})
        conversation = session.answer("get_conversation", {"thread_id": THREAD})
        thread = session.answer("get_thread", {"thread_id": THREAD})

    assert set(tools) == set(READ_TOOLS)
    assert [m["content"] for m in checkpoint["values"]["messages"]] == loaded
    assert loaded == ["it was A17", "echo: it was A17 (remembering 4)", "never mind",
                      "echo: never mind (remembering 4)"]
    assert all(FOLDED_BY_GRAPH in line for line in checkpoint["rebuilt"])
    assert [turn["text"] for turn in conversation["turns"]] == loaded
    assert thread["head"]["checkpoint_id"] == checkpoint["checkpoint_id"]


def test_read_only_without_a_graph_shows_the_pieces_and_says_to_start_it_with_one(chat_db):
    path, _ = chat_db
    with mcp_session(str(path)) as session:
        checkpoint = session.answer("get_checkpoint", {"thread_id": THREAD})

    stored = checkpoint["values"]["messages"]
    assert stored[UNFOLDED_NOTE].endswith(TO_FOLD[ON_MCP])
    assert "playground mcp PLACE --graph SPEC" in stored[UNFOLDED_NOTE]
    assert [write["value"]["asked"]["content"] for write in stored["writes since"]] == [
        "never mind"]
    assert any(TO_FOLD[ON_MCP] in line for line in checkpoint["rebuilt"])


def test_a_graph_that_does_not_load_stops_the_read_only_server_in_one_line(chat_db, tmp_path):
    path, _ = chat_db
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('the app needs OPENAI_API_KEY')\n")

    result = subprocess.run([sys.executable, "-m", "playground.cli", "mcp", str(path),
                             "--graph", f"{broken}:graph"], input="", capture_output=True,
                            text=True, timeout=120, cwd=ROOT)

    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("playground mcp: ")
    assert "the app needs OPENAI_API_KEY" in result.stderr and "Traceback" not in result.stderr
