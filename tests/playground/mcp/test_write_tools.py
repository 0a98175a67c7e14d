"""The write tools of a real ``playground mcp --allow-writes`` process (``fork_with_edit``,
``replay_from``, ``resume``), through the official MCP client on stdio, on real graphs: a small
assistant in the style of LangGraph's templates (a dataclass state, a context schema read
through ``Runtime``, an async model node on the playground's stand-in model, an ``interrupt()``)
written into the test's folder, the support chat example on Postgres, and the DeltaChannel chat
example.

What each tool wrote is read back with LangGraph itself (the official saver and the graph's
``get_state_history``); "nothing was written" is counted on the database's own rows.
"""

from __future__ import annotations

import asyncio
import json
import runpy
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.mcp.server import READ_TOOLS, WRITE_TOOLS
from tests.playground import databases
from tests.playground.mcp.client import ROOT, Session, mcp_session
from tests.playground.places.other_writers import JS_FILE

PLAYGROUND = [sys.executable, "-m", "playground.cli"]
SUPPORT_CHAT = ROOT / "examples" / "support_chat.py"
DELTA_CHAT = ROOT / "examples" / "delta_chat.py"

# A small assistant as LangGraph's templates write one: a dataclass state and context, an async
# node calling a chat model (the playground's stand-in: no provider, no key), a question asked
# with interrupt(), and a last node that fails on one priority.
BRIEF_GRAPH = '''\
"""A brief assistant: it answers, asks a person to approve, then sends or holds back."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from playground.standin import StandInChatModel, text_of


@dataclass(kw_only=True)
class Context:
    reply_prefix: str = "noted"


@dataclass(kw_only=True)
class State:
    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    priority: str = "normal"
    approved: bool | None = None


def _rules(messages, tool_names):
    return AIMessage(content=f"on it: {text_of(messages[-1])}")


MODEL = StandInChatModel(rules=_rules, model_name="stand-in/brief")


async def call_model(state: State, runtime: Runtime[Context]) -> dict:
    reply = await MODEL.ainvoke(state.messages)
    return {"messages": [AIMessage(content=f"{runtime.context.reply_prefix} {reply.content}",
                                   id=reply.id)]}


def approve(state: State) -> dict:
    answer = interrupt({"question": f"Approve a {state.priority} priority reply?"})
    return {"approved": bool(answer)}


def finish(state: State) -> dict:
    if state.priority == "boom":
        raise RuntimeError("finish cannot send a boom priority reply")
    if state.priority == "wait":  # until the file BRIEF_RELEASE names is there
        release, deadline = Path(os.environ["BRIEF_RELEASE"]), time.monotonic() + 60
        while not release.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return {"messages": [AIMessage(content="sent" if state.approved else "held back")]}


builder = StateGraph(State, context_schema=Context)
builder.add_node(call_model)
builder.add_node(approve)
builder.add_node(finish)
builder.add_edge(START, "call_model")
builder.add_edge("call_model", "approve")
builder.add_edge("approve", "finish")
builder.add_edge("finish", END)
graph = builder.compile(name="Brief assistant")
'''

# The seeded threads of the SQLite place, one per test that writes: each asked once and paused
# at approve's question (#3); the ANSWERED ones were answered yes and finished (#5; #4 is where
# finish runs next).
THREADS = ("fork", "stale", "refused", "replay", "answer", "garbage")
ANSWERED = ("answered", "slow")


def config(thread_id: str, checkpoint_id: str | None = None) -> dict:
    found: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
    if checkpoint_id:
        found["configurable"].update(checkpoint_ns="", checkpoint_id=checkpoint_id)
    return found


def load_graph(path: Path) -> Any:
    """A graph file's ``graph``, imported as a user's script imports it."""
    return runpy.run_path(str(path))["graph"]


def seed(path: Path, graph: Any, threads: tuple[str, ...], answered: tuple[str, ...]) -> None:
    """Run each thread on the official async SQLite saver as an app would: asked once (it
    pauses at the question); the ``answered`` ones answered yes."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.types import Command

    context = graph.builder.context_schema()

    async def run() -> None:
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            app = graph.copy(update={"checkpointer": saver})
            for thread in (*threads, *answered):
                await app.ainvoke({"messages": [HumanMessage(f"hello from {thread}")]},
                                  config(thread), context=context)
            for thread in answered:
                await app.ainvoke(Command(resume=True), config(thread), context=context)

    asyncio.run(run())


@pytest.fixture(scope="module")
def brief(tmp_path_factory) -> tuple[Path, Path]:
    """(the graph file, a SQLite file of its threads)."""
    folder = tmp_path_factory.mktemp("writes")
    graph_file = folder / "brief.py"
    graph_file.write_text(BRIEF_GRAPH)
    database = folder / "brief.sqlite"
    seed(database, load_graph(graph_file), THREADS, ANSWERED)
    return graph_file, database


@pytest.fixture(scope="module")
def writer(brief) -> Iterator[Session]:
    """One ``playground mcp --graph ... --allow-writes`` process for the module's tests."""
    graph_file, database = brief
    with mcp_session(str(database), "--graph", f"{graph_file}:graph", "--allow-writes",
                     env={"BRIEF_RELEASE": str(release_file(brief))}) as made:
        yield made


def release_file(brief: tuple[Path, Path]) -> Path:
    """The file whose coming lets the brief graph's finish go on when the priority is
    "wait"."""
    return brief[0].parent / "release"


@pytest.fixture(scope="module")
def langgraph(brief) -> Iterator[Any]:
    """The graph on the official SqliteSaver, on a connection of its own: how LangGraph reads
    what the tools wrote."""
    graph_file, database = brief
    with closing(sqlite3.connect(database, check_same_thread=False)) as conn:
        yield load_graph(graph_file).copy(update={"checkpointer": SqliteSaver(conn)})


def rows(database: Path, thread_id: str) -> tuple[int, int]:
    """A thread's checkpoint rows and write rows, counted with the raw driver."""
    with closing(sqlite3.connect(database)) as conn:
        return tuple(conn.execute(f"SELECT count(*) FROM {table} WHERE thread_id = ?",
                                  (thread_id,)).fetchone()[0]
                     for table in ("checkpoints", "writes"))


def head_of(session: Session, thread_id: str) -> dict:
    return session.answer("get_thread", {"thread_id": thread_id})["head"]


def one_sentence(text: str) -> bool:
    return "\n" not in text and "Traceback" not in text and len(text) <= 400


# -- listed, or not; refused at start ------------------------------------------------------------


def test_without_allow_writes_no_write_tool_is_listed_though_the_named_graph_folds_reads(
        brief, tmp_path):
    graph_file, database = brief
    canary = tmp_path / "imported"
    loud = tmp_path / "loud.py"
    loud.write_text(f"from pathlib import Path\nPath({str(canary)!r}).touch()\n"
                    f"from runpy import run_path\ngraph = run_path({str(graph_file)!r})['graph']\n")

    with mcp_session(str(database), "--graph", f"{loud}:graph") as session:
        tools = session.tools()
        found = session.answer("get_thread", {"thread_id": "garbage"})  # never written

    assert set(tools) == set(READ_TOOLS)
    assert found["head"]["ordinal"] == 3
    # Named by the person starting the server: imported for its reducers, and nothing else.
    assert canary.exists()


@pytest.mark.parametrize("given", ["no graph", "several graphs", "a LangGraph.js file"])
def test_allow_writes_without_a_graph_it_can_run_ends_in_one_line(brief, tmp_path, given):
    graph_file, database = brief
    (tmp_path / "langgraph.json").write_text(json.dumps({"graphs": {
        "first": f"{graph_file}:graph", "second": f"{graph_file}:graph"}}))
    place, named, said = {
        "no graph": (database, [], "--allow-writes runs a graph: name it with --graph"),
        "several graphs": (database, ["--config", str(tmp_path / "langgraph.json")],
                           "lists 2 graphs (first, second): name the one the write tools run "
                           "with --graph-name"),
        "a LangGraph.js file": (shutil.copy(JS_FILE, tmp_path / "js.sqlite"),
                                ["--graph", f"{graph_file}:graph"],
                                "was written by LangGraph.js (JSON rows)"),
    }[given]

    result = subprocess.run([*PLAYGROUND, "mcp", str(place), *named, "--allow-writes"],
                            input="", capture_output=True, text=True, timeout=120, cwd=ROOT)

    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("playground mcp: ") and said in result.stderr


def test_the_write_tools_are_listed_as_writes_that_take_the_head_last_read(writer):
    tools = writer.tools()

    assert set(tools) == set(READ_TOOLS) | set(WRITE_TOOLS)
    for name in WRITE_TOOLS:
        tool = tools[name]
        assert tool.annotations.read_only_hint is False
        assert tool.annotations.destructive_hint is False
        assert tool.annotations.idempotent_hint is False
        assert "\n" not in tool.description and "untrusted" in tool.description
        assert "expected_head must be the head you last read" in tool.description
        assert tool.input_schema["additionalProperties"] is False
        assert {"thread_id", "expected_head"} <= set(tool.input_schema["required"])
    assert tools["fork_with_edit"].input_schema["required"] == [
        "thread_id", "checkpoint", "values", "expected_head"]
    assert tools["fork_with_edit"].input_schema["properties"]["values"]["type"] == "object"
    assert set(tools["resume"].input_schema["properties"]) == {"thread_id", "expected_head",
                                                               "answer"}


# -- fork_with_edit -------------------------------------------------------------------------------


def test_fork_with_edit_at_the_current_head_writes_a_branch_langgraph_reads(writer, langgraph):
    head = head_of(writer, "fork")
    before = list(langgraph.get_state_history(config("fork")))
    origin = before[1].config["configurable"]["checkpoint_id"]  # #2: next call_model

    found = writer.answer("fork_with_edit", {
        "thread_id": "fork", "checkpoint": origin, "values": {"priority": "high"},
        "expected_head": head["checkpoint_id"]})

    branch = found["branch"]
    assert branch["from"] == {"checkpoint_id": origin, "ordinal": 2}
    assert (branch["first"]["ordinal"], branch["last"]["ordinal"]) == (4, 5)
    assert branch["new_branch"] is True
    assert found["head"] == {**branch["last"], "source": "loop", "writers": ["call_model"]}
    assert found["paused"] is True and found["next"] == ["approve"]
    assert found["questions"][0]["text"] == "Approve a high priority reply?"
    assert found["values"]["priority"] == "high"
    assert found["values"]["messages"][-1]["content"] == "noted on it: hello from fork"
    # LangGraph reads the new branch: the edit, a child of #2, and the run on from it
    history = {s.config["configurable"]["checkpoint_id"]: s
               for s in langgraph.get_state_history(config("fork"))}
    edit = history[branch["first"]["checkpoint_id"]]
    assert edit.parent_config["configurable"]["checkpoint_id"] == origin
    assert edit.metadata["source"] == "update" and edit.values["priority"] == "high"
    state = langgraph.get_state(config("fork"))
    assert state.config["configurable"]["checkpoint_id"] == found["head"]["checkpoint_id"]
    assert state.values["priority"] == "high" and state.next == ("approve",)
    assert len(history) == len(before) + 2
    assert found["head"]["checkpoint_id"] == head_of(writer, "fork")["checkpoint_id"]


def test_a_write_on_a_stale_head_writes_nothing_and_names_the_new_checkpoint(
        writer, langgraph, brief):
    _, database = brief
    read = head_of(writer, "stale")  # what the assistant last read: #3
    # Someone else writes meanwhile: an edit made with LangGraph itself
    moved = langgraph.update_state(config("stale"), {"priority": "low"}, as_node="call_model")
    new_id = moved["configurable"]["checkpoint_id"]
    counted = rows(database, "stale")

    said = {
        "fork_with_edit": writer.error("fork_with_edit", {
            "thread_id": "stale", "checkpoint": "#2", "values": {"priority": "high"},
            "expected_head": read["checkpoint_id"]}),
        "replay_from": writer.error("replay_from", {
            "thread_id": "stale", "checkpoint": "#2", "expected_head": "#3"}),
        "resume": writer.error("resume", {"thread_id": "stale", "expected_head": "#3",
                                          "answer": True}),
    }

    assert rows(database, "stale") == counted
    for tool, text in said.items():
        assert one_sentence(text), text
        assert text.startswith(f"{tool} refused, nothing was written: thread stale moved on "
                               "since you read it: its head is now #4 ")
        assert new_id in text and "made by an edit (update_state) (source update)" in text
        assert "1 checkpoint newer than #3" in text
        assert "read the thread again with get_thread" in text
    assert head_of(writer, "stale") == {"checkpoint_id": new_id, "ordinal": 4,
                                        "next": ["approve"]}


@pytest.mark.parametrize(("values", "as_node", "why"), [
    ({"priorty": "high"}, None, "unknown key 'priorty': the state has messages, priority, "
                                "approved (did you mean 'priority'?)"),
    ({"priority": 3}, None, "wrong type for 'priority': expected str, got 3 (int)"),
    ({"approved": "yes"}, None, "wrong type for 'approved': expected bool | None"),
    ({}, None, "empty edit: set at least one of messages, priority, approved"),
    ({"priority": "high"}, "nowhere", "unknown node 'nowhere' for as_node"),
], ids=["unknown key", "wrong type", "not a bool", "empty edit", "unknown node"])
def test_a_refused_edit_writes_nothing_and_says_why_in_one_sentence(
        writer, brief, values, as_node, why):
    _, database = brief
    counted = rows(database, "refused")

    said = writer.error("fork_with_edit", {
        "thread_id": "refused", "checkpoint": "#2", "values": values, "expected_head": "#3",
        **({"as_node": as_node} if as_node else {})})

    assert said.startswith(f"fork_with_edit refused the edit, nothing was written: {why}")
    assert one_sentence(said)
    assert rows(database, "refused") == counted


# -- replay_from, resume --------------------------------------------------------------------------


def test_replay_from_grows_a_new_branch_beside_the_old_one(writer, langgraph):
    head = head_of(writer, "replay")
    origin = [s for s in langgraph.get_state_history(config("replay"))][1]  # #2

    found = writer.answer("replay_from", {"thread_id": "replay", "checkpoint": "#2",
                                          "expected_head": head["checkpoint_id"]})

    origin_id = origin.config["configurable"]["checkpoint_id"]
    assert found["branch"]["from"] == {"checkpoint_id": origin_id, "ordinal": 2}
    assert found["branch"]["new_branch"] is True and found["branch"]["checkpoints"] == 2
    assert found["next"] == ["approve"] and "priority" not in found["values"]
    assert found["values"]["messages"][-1]["content"] == "noted on it: hello from replay"
    history = list(langgraph.get_state_history(config("replay")))
    children = [s for s in history
                if (s.parent_config or {}).get("configurable", {}).get("checkpoint_id")
                == origin_id]
    assert len(children) == 2  # the old branch's #3 and the replay's first checkpoint
    assert {s.config["configurable"]["checkpoint_id"] for s in children} >= {
        found["branch"]["first"]["checkpoint_id"]}
    assert history[0].config["configurable"]["checkpoint_id"] == found["head"]["checkpoint_id"]


def test_resume_with_an_answer_finishes_a_thread_paused_at_an_interrupt(writer, langgraph):
    waiting = writer.error("resume", {"thread_id": "answer", "expected_head": "#3"})

    found = writer.answer("resume", {"thread_id": "answer", "expected_head": "#3",
                                     "answer": True})

    assert waiting == ("resume refused, nothing was written: thread answer waits for an answer "
                       "(approve asks 'Approve a normal priority reply?'): pass it as answer")
    assert found["paused"] is False and found["next"] == [] and found["questions"] == []
    assert found["ran"] == ["approve", "finish"]
    assert (found["branch"]["first"]["ordinal"], found["branch"]["last"]["ordinal"]) == (4, 5)
    assert found["branch"]["new_branch"] is False
    assert found["values"]["approved"] is True
    state = langgraph.get_state(config("answer"))
    assert state.next == () and state.values["approved"] is True
    assert state.values["messages"][-1].content == "sent"
    assert state.config["configurable"]["checkpoint_id"] == found["head"]["checkpoint_id"]


def test_a_node_that_raises_during_a_write_is_a_tool_error_and_the_server_answers_on(
        writer, langgraph):
    head = head_of(writer, "answered")  # #5, finished; #4 is where finish runs next

    said = writer.error("fork_with_edit", {
        "thread_id": "answered", "checkpoint": "#4", "values": {"priority": "boom"},
        "as_node": "approve", "expected_head": head["checkpoint_id"]})
    after = writer.answer("get_thread", {"thread_id": "answered"})

    assert said == ("fork_with_edit: the run failed in node finish: RuntimeError: finish cannot "
                    "send a boom priority reply; it wrote #6 before it stopped, and the thread "
                    "is as LangGraph left it: read it with get_thread")
    assert after["status"] == "failed" and after["error"]["node"] == "finish"
    assert after["head"]["ordinal"] == 6 and after["head"]["next"] == ["finish"]
    state = langgraph.get_state(config("answered"))
    assert state.values["priority"] == "boom" and state.next == ("finish",)
    assert [task.name for task in state.tasks if task.error] == ["finish"]


def test_reads_answer_while_a_write_s_graph_runs_and_a_second_write_waits_then_finds_it_stale(
        writer, brief):
    release = release_file(brief)
    head = head_of(writer, "slow")
    fork = {"thread_id": "slow", "checkpoint": "#4", "values": {"priority": "wait"},
            "as_node": "approve", "expected_head": head["checkpoint_id"]}
    results: dict[str, Any] = {}

    def write(name: str) -> None:
        results[name] = writer.call("fork_with_edit", fork)

    first = threading.Thread(target=write, args=("first",))
    first.start()
    try:
        # The edit is written (#6) and finish waits for the release: the reads answer meanwhile.
        deadline = time.monotonic() + 60
        while head_of(writer, "slow")["ordinal"] != 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        listed = writer.answer("list_threads", {"limit": 50})
        second = threading.Thread(target=write, args=("second",))
        second.start()
        time.sleep(0.5)
        running = first.is_alive() and second.is_alive()
    finally:
        release.touch()
        first.join(90)
    second.join(90)

    assert running and "slow" in {row["thread_id"] for row in listed["threads"]}
    assert not results["first"].is_error
    assert results["first"].structured_content["values"]["messages"][-1]["content"] == "sent"
    assert results["first"].structured_content["head"]["ordinal"] == 7
    stale = results["second"].content[0].text
    assert results["second"].is_error and stale.startswith(
        "fork_with_edit refused, nothing was written: thread slow moved on since you read it: "
        "its head is now #7 ")
    assert "written by finish (source loop), 2 checkpoints newer than #5" in stale


def test_garbage_arguments_to_each_write_tool_are_tool_errors_and_the_server_stays_alive(
        writer, brief):
    _, database = brief
    counted = rows(database, "garbage")
    good = {"thread_id": "garbage", "expected_head": "#3"}
    calls = [
        ("fork_with_edit", {}),
        ("fork_with_edit", {**good, "checkpoint": "#2", "values": ["priority", "high"]}),
        ("fork_with_edit", {**good, "checkpoint": "#2", "values": "priority=high"}),
        ("fork_with_edit", {**good, "checkpoint": "#99", "values": {"priority": "high"}}),
        ("fork_with_edit", {**good, "checkpoint": "zzzz", "values": {"priority": "high"}}),
        ("fork_with_edit", {**good, "checkpoint": "#2", "values": {"priority": "high"},
                            "force": True}),
        ("fork_with_edit", {**good, "checkpoint": "#2", "values": {"priority": {"$gt": ""}}}),
        ("fork_with_edit", {**good, "checkpoint": "#2", "values": {"priority": "x"},
                            "as_node": 7}),
        ("fork_with_edit", {"thread_id": "x" * 5000, "checkpoint": "#2",
                            "values": {"priority": "x"}, "expected_head": "#3"}),
        ("replay_from", {"thread_id": 7, "checkpoint": None, "expected_head": []}),
        ("replay_from", {**good, "checkpoint": "#2", "expected_head": ""}),
        ("replay_from", {**good, "checkpoint": "#2", "expected_head": "#0"}),
        ("replay_from", {**good, "checkpoint": "#2", "expected_head": "1f1"}),
        ("replay_from", {**good, "thread_id": "no-such-thread", "checkpoint": "#1"}),
        ("replay_from", {**good, "checkpoint": "#2", "expected_head": "#2"}),
        ("resume", {"thread_id": "garbage"}),
        ("resume", {**good, "expected_head": "#3 OR 1=1"}),
        ("resume", {**good, "answer": {"nested": [1, {"deep": None}]}, "extra": 1}),
        ("resume", good),  # it waits for an answer
    ]

    said = [(name, writer.error(name, arguments)) for name, arguments in calls]

    for name, text in said:
        assert one_sentence(text), (name, text)
        assert not text.startswith("Error executing tool"), (name, text)
    assert said[3][1] == "checkpoint: #99 is out of range: the thread has 3 checkpoints"
    assert said[11][1] == "expected_head: #0 is out of range: the thread has 3 checkpoints"
    assert said[12][1].startswith("expected_head '1f1' is not a checkpoint of thread garbage: "
                                  "give the head's full checkpoint_id or its #N")
    assert rows(database, "garbage") == counted
    assert writer.answer("list_threads", {})["threads"]
    assert head_of(writer, "garbage")["ordinal"] == 3


# -- other places, other graphs --------------------------------------------------------------------


def test_resume_answers_the_support_chat_refund_on_postgres(tmp_path):
    from langchain_core.messages import HumanMessage

    graph = load_graph(SUPPORT_CHAT)
    with databases.database("postgres", tmp_path) as made:
        app = graph.copy(update={"checkpointer": made.saver})
        app.invoke({"messages": [HumanMessage("please refund order A17")]}, config("refund"))
        with mcp_session(made.target, "--graph", f"{SUPPORT_CHAT}:graph",
                         "--allow-writes") as session:
            head = head_of(session, "refund")
            found = session.answer("resume", {"thread_id": "refund",
                                              "expected_head": head["checkpoint_id"],
                                              "answer": "yes"})
            counted = made.count("refund")
            again = session.error("resume", {"thread_id": "refund",
                                             "expected_head": head["checkpoint_id"]})
            recounted = made.count("refund")
        state = app.get_state(config("refund"))

    assert head["next"] == ["tools"]
    assert found["paused"] is False and "tools" in found["ran"]
    assert found["branch"]["first"]["ordinal"] == head["ordinal"] + 1
    assert found["branch"]["last"] == {key: found["head"][key]
                                       for key in ("checkpoint_id", "ordinal")}
    assert state.next == ()
    assert state.config["configurable"]["checkpoint_id"] == found["head"]["checkpoint_id"]
    assert any("refunded $40.00 for order A17" in str(m.content) for m in state.values["messages"])
    assert again.startswith("resume refused, nothing was written: thread refund moved on")
    assert recounted == counted


def test_with_its_graph_named_the_read_tools_fold_a_delta_channel_with_its_own_reducer(
        tmp_path):
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    graph = load_graph(DELTA_CHAT)
    database = tmp_path / "delta.sqlite"

    async def chat() -> None:
        async with AsyncSqliteSaver.from_conn_string(str(database)) as saver:
            app = graph.copy(update={"checkpointer": saver})
            for turn in range(3):
                await app.ainvoke({"messages": [HumanMessage(f"turn {turn}")]}, config("d"))

    asyncio.run(chat())
    with mcp_session(str(database), "--graph", f"{DELTA_CHAT}:graph",
                     "--allow-writes") as session:
        shown = session.answer("get_checkpoint", {"thread_id": "d"})
        head = head_of(session, "d")
        replayed = session.answer("replay_from", {"thread_id": "d", "checkpoint": "#2",
                                                  "expected_head": f"#{head['ordinal']}"})

    with closing(sqlite3.connect(database, check_same_thread=False)) as conn:
        app = graph.copy(update={"checkpointer": SqliteSaver(conn)})
        at_head = app.get_state(config("d", head["checkpoint_id"])).values
        now = app.get_state(config("d")).values
    assert shown["values"]["notes"] == at_head["notes"]
    assert at_head["notes"][-1] == "3. general: turn 2"
    assert replayed["values"]["notes"] == now["notes"] == ["1. general: turn 0"]


def test_on_an_agent_server_the_write_tools_run_the_thread_s_own_graph_there(agent_server):
    from langgraph_sdk import get_sync_client

    from playground.testing.agent_server import settled

    url, _ = agent_server
    client = get_sync_client(url=url, api_key=None)
    thread = client.threads.create()["thread_id"]  # a thread of this test's own
    client.runs.wait(thread, "support_chat", input={"messages": [
        {"role": "user", "content": "please refund order A17"}]})
    settled(client, thread)

    # No --graph: the server lists two graphs, and the thread's checkpoints name its own.
    with mcp_session(url, "--allow-writes") as session:
        head = head_of(session, thread)
        refused = session.error("fork_with_edit", {
            "thread_id": thread, "checkpoint": "#2", "values": {"topc": "x"},
            "expected_head": head["checkpoint_id"]})
        found = session.answer("resume", {"thread_id": thread, "answer": "yes",
                                           "expected_head": head["checkpoint_id"]})
    state = client.threads.get_state(thread)
    client.close()

    assert refused.startswith("fork_with_edit refused the edit, nothing was written: unknown "
                              "key 'topc'")
    assert found["paused"] is False and found["next"] == []
    assert state["checkpoint"]["checkpoint_id"] == found["head"]["checkpoint_id"]
    assert "refunded $40.00 for order A17" in state["values"]["messages"][-2]["content"]
