"""One status, said the same on every surface: the thread list (CLI text and ``--json``), the
history (CLI text and ``--json``), the tree's branch labels, MCP's ``get_thread`` and
Inspect's badge, over the same threads made by stock LangGraph on a real SqliteSaver: one that
finished, one paused at a question, one paused before a node, one that failed, a fork, a
replay and a re-run. The test fails when any two surfaces disagree about a thread's head.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from contextlib import closing, suppress
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from playground.mcp.threads import get_thread
from playground.places.door import open_storage
from playground.runtime.driven import driven
from playground.runtime.rerun import rerun
from playground.runtime.run import record_stop
from playground.timetravel.recording import record_branch
from playground.timetravel.tree import load_tree
from playground.timetravel.tree_layout import tree_layout

# thread -> (status of its head, the words every surface says, the head branch's name)
EXPECTED = {
    "finished": ("finished", "finished", "original run"),
    "asks": ("paused", 'paused: decide asks "Send hi?"', "original run"),
    "breakpoint": ("paused", "paused before act", "original run"),
    "failed": ("failed", "failed in act: RuntimeError('act cannot send boom')", "original run"),
    # a person stopped the run in act (Stop; an Agent Server's cancel): its task's error is a
    # CancelledError, which is no failure
    "stopped": ("stopped", "stopped in act: Continue runs it on", "original run"),
    "forked": ("paused", 'paused: decide asks "Send edited?"', "fork of #3 (edited)"),
    "replayed": ("paused", 'paused: decide asks "Send again?"', "replay of #3"),
    "rerun": ("finished", "finished", "re-run of #3 on current code"),
    # failed, then forked with the input that failed edited: a failed branch beside the head
    "refixed": ("paused", 'paused: decide asks "Send boom?"', "fork of #3 (edited)"),
}


class State(TypedDict, total=False):
    text: str
    said: str
    sent: bool


def _fetch(state: State) -> dict:
    return {"said": state["text"]}


def _decide(state: State) -> dict:
    return {"sent": interrupt({"question": f"Send {state['said']}?"}) == "yes"}


def _act(state: State) -> dict:
    if "boom" in state["text"]:
        raise RuntimeError("act cannot send boom")
    return {"said": state["said"] + "!"}


def _graph(saver, breakpoint: bool = False):
    builder = StateGraph(State)
    builder.add_node("fetch", _fetch)
    builder.add_node("decide", _decide)
    builder.add_node("act", _act)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", "decide")
    builder.add_edge("decide", "act")
    builder.add_edge("act", END)
    return builder.compile(checkpointer=saver, interrupt_before=["act"] if breakpoint else None)


def _config(thread: str, checkpoint: str | None = None) -> dict:
    configurable = {"thread_id": thread}
    if checkpoint:
        configurable["checkpoint_id"] = checkpoint
    return {"configurable": configurable}


def _after_fetch(graph, thread: str) -> dict:
    """The config of the checkpoint `fetch` wrote (#3: input, start, fetch)."""
    history = list(graph.get_state_history(_config(thread)))
    return next(s.config for s in history if s.next == ("decide",) and s.metadata["step"] == 1)


@pytest.fixture(scope="module")
def threads_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("one-status") / "threads.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    graph, stopping = _graph(saver), _graph(saver, breakpoint=True)

    def answered(thread: str, text: str, answer: str = "yes", on=graph) -> None:
        on.invoke({"text": text}, _config(thread))
        on.invoke(Command(resume=answer), _config(thread))

    answered("finished", "hello")
    graph.invoke({"text": "hi"}, _config("asks"))
    answered("breakpoint", "soon", on=stopping)
    answered("stopped", "later", on=stopping)
    # What LangGraph stores for a task cancelled while it ran (its runner's own write; the
    # playground records it for a run it stopped: runtime/run.py's record_stop).
    record_stop(driven(stopping), _config("stopped"))
    with suppress(RuntimeError):
        answered("failed", "boom")
    with suppress(RuntimeError):
        answered("refixed", "boom")
    refixed = graph.update_state(_after_fetch(graph, "refixed"), {"text": "fine"},
                                 as_node="fetch")
    graph.invoke(None, refixed)
    answered("forked", "first")
    edited = graph.update_state(_after_fetch(graph, "forked"), {"said": "edited"},
                                as_node="fetch")
    graph.invoke(None, edited)
    answered("replayed", "again")
    graph.invoke(None, _after_fetch(graph, "replayed"))
    answered("rerun", "once")
    with closing(open_storage(path)) as storage:
        tree = load_tree(storage, "rerun")
        start = next(cid for cid in tree.current_branch if tree.ordinal(cid) == 3)
        recording = record_branch(storage, tree, start)
    outcome = rerun(graph, recording)
    assert outcome.status == "done", outcome.message
    conn.close()
    return path


def playground(*args: str) -> subprocess.CompletedProcess:
    """The `playground` command as a person runs it."""
    return subprocess.run([sys.executable, "-m", "playground.cli", *args], capture_output=True,
                          text=True, timeout=120)


def _cli_rows(threads_db: Path) -> tuple[dict, dict]:
    listed = playground("threads", str(threads_db), "--json")
    assert listed.returncode == 0, listed.stderr
    as_json = {row["thread_id"]: row for row in json.loads(listed.stdout)["threads"]}
    text = playground("threads", str(threads_db))
    assert text.returncode == 0, text.stderr
    lines = {line.split()[0]: line for line in text.stdout.splitlines()[2:]}
    return as_json, lines


def _layout_label(threads_db: Path, thread: str) -> tuple[str, str]:
    with closing(open_storage(threads_db)) as storage:
        tree = load_tree(storage, thread)
        layout = tree_layout(storage, tree)
    branch = next(b for b in layout.branches if b.tip == tree.head)
    return branch.label, branch.origin


def _mcp(threads_db: Path, thread: str) -> dict:
    with closing(open_storage(threads_db)) as storage:
        return get_thread(storage, thread_id=thread, limit=20).data


@pytest.mark.parametrize("thread", list(EXPECTED))
def test_every_surface_says_the_same_status_for_the_head(threads_db, thread):
    status, said, name = EXPECTED[thread]
    rows, lines = _cli_rows(threads_db)

    assert (rows[thread]["status"], rows[thread]["said"]) == (status, said)
    assert lines[thread].endswith(said.split(": RuntimeError")[0]) or said in lines[thread]

    history = json.loads(playground("history", str(threads_db), "--thread", thread,
                                    "--json").stdout)
    head = next(c for c in history["checkpoints"] if c["checkpoint_id"] == history["head"])
    assert (head["status"], head["status_said"]) == (status, said)
    assert head["paused"] is (status == "paused")  # failed is never paused

    text = playground("history", str(threads_db), "--thread", thread).stdout
    head_line = next(line for line in text.splitlines() if " HEAD" in line)
    assert re.search(rf"HEAD {status}\b", head_line) or (status == "finished"
                                                        and "paused" not in head_line
                                                        and "failed" not in head_line)

    label, origin = _layout_label(threads_db, thread)
    # (a tip's label says a stop without its action, which the inspector says)
    short = said if len(said) < 40 and status != "stopped" else said.split(":")[0]
    assert label.startswith(f"head · {short}") and label.endswith(f" · {name}")
    assert origin == name

    found = _mcp(threads_db, thread)
    assert (found["status"], found["status_said"]) == (status, said)
    mcp_head = next(c for c in found["checkpoints"] if c["ordinal"] == found["head"]["ordinal"])
    assert (mcp_head["status"], mcp_head["status_said"]) == (status, said)


def test_inspect_badges_each_head_as_the_tree_labels_it(threads_db, app, monkeypatch, ui):
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(threads_db.parent))
    at = app().switch_page("views/inspect.py").run()
    files = at.selectbox(key="inspect-file")
    files.select_index(files.options.index(f"{threads_db.parent.name}/threads.sqlite")).run()
    at.button(key="inspect-open-file").click().run()

    for thread, (status, _said, _name) in EXPECTED.items():
        at.selectbox(key="inspect-thread").set_value(thread).run()
        header = next(text for text in ui.texts(at).splitlines()
                      if text.startswith("**Checkpoint #"))
        assert "head" in header, header
        badges = set(re.findall(r":(\w+)-badge\[(\w+)\]", header))
        assert {kind for _, kind in badges} - {"head", "fork point"} == (
            set() if status == "finished" else {status}), (thread, header)


def test_compare_says_a_failed_branch_failed_never_that_it_waits(threads_db):
    text = playground("branches", str(threads_db), "--thread", "refixed")
    as_json = json.loads(playground("branches", str(threads_db), "--thread", "refixed",
                                    "--json").stdout)

    assert text.returncode == 0, text.stderr
    left = next(line for line in text.stdout.splitlines() if line.startswith("left:"))
    assert left.endswith("(failed in act)"), left
    assert "waits at" not in text.stdout
    assert (as_json["left_status"], as_json["right_status"]) == ("failed", "paused")
