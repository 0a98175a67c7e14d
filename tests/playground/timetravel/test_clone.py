"""Clone: a thread (or one branch) copied from a SQLite file or a Postgres database into a
writable place, read back by LangGraph's own ``get_state_history`` as its source reads, replayed
and forked there, the source's rows untouched, and a taken id refused before anything is
written. Every source is made by the real savers; ``database`` runs each test on both kinds."""

from __future__ import annotations

import operator
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from playground.places.door import open_storage
from playground.timetravel.clone import (
    ACROSS_KINDS,
    BYTE_FOR_BYTE,
    branch_of,
    clone_thread,
)
from playground.timetravel.errors import UnknownThread
from playground.timetravel.storage import CheckpointLink
from playground.timetravel.transfer import TransferRefused
from tests import postgres
from tests.playground import databases, hostile_db
from tests.playground.databases import Database, saver_on
from tests.playground.places.other_writers import JS_FILE, OLDER_PYTHON_FILE, copy_of
from tests.playground.timetravel.delta_graphs import chat_graph, make_chat
from tests.playground.timetravel.sample_graphs import config, make_nested, nested_graph


class AskState(TypedDict, total=False):
    ticket: str
    draft: str
    answer: str
    log: Annotated[list, operator.add]


def ask_graph(saver: BaseCheckpointSaver | None):
    """draft -> ask (``interrupt()`` for approval) -> finish: a plain graph with a question."""

    def draft(state: AskState) -> dict:
        return {"draft": f"refund {state['ticket']}", "log": ["draft"]}

    def ask(state: AskState) -> dict:
        return {"answer": interrupt({"question": f"approve {state['draft']}?"}), "log": ["ask"]}

    def finish(state: AskState) -> dict:
        return {"log": [f"finish {state['answer']}"]}

    builder = StateGraph(AskState)
    builder.add_node("draft", draft)
    builder.add_node("ask", ask)
    builder.add_node("finish", finish)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "ask")
    builder.add_edge("ask", "finish")
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=saver)


def make_asked(saver: BaseCheckpointSaver, thread_id: str = "asked"):
    """Asked, answered "yes" and finished; then the question's checkpoint edited (a fork) and
    run to the question again, where the thread waits."""
    graph = ask_graph(saver)
    graph.invoke({"ticket": "t7"}, config(thread_id))
    graph.invoke(Command(resume="yes"), config(thread_id))
    asking = next(s for s in graph.get_state_history(config(thread_id)) if s.next == ("ask",))
    forked = graph.update_state(asking.config, {"draft": "refund t7 by half"}, as_node="draft")
    graph.invoke(None, forked)
    return graph


GRAPHS = {"asked": ask_graph, "chat": chat_graph, "nested": nested_graph}


def history(saver: BaseCheckpointSaver, thread_id: str, build) -> list:
    """What LangGraph itself reads back: values, next, ids, parents, metadata, times, tasks
    with their errors, questions and results."""
    return [
        (s.values, s.next, s.config["configurable"]["checkpoint_id"],
         s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
         s.metadata, s.created_at,
         [(t.name, t.error, t.interrupts, t.result) for t in s.tasks])
        for s in build(saver).get_state_history(config(thread_id))
    ]


def saved(saver: BaseCheckpointSaver, thread_id: str, namespace: str) -> list:
    """Every checkpoint of one namespace as the saver loads it (a subgraph's are not in the
    root history): checkpoint, metadata, parent, pending writes."""
    return [(t.checkpoint, t.metadata, t.parent_config and t.parent_config["configurable"][
        "checkpoint_id"], t.pending_writes) for t in saver.list(
        {"configurable": {"thread_id": thread_id, "checkpoint_ns": namespace}})]


@pytest.fixture
def threads(database) -> Database:
    """A thread with a question, an answer and a fork (``asked``), a chat on a DeltaChannel
    (``chat``) and one with a subgraph's checkpoints under its own namespace (``nested``)."""
    make_asked(database.saver, "asked")
    make_chat(database.saver, "chat")
    make_nested(database.saver, "nested")
    return database


def stored_threads(path: Path) -> set[str]:
    """The threads a SQLite file holds (none where a refused clone left no tables)."""
    if not path.exists():
        return set()
    with closing(sqlite3.connect(path)) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'checkpoints'").fetchall():
            return set()
        return {row[0] for row in conn.execute("SELECT thread_id FROM checkpoints")}


def clone(source: str, target: str, thread_id: str, **options):
    with closing(open_storage(source)) as reads, \
            closing(open_storage(target, writable=True, create=True)) as writes:
        return clone_thread(reads, writes, thread_id, **options)


def test_a_clone_into_a_sqlite_file_reads_back_the_same_history_as_its_source(threads,
                                                                             tmp_path):
    copy = str(tmp_path / "copy.sqlite")
    reports = {thread: clone(threads.target, copy, thread) for thread in GRAPHS}

    with threads.fresh_saver() as original, saver_on(copy, "sqlite") as copied:
        for thread, build in GRAPHS.items():
            assert history(copied, thread, build) == history(original, thread, build)
        namespaces = reports["nested"].namespaces
        assert len(namespaces) == 2
        for namespace in namespaces:
            assert saved(copied, "nested", namespace) == saved(original, "nested", namespace)
    expected = BYTE_FOR_BYTE if threads.kind == "sqlite" else ACROSS_KINDS
    assert {report.how for report in reports.values()} == {expected}
    assert reports["asked"].checkpoints == len(history(threads.saver, "asked", ask_graph))


def test_a_clone_leaves_every_source_row_byte_equal(threads, tmp_path):
    before = threads.rows()

    for thread in GRAPHS:
        clone(threads.target, str(tmp_path / "copy.sqlite"), thread, as_id=f"copy-{thread}")

    assert threads.rows() == before


def test_a_branch_clone_holds_only_the_branch_and_the_subgraph_calls_on_it(threads, tmp_path):
    copy = str(tmp_path / "copy.sqlite")
    with threads.fresh_saver() as original:
        full = history(original, "asked", ask_graph)
        by_id = {entry[2]: entry for entry in full}
        # The question on the first line, before it was answered and before the fork.
        tip = next(entry[2] for entry in reversed(full) if entry[1] == ("ask",))
        nested_head = history(original, "nested", nested_graph)[0][2]
        subgraph = saved(original, "nested", "")  # the root's; the subgraph's come below

    report = clone(threads.target, copy, "asked", to_checkpoint=tip)
    clone(threads.target, copy, "nested", to_checkpoint=nested_head)

    branch, at = [], tip
    while at is not None:
        branch.append(by_id[at])
        at = by_id[at][3]
    with saver_on(copy, "sqlite") as copied, threads.fresh_saver() as original:
        assert history(copied, "asked", ask_graph) == branch
        assert report.tip == tip and report.checkpoints == len(branch) < len(full)
        # The subgraph's call ran from a checkpoint of the branch: it comes with it.
        inner = next(ns for ns in clone_namespaces(copy) if ns)
        assert saved(copied, "nested", inner) == saved(original, "nested", inner)
        assert saved(copied, "nested", "") == subgraph


def clone_namespaces(target: str) -> list[str]:
    with closing(open_storage(target)) as reads:
        return reads.namespaces("nested")


def test_branch_of_keeps_the_ancestors_and_the_subgraph_calls_that_ran_from_them():
    links = [CheckpointLink("", "1", None, None), CheckpointLink("", "2", "1", None),
             CheckpointLink("", "3", "2", None), CheckpointLink("", "2b", "1", None),
             CheckpointLink("sub:a", "s1", None, "2"), CheckpointLink("sub:a", "s2", "s1", "2"),
             CheckpointLink("sub:b", "t1", None, "2b")]

    assert branch_of(links, "2") == {("", "1"), ("", "2"), ("sub:a", "s1"), ("sub:a", "s2")}
    assert branch_of(links, "2b") == {("", "1"), ("", "2b"), ("sub:b", "t1")}


def test_a_copy_replays_and_forks_with_langgraphs_own_api(threads, tmp_path):
    copy = str(tmp_path / "copy.sqlite")
    clone(threads.target, copy, "asked", as_id="mine")
    clone(threads.target, copy, "chat", as_id="chat-copy")
    before = threads.rows()

    with saver_on(copy, "sqlite") as saver:
        graph = ask_graph(saver)
        drafted = next(s for s in reversed(list(graph.get_state_history(config("mine"))))
                       if s.next == ("ask",))
        # A replay from an older checkpoint: LangGraph forks there and runs to the question.
        graph.invoke(None, drafted.config)
        assert graph.get_state(config("mine")).interrupts[0].value == {
            "question": "approve refund t7?"}
        graph.invoke(Command(resume="no"), config("mine"))
        assert graph.get_state(config("mine")).values["log"][-1] == "finish no"
        # A fork by hand at the same checkpoint.
        edited = graph.update_state(drafted.config, {"draft": "refund t7 twice"},
                                    as_node="draft")
        assert graph.get_state(edited).values["draft"] == "refund t7 twice"
        assert graph.get_state(edited).next == ("ask",)

        chat = chat_graph(saver)
        chat.invoke({"messages": [HumanMessage("and now?", id="q-new")]}, config("chat-copy"))
        said = [m.content for m in chat.get_state(config("chat-copy")).values["messages"]]
        assert said[-2:] == ["and now?", "echo: and now?"] and len(said) > 2
    assert threads.rows() == before  # the source saw none of it


def test_a_thread_id_the_target_holds_is_refused_and_nothing_is_written(threads, tmp_path):
    copy = tmp_path / "copy.sqlite"
    clone(threads.target, str(copy), "asked")
    taken = Database("sqlite", str(copy), None)  # type: ignore[arg-type]
    before = taken.rows()

    with pytest.raises(TransferRefused, match="already has checkpoints") as refused:
        clone(threads.target, str(copy), "chat", as_id="asked")

    assert "\n" not in str(refused.value)
    assert taken.rows() == before


def test_an_unknown_thread_or_checkpoint_is_refused_naming_it(threads, tmp_path):
    with pytest.raises(UnknownThread, match="no thread 'nope'"):
        clone(threads.target, str(tmp_path / "one.sqlite"), "nope")
    with pytest.raises(ValueError, match="out of range"):
        clone(threads.target, str(tmp_path / "two.sqlite"), "asked", to_checkpoint="#999")
    assert stored_threads(tmp_path / "one.sqlite") == stored_threads(
        tmp_path / "two.sqlite") == set()


def test_a_clone_into_a_read_only_place_is_refused(threads, tmp_path):
    copy = str(tmp_path / "copy.sqlite")
    clone(threads.target, copy, "asked")
    with closing(open_storage(threads.target)) as reads, \
            closing(open_storage(copy)) as read_only, \
            pytest.raises(TransferRefused, match="read-only"):
        clone_thread(reads, read_only, "chat")


@pytest.fixture
def postgres_target() -> str:
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        yield url


def test_a_clone_into_postgres_reads_back_the_same_history_as_its_source(threads,
                                                                         postgres_target):
    for thread in GRAPHS:
        clone(threads.target, postgres_target, thread)

    with threads.fresh_saver() as original, saver_on(postgres_target, "postgres") as copied:
        for thread, build in GRAPHS.items():
            assert history(copied, thread, build) == history(original, thread, build)


def test_postgres_rows_carried_through_a_sqlite_file_come_back_as_the_same_rows(
        tmp_path, postgres_target):
    with databases.database("postgres", tmp_path) as source:
        make_asked(source.saver, "asked")
        make_chat(source.saver, "chat")
        make_nested(source.saver, "nested")
        copy = str(tmp_path / "copy.sqlite")
        for thread in GRAPHS:
            clone(source.target, copy, thread)
            clone(copy, postgres_target, thread)

        back = Database("postgres", postgres_target, None)  # type: ignore[arg-type]
        for thread in GRAPHS:
            assert back.rows(thread) == source.rows(thread)


def test_a_hostile_file_crosses_kinds_without_running_what_it_names(hostile_sqlite,
                                                                   postgres_target):
    path, folder = hostile_sqlite

    # The first checkpoint holds a value per msgpack extension code, each naming a command:
    # carried into Postgres as its bytes, nothing built from them.
    report = clone(str(path), postgres_target, hostile_db.THREAD,
                   to_checkpoint=hostile_db.IDS[0])
    copied = Database("postgres", postgres_target, None)  # type: ignore[arg-type]
    blobs = {row[2]: bytes(row[5]) for row in copied.rows()["checkpoint_blobs"]}
    with closing(open_storage(str(path))) as reads:
        stored = reads.export_rows(hostile_db.THREAD)["checkpoints"][0][4]
    assert report.checkpoints == 1 and all(blob in stored for blob in blobs.values())
    assert {"ext1", "ext5", "ext7", "order", "messages"} <= set(blobs)
    # The whole thread holds a pickle-typed checkpoint: refused in one line, nothing written.
    with pytest.raises(TransferRefused, match="stored as 'pickle'"):
        clone(str(path), postgres_target, hostile_db.THREAD, as_id="whole")
    assert hostile_db.canaries(folder) == []
    assert {row[0] for row in copied.rows()["checkpoints"]} == {hostile_db.THREAD}


def test_a_hostile_database_is_refused_into_a_file_without_running_anything(hostile_postgres,
                                                                          tmp_path):
    url, folder = hostile_postgres
    copy = tmp_path / "copy.sqlite"

    with pytest.raises(TransferRefused) as refused:
        clone(url, str(copy), hostile_db.THREAD)

    assert "\n" not in str(refused.value)
    assert hostile_db.canaries(folder) == []
    assert stored_threads(copy) == set()


def test_a_langgraphjs_file_is_refused_in_one_line(tmp_path):
    source = copy_of(JS_FILE, tmp_path)
    with closing(open_storage(str(source))) as reads:
        thread = reads.thread_ids()[0]

    with pytest.raises(TransferRefused, match=r"LangGraph\.js") as refused:
        clone(str(source), str(tmp_path / "copy.sqlite"), thread)

    assert "\n" not in str(refused.value)
    assert stored_threads(tmp_path / "copy.sqlite") == set()


def test_a_file_of_an_older_python_saver_clones_as_its_saver_reads_it(tmp_path):
    source = copy_of(OLDER_PYTHON_FILE, tmp_path)
    copy = tmp_path / "copy.sqlite"
    with closing(open_storage(str(source))) as reads:
        threads = reads.thread_ids()

    for thread in threads:
        clone(str(source), str(copy), thread)

    with saver_on(str(source), "sqlite") as original, saver_on(str(copy), "sqlite") as copied:
        for thread in threads:
            assert saved(copied, thread, "") == saved(original, thread, "")
