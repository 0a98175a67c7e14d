"""Files written by LangGraph.js and by older LangGraph releases: every command reads them as
it reads Python's files, a JS interrupt reads as its node's question, and nothing the playground
does leaves a file its app cannot read (every write is refused in one line)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest

from playground.places.door import open_place
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.messages import message_list
from playground.timetravel.tree import load_tree
from tests.playground.places.other_writers import (
    JS_FILE,
    JS_QUESTION,
    OLDER_PYTHON_FILE,
    copy_of,
    needs_node,
    read_back,
    run_node,
)


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args], capture_output=True,
                          text=True, timeout=120)


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def js_file(tmp_path):
    return copy_of(JS_FILE, tmp_path)


@pytest.fixture
def older_file(tmp_path):
    return copy_of(OLDER_PYTHON_FILE, tmp_path)


def stored_parents(path, thread: str) -> dict[str, str | None]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return dict(conn.execute("SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints "
                                 "WHERE thread_id = ? AND checkpoint_ns = ''", (thread,)))


@pytest.mark.parametrize(("fixture", "writer"), [
    ("js_file", "LangGraph.js (JSON)"), ("older_file", "LangGraph (Python, before task_path)")])
def test_threads_names_the_files_writer_and_lists_every_thread(request, fixture, writer):
    path = request.getfixturevalue(fixture)

    result = playground("threads", str(path))

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"{path}: written by {writer}"


def test_a_js_file_lists_its_three_threads_with_their_status(js_file):
    with closing(open_place(js_file).reads()) as reads:
        threads = {t.thread_id: t for t in reads.threads()}

    assert {tid: (t.checkpoints, t.branches, t.head_next) for tid, t in threads.items()} == {
        "chat": (13, 3, ()), "refund": (8, 2, ()), "waiting": (3, 1, ("approve",))}


@pytest.mark.parametrize("thread", ["chat", "refund", "waiting"])
def test_a_js_threads_tree_is_its_stored_parents(js_file, thread):
    with closing(open_place(js_file).reads()) as reads:
        tree = load_tree(reads, thread, all_details=True)

    assert {cid: record.parent_id for cid, record in tree.nodes.items()} == stored_parents(
        js_file, thread)
    assert all(detail.problem is None for detail in tree.details.values())


def test_a_js_interrupt_reads_as_the_question_of_the_node_that_asked_it(js_file):
    result = playground("history", str(js_file), "--thread", "waiting")

    assert result.returncode == 0, result.stderr
    assert f"? approve asks: {JS_QUESTION}" in result.stdout
    assert '"id"' not in result.stdout  # the interrupt's envelope is not shown raw


def test_a_js_answer_reads_as_the_answer_to_its_question(js_file):
    with closing(open_place(js_file).reads()) as reads:
        signals = [s for found in reads.signals("refund").values() for s in found]

    assert ("interrupt", "approve", JS_QUESTION) in {(s.kind, s.node, s.text) for s in signals}
    assert {s.text for s in signals if s.kind == "answer"} == {"yes", "no"}


def test_a_js_chat_reads_as_a_conversation_with_the_tool_call_beside_its_result(js_file):
    result = playground("chat", str(js_file), "--thread", "chat")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1:] == [
        "human: Where is order A17?",
        '  tool call lookup_order(order_id="A17")',
        "    -> lookup_order: Order A17 is shipped on Monday with DHL, arriving Thursday.",
        "ai: Order A17 is shipped on Monday with DHL, arriving Thursday. Anything else I can "
        "help with?"]
    with closing(open_place(js_file).reads()) as reads:
        tree = load_tree(reads, "chat")
        values = reads.values("chat", tree.head)
    tool = next(m for m in message_list(values["messages"]) if m.role == "tool")
    assert "undefined" not in json.dumps(values["messages"], default=str)
    assert tool.name == "lookup_order"


@pytest.mark.parametrize("command", [
    ("history", "--thread", "chat"), ("history", "--thread", "chat", "--json"),
    ("history", "--thread", "chat", "--dot"), ("branches", "--thread", "chat"),
    ("export", "--thread", "refund"), ("chat", "--thread", "chat")])
def test_every_reading_command_reads_a_js_file(js_file, command):
    result = playground(command[0], str(js_file), *command[1:])

    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout


def test_diff_of_two_js_checkpoints_shows_what_changed(js_file):
    with closing(open_place(js_file).reads()) as reads:
        tree = load_tree(reads, "refund")
    first, head = next(iter(tree.nodes)), tree.head

    result = playground("diff", str(js_file), "--thread", "refund", first, head)

    assert result.returncode == 0, result.stderr
    assert "decision" in result.stdout and "no" in result.stdout


@pytest.mark.parametrize("fixture", ["js_file", "older_file"])
@pytest.mark.parametrize("command", [
    ("prune", "--thread", "{thread}", "--keep", "2"),
    ("migrate", "--rename", "status=state", "--apply"),
    ("import", "{export}")])
def test_every_write_to_a_file_of_another_writer_is_refused_in_one_line(
        request, tmp_path, fixture, command):
    path = request.getfixturevalue(fixture)
    thread = "refund" if fixture == "js_file" else "ticket"
    export = tmp_path / "thread.json"
    with closing(open_place(path).reads()) as reads:
        from playground.timetravel.transfer import export_thread

        export.write_text(json.dumps(export_thread(reads, thread)))
    before = digest(path)

    result = playground(command[0], str(path),
                        *(part.format(thread=thread, export=export) for part in command[1:]))

    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "never writes to it" in line
    assert digest(path) == before


@needs_node
def test_a_js_file_the_playground_refused_to_write_is_read_by_langgraphjs_as_before(js_file):
    before = read_back(copy_of(js_file, js_file.parent, "before.sqlite"))
    for command in (("prune", str(js_file), "--thread", "chat", "--keep", "2"),
                    ("migrate", str(js_file), "--rename", "messages=msgs", "--apply")):
        assert playground(*command).returncode == 2
    for thread in ("chat", "refund", "waiting"):  # every read command, too
        assert playground("history", str(js_file), "--thread", thread).returncode == 0

    assert read_back(js_file) == before


@needs_node
def test_our_reading_of_a_js_file_matches_langgraphjs_own(js_file):
    theirs = read_back(copy_of(js_file, js_file.parent, "theirs.sqlite"))
    with closing(open_place(js_file).reads()) as reads:
        ours = {}
        for thread in reads.thread_ids():
            tree = load_tree(reads, thread, all_details=True)
            waiting = [s for s in reads.signals(thread).get(tree.head, ())
                       if s.kind == "interrupt"]
            ours[thread] = (len(tree), len(tree.leaves), tree.head,
                            list(tree.details[tree.head].next), [s.value for s in waiting])

    assert ours == {thread: (line["checkpoints"], line["branches"], line["head_checkpoint_id"],
                             line["head_next"], line["head_interrupts"])
                    for thread, line in theirs.items()}


@needs_node
def test_the_generator_still_makes_files_of_the_committed_shape(tmp_path):
    made = tmp_path / "made.sqlite"

    result = run_node("make_fixtures.mjs", str(made))

    assert result.returncode == 0, result.stderr

    def shape(path):
        with closing(open_place(copy_of(path, tmp_path, f"shape-{path.name}")).reads()) as reads:
            return {t.thread_id: (t.checkpoints, t.branches, t.head_next)
                    for t in reads.threads()}

    assert shape(made) == shape(JS_FILE)


def test_an_older_python_file_reads_with_its_question_and_node(older_file):
    result = playground("history", str(older_file), "--thread", "ask")

    assert result.returncode == 0, result.stderr
    assert f"? approve asks: {JS_QUESTION}" in result.stdout


def test_graphs_cannot_run_on_a_js_file(js_file):
    with pytest.raises(CheckpointDbError, match="never writes to it"):
        open_place(js_file).reads(writable=True)


def test_playground_run_on_a_js_file_is_refused_before_anything_is_written(js_file):
    before = digest(js_file)

    result = playground("run", "--graph", "examples/support_chat.py:graph",
                        "--checkpoints", str(js_file))

    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "LangGraph.js" in line and "never writes to it or runs a graph" in line
    assert digest(js_file) == before


@pytest.mark.parametrize(("make", "says"), [
    (lambda folder: (folder / ".langgraph_api").mkdir() or folder / ".langgraph_api",
     "langgraph dev's in-memory store (pickle): never opened, since unpickling runs code; "
     "open the server's URL instead (playground threads http://127.0.0.1:2024"),
    (lambda folder: (folder / "store.pckl").write_bytes(b"\x80\x04\x95") and
     folder / "store.pckl", "langgraph dev's in-memory store (pickle): never opened"),
    (lambda folder: folder, "a folder, not a file: name the checkpoint file in it"),
    (lambda folder: (folder / "empty.sqlite").write_bytes(b"") or folder / "empty.sqlite",
     "the file is empty"),
    (lambda folder: _sqlite_with(folder / "other.sqlite", "CREATE TABLE users (id INTEGER)"),
     "not a LangGraph checkpoint database (no checkpoints or writes table"),
    (lambda folder: _sqlite_with(folder / "odd.sqlite",
                                 "CREATE TABLE checkpoints (thread_id TEXT)",
                                 "CREATE TABLE writes (thread_id TEXT)"),
     "its checkpoints table has no checkpoint, checkpoint_id, checkpoint_ns, metadata, "
     "parent_checkpoint_id, type column"),
])
def test_a_file_that_is_not_opened_says_what_it_is_in_one_line(tmp_path, make, says):
    target = make(tmp_path)

    result = playground("threads", str(target))

    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert says in line
    assert "Traceback" not in result.stderr


def _sqlite_with(path, *statements):
    with closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()
    return path


@pytest.mark.parametrize("make", [
    lambda folder: (folder / "new.sqlite"),
    lambda folder: (folder / "empty.sqlite").write_bytes(b"") or folder / "empty.sqlite",
    lambda folder: _sqlite_with(folder / "app.sqlite", "CREATE TABLE users (id INTEGER)"),
], ids=["missing", "empty", "an-apps-own-tables"])
def test_graphs_run_on_a_file_that_holds_no_checkpoints_yet(tmp_path, make):
    # As SqliteSaver.setup() does: the saver makes its tables in a file it may write.
    target = make(tmp_path)

    with open_place(target).saver() as saver:
        assert list(saver.list(None)) == []
    assert "checkpoints" in {row[0] for row in sqlite3.connect(target).execute(
        "SELECT name FROM sqlite_master")}
