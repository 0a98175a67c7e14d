"""``history``, ``diff``, ``chat``, ``branches`` and ``timeline`` with ``--graph`` or ``--config``:
the app's own DeltaChannel reducer folds the values shown, as LangGraph loads them; without it,
the stored pieces and the CLI's own hint; a graph that does not load is one line and exit 2.

The thread is a chat whose conversation lives on a DeltaChannel with a reducer only its file
knows (``exchange_chat``: a window of the last two exchanges), written by a real run on the
real SqliteSaver, with a fork; LangGraph's ``get_state`` on the same file is the oracle.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.timetravel.delta import ON_CLI, TO_FOLD
from playground.timetravel.records import checkpoint_name
from tests.playground.timetravel import exchange_chat

GRAPH_FILE = exchange_chat.__file__
SPEC = f"{GRAPH_FILE}:graph"
THREAD = "exchanges"
CLI_HINT = TO_FOLD[ON_CLI]


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def chat_db(tmp_path_factory):
    """(the file, LangGraph's view of it): four turns of the exchange chat and a fork of the
    last one, on the stock SqliteSaver; the view gives the conversation LangGraph loads at a
    checkpoint, and every checkpoint of the thread, oldest first."""
    path = tmp_path_factory.mktemp("graph-reads") / "chat.sqlite"
    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        app = exchange_chat.make_chat(SqliteSaver(conn), THREAD)
        exchange_chat.fork_chat(app, THREAD)
        history = list(reversed(list(app.get_state_history(
            {"configurable": {"thread_id": THREAD}}))))
        loaded = {snapshot.config["configurable"]["checkpoint_id"]:
                  [m.content for m in snapshot.values.get("messages") or []]
                  for snapshot in history}
    return path, loaded, [s.config["configurable"]["checkpoint_id"] for s in history]


def said(output: str) -> list[str]:
    """The conversation lines of ``chat``'s output, as ``role: text``, without the role."""
    return [line.split(": ", 1)[1] for line in output.splitlines()
            if line.startswith(("human: ", "ai: "))]


def test_chat_with_the_graph_shows_the_conversation_its_own_reducer_keeps(chat_db):
    path, loaded, ids = chat_db
    head = playground("chat", str(path), "--thread", THREAD, "--graph", SPEC)
    alone = playground("chat", str(path), "--thread", THREAD)

    assert head.returncode == 0, head.stderr
    assert said(head.stdout) == loaded[ids[-1]]
    assert said(head.stdout) == ["it was A17", "echo: it was A17 (remembering 4)", "never mind",
                                 "echo: never mind (remembering 4)"]
    assert "not folded" not in head.stdout
    # Alone, the file holds no conversation it can fold: the pieces as stored, and the hint.
    assert alone.returncode == 0, alone.stderr
    assert said(alone.stdout) == []
    assert "messages at #" in alone.stdout and "not folded: snapshot at #" in alone.stdout
    assert alone.stdout.rstrip().endswith(f"{CLI_HINT}")


def test_chat_json_with_the_graph_holds_the_messages_and_without_it_the_pieces(chat_db):
    path, loaded, ids = chat_db
    folded = json.loads(playground("chat", str(path), "--thread", THREAD, "--json",
                                   "--graph", SPEC).stdout)
    alone = json.loads(playground("chat", str(path), "--thread", THREAD, "--json").stdout)

    assert [m["content"] for m in folded["conversations"]["messages"]] == loaded[ids[-1]]
    assert folded["not_folded"] == {}
    assert alone["conversations"] == {}
    assert alone["not_folded"]["messages"]["folded by"].endswith(CLI_HINT)


def test_diff_with_the_graph_shows_the_window_drop_an_exchange_and_gain_one(chat_db):
    path, loaded, ids = chat_db
    # The third turn's step: the window drops the first exchange and takes the third.
    step = next(n for n, cid in enumerate(ids, 1) if loaded[cid][:1] == ["where is my order?"]
                and loaded[ids[n - 2]][:1] == ["hello"])
    folded = playground("diff", str(path), "--thread", THREAD, f"#{step}", "--graph", SPEC)
    alone = playground("diff", str(path), "--thread", THREAD, f"#{step}")

    assert folded.returncode == 0, folded.stderr
    lines = folded.stdout.splitlines()[1:]
    assert "- human: hello" in lines and "- ai: echo: hello (remembering 0)" in lines
    assert "+ human: it was A17" in lines and "+ ai: echo: it was A17 (remembering 4)" in lines
    assert "not folded" not in folded.stdout
    assert alone.returncode == 0, alone.stderr
    assert f"messages at #{step - 1}, not folded: the empty start, then writes the app's " \
           "reducer folds: #" in alone.stdout
    assert alone.stdout.splitlines()[-1] == f"note: the app's own reducer folds these writes; " \
                                            f"{CLI_HINT}"


def test_branches_with_the_graph_compares_the_conversations_each_branch_ends_with(chat_db):
    path, _, _ = chat_db
    folded = playground("branches", str(path), "--thread", THREAD, "--graph", SPEC)
    alone = playground("branches", str(path), "--thread", THREAD)

    assert folded.returncode == 0, folded.stderr
    final = folded.stdout.split("final state, left -> right:", 1)[1].splitlines()
    assert "  - human: thanks" in final and "  + human: never mind" in final
    assert "writes since" not in folded.stdout and "not folded" not in folded.stdout
    assert alone.returncode == 0, alone.stderr
    assert "writes since" in alone.stdout  # the stored pieces, compared as they are
    assert alone.stdout.rstrip().endswith(CLI_HINT)


def test_history_and_timeline_take_the_graph_and_print_what_they_print_without_it(chat_db):
    path, _, _ = chat_db
    for command in ("history", "timeline"):
        alone = playground(command, str(path), "--thread", THREAD)
        named = playground(command, str(path), "--thread", THREAD, "--graph", SPEC)

        assert alone.returncode == named.returncode == 0, named.stderr
        # Neither prints a state value: the same lines, and never a hint to add --graph.
        assert named.stdout == alone.stdout
        assert "--graph" not in alone.stdout


def test_config_names_the_graph_as_graph_does(chat_db, tmp_path):
    path, loaded, ids = chat_db
    config = tmp_path / "langgraph.json"
    config.write_text(json.dumps({"graphs": {"chat": SPEC, "other": SPEC}}))

    shown = playground("chat", str(path), "--thread", THREAD, "--config", str(config),
                       "--graph-name", "chat")

    assert shown.returncode == 0, shown.stderr
    assert said(shown.stdout) == loaded[ids[-1]]


def test_history_names_each_checkpoint_as_the_tree_and_mcp_do(chat_db):
    path, _, _ = chat_db
    table = playground("history", str(path), "--thread", THREAD)
    data = json.loads(playground("history", str(path), "--thread", THREAD, "--json").stdout)

    assert table.returncode == 0, table.stderr
    heading, *rows = table.stdout.splitlines()[1:]
    start, end = heading.index("checkpoint"), heading.index("next")
    names = [row[start:end].strip() for row in rows if row[:5].strip().isdigit()]
    assert names == [checkpoint_name(c["source"], tuple(c["writers"]))
                     for c in data["checkpoints"]]
    assert names[:3] == ["input", "loop · __start__", "loop · respond"]
    assert "update" in names  # the fork's edit (update_state as the input: no node named)
    assert "written by" not in heading and "source" not in heading


BROKEN_GRAPHS = {
    "a file that is not there": ("--graph", "{folder}/missing.py:graph"),
    "a file that raises": ("--graph", "{folder}/raises.py:graph"),
    "a langgraph.json of two graphs, none named": ("--config", "{folder}/langgraph.json"),
}


@pytest.mark.parametrize("command", ["history", "diff", "chat", "branches", "timeline"])
@pytest.mark.parametrize("broken", list(BROKEN_GRAPHS))
def test_a_graph_that_does_not_load_is_one_line_and_exit_2(chat_db, tmp_path, command, broken):
    path, _, _ = chat_db
    (tmp_path / "raises.py").write_text("raise RuntimeError('the app needs OPENAI_API_KEY')\n")
    (tmp_path / "langgraph.json").write_text(json.dumps({"graphs": {"a": SPEC, "b": SPEC}}))
    before = path.read_bytes()
    flag, value = BROKEN_GRAPHS[broken]
    extra = ["#3"] if command == "diff" else []

    result = playground(command, str(path), "--thread", THREAD, *extra, flag,
                        value.format(folder=tmp_path))

    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith(f"playground {command}: ")
    assert "Traceback" not in result.stderr
    assert {"a file that is not there": "no such file",
            "a file that raises": "the app needs OPENAI_API_KEY",
            "a langgraph.json of two graphs, none named": "lists 2 graphs (a, b): name the one "
            "whose reducers fold the values with --graph-name"}[broken] in result.stderr
    assert path.read_bytes() == before


STRICT_GRAPH = '''
from typing import Annotated

from langgraph.channels.delta import DeltaChannel
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


def strict(state, writes):
    raise ValueError("an exchange without a model name")


class State(TypedDict, total=False):
    messages: Annotated[list, DeltaChannel(strict)]


builder = StateGraph(State)
builder.add_node("respond", lambda state: {})
builder.add_edge(START, "respond")
builder.add_edge("respond", END)
graph = builder.compile()
'''


def test_a_graph_whose_reducer_raises_on_the_stored_writes_says_so_and_no_hint(chat_db,
                                                                              tmp_path):
    path, _, _ = chat_db
    strict = tmp_path / "strict.py"
    strict.write_text(STRICT_GRAPH)

    shown = playground("chat", str(path), "--thread", THREAD, "--graph", f"{strict}:graph")

    assert shown.returncode == 0, shown.stderr
    assert "not folded: snapshot at #" in shown.stdout
    assert shown.stdout.splitlines()[-1] == (
        "note: the app's own reducer folds these writes; the graph's reducer failed on them: "
        "ValueError: an exchange without a model name")
    assert "--graph" not in shown.stdout
