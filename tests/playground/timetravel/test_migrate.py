"""Schema migration: a renamed key strands a paused thread; renaming it in the head repairs it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import TypedDict

import ormsgpack
import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.agent.state import VersionState
from playground.agent.turns import resume, start_turn
from playground.timetravel.migrate import (
    MigrationRefused,
    RenameSuggestion,
    find_stranded,
    rename_channel,
    threads_with_channel,
)
from tests.playground.timetravel.sample_graphs import config


class SchemaA(TypedDict, total=False):
    ticket_id: str
    etag: str | None
    outcome: str | None


class SchemaB(TypedDict, total=False):
    ticket_id: str
    version: str | None
    outcome: str | None


def ticket_graph(saver: SqliteSaver, schema: type, version_key: str):
    """read -> plan -> (pause) -> write; write sends the version it read, like the ticket agent."""

    def read(state: dict) -> dict:
        return {version_key: f"v1-{state['ticket_id']}", "outcome": None}

    def plan(state: dict) -> dict:
        return {"outcome": "planned"}

    def write(state: dict) -> dict:
        version = state.get(version_key)
        return {"outcome": f"wrote at {version}" if version else "not written: no version"}

    builder = StateGraph(schema)
    builder.add_node("read", read)
    builder.add_node("plan", plan)
    builder.add_node("write", write)
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_edge("plan", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=saver, interrupt_before=["write"])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "checkpoints.sqlite"


@pytest.fixture
def saver(db: Path):
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    yield saver
    conn.close()


@pytest.fixture
def conn(db: Path, saver):
    connection = sqlite3.connect(db)
    yield connection
    connection.close()


@pytest.fixture
def paused_a(saver) -> str:
    """A thread paused before ``write`` under schema A (etag)."""
    ticket_graph(saver, SchemaA, "etag").invoke({"ticket_id": "t7"}, config("a"))
    return "a"


def tables(conn: sqlite3.Connection) -> tuple[list, list]:
    return (
        conn.execute("SELECT * FROM checkpoints ORDER BY 1, 2, 3").fetchall(),
        conn.execute("SELECT * FROM writes ORDER BY 1, 2, 3, 4, 6").fetchall(),
    )


def head_blob(conn: sqlite3.Connection, thread_id: str) -> tuple[str, str, bytes]:
    return conn.execute(
        "SELECT checkpoint_id, type, checkpoint FROM checkpoints WHERE thread_id = ? "
        "AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    ).fetchone()


def count(conn: sqlite3.Connection, thread_id: str) -> int:
    return conn.execute(
        "SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (thread_id,)
    ).fetchone()[0]


def test_renamed_key_strands_a_paused_thread_silently(saver, conn, paused_a):
    before = count(conn, paused_a)
    graph_b = ticket_graph(saver, SchemaB, "version")

    result = graph_b.invoke(None, config(paused_a))

    assert result == {"ticket_id": "t7", "outcome": "planned"}  # old values, nothing ran
    assert graph_b.get_state(config(paused_a)).next == ("write",)
    assert count(conn, paused_a) == before


def test_rename_repairs_a_stranded_paused_thread(db, saver, conn, paused_a):
    ticket_graph(saver, SchemaB, "version").invoke(None, config(paused_a))  # stranded attempt

    report = rename_channel(conn, paused_a, "etag", "version", apply=True)

    assert report.applied and report.old == "etag" and report.new == "version"
    assert {"channel_values", "channel_versions"} <= set(report.changed)
    assert report.checkpoint_id == head_blob(conn, paused_a)[0]
    with closing(sqlite3.connect(db, check_same_thread=False)) as fresh:
        graph_b = ticket_graph(SqliteSaver(fresh), SchemaB, "version")
        result = graph_b.invoke(None, config(paused_a))
        assert result == {"ticket_id": "t7", "version": "v1-t7", "outcome": "wrote at v1-t7"}
        assert graph_b.get_state(config(paused_a)).next == ()


def swap(mapping: dict) -> dict:
    return {("version" if k == "etag" else k): v for k, v in mapping.items()}


def test_rename_rewrites_only_the_named_key_and_langgraph_reads_the_blob(conn, paused_a):
    checkpoint_id, type_, blob = head_blob(conn, paused_a)
    original = JsonPlusSerializer().loads_typed((type_, blob))

    rename_channel(conn, paused_a, "etag", "version", apply=True)

    renamed = JsonPlusSerializer().loads_typed(head_blob(conn, paused_a)[1:])
    assert renamed["channel_values"] == swap(original["channel_values"])
    assert list(renamed["channel_values"]) == list(swap(original["channel_values"]))
    assert renamed["channel_versions"] == swap(original["channel_versions"])
    assert renamed["versions_seen"] == {k: swap(v) for k, v in original["versions_seen"].items()}
    assert {k: renamed[k] for k in ("v", "ts", "id")} == {k: original[k] for k in ("v", "ts", "id")}
    # older checkpoints are history and keep the old name
    older = conn.execute(
        "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_id < ?",
        (paused_a, checkpoint_id),
    ).fetchall()
    assert any("etag" in JsonPlusSerializer().loads_typed(row)["channel_values"] for row in older)


def test_rename_dry_run_reports_and_changes_nothing(conn, paused_a):
    before = tables(conn)

    report = rename_channel(conn, paused_a, "etag", "version")

    assert not report.applied and "channel_values" in report.changed
    assert tables(conn) == before


def test_rename_moves_pending_writes_of_the_head(conn, paused_a):
    # A task that finished before a failure leaves its output as a pending write on the head.
    checkpoint_id = head_blob(conn, paused_a)[0]
    conn.execute(
        "INSERT INTO writes VALUES (?, '', ?, 'task-1', '~__pregel_pull, side', 0, 'etag', "
        "'msgpack', ?)",
        (paused_a, checkpoint_id, ormsgpack.packb("v2-t7")),
    )
    conn.commit()

    report = rename_channel(conn, paused_a, "etag", "version", apply=True)

    assert report.writes_renamed == 1 and "writes" in report.changed
    assert conn.execute("SELECT channel FROM writes WHERE task_id = 'task-1'").fetchall() == [
        ("version",)
    ]


@pytest.mark.parametrize(
    ("thread", "old", "new", "message"),
    [
        ("nobody", "etag", "version", "thread 'nobody' has no checkpoints"),
        ("a", "colour", "version", "'colour' is not in the newest checkpoint"),
        ("a", "etag", "outcome", "'outcome' already holds a value or version"),
        ("a", "etag", "ticket_id", "'ticket_id' already holds a value or version"),
        ("a", "etag", "etag", "nothing to rename"),
        ("a", "etag", "branch:to:write", "internal channels"),
    ],
)
def test_rename_refusals_change_nothing(conn, paused_a, thread, old, new, message):
    before = tables(conn)

    with pytest.raises(MigrationRefused, match=message):
        rename_channel(conn, thread, old, new, apply=True)
    assert tables(conn) == before


def test_rename_of_a_non_msgpack_blob_is_refused_and_changes_nothing(conn, paused_a):
    checkpoint_id, _, blob = head_blob(conn, paused_a)
    conn.execute(
        "INSERT INTO checkpoints VALUES (?, '', ?, ?, 'pickle', ?, ?)",
        ("crafted", checkpoint_id, None, blob, b"{}"),
    )
    conn.commit()
    before = tables(conn)

    with pytest.raises(MigrationRefused, match="stored as 'pickle'"):
        rename_channel(conn, "crafted", "etag", "version", apply=True)
    assert tables(conn) == before


def test_rename_of_a_blob_without_channel_versions_is_refused(conn):
    blob = ormsgpack.packb({"v": 4, "channel_values": {"etag": "x"}})
    conn.execute(
        "INSERT INTO checkpoints VALUES ('odd', '', 'c1', NULL, 'msgpack', ?, ?)", (blob, b"{}")
    )
    conn.commit()
    before = tables(conn)

    with pytest.raises(MigrationRefused, match="lacks channel_versions, versions_seen"):
        rename_channel(conn, "odd", "etag", "version", apply=True)
    assert tables(conn) == before


def test_find_stranded_finds_the_paused_a_thread_and_suggests_the_rename(saver, conn, paused_a):
    ticket_graph(saver, SchemaB, "version").invoke({"ticket_id": "t8"}, config("b"))

    stranded = find_stranded(conn, SchemaB.__annotations__)

    assert [s.thread_id for s in stranded] == ["a"]
    (found,) = stranded
    assert found.paused and found.next == ("write",)
    assert found.unknown_channels == ("etag",)
    assert found.checkpoint_id == head_blob(conn, "a")[0]
    assert found.suggestions[0] == RenameSuggestion(
        "etag", "version", "the only schema key this checkpoint never set"
    )


def test_find_stranded_suggests_by_name_similarity(saver, conn, paused_a):
    stranded = find_stranded(conn, ["ticket_id", "etags", "version", "outcome"])

    assert [(s.old, s.new) for s in stranded[0].suggestions] == [("etag", "etags")]


def test_find_stranded_reports_a_finished_thread_as_not_paused(saver, conn, paused_a):
    graph_a = ticket_graph(saver, SchemaA, "etag")
    graph_a.invoke(None, config(paused_a))

    (found,) = find_stranded(conn, SchemaB.__annotations__)

    assert not found.paused and found.next == ()
    # the stranded thread is repaired and nothing is left to find
    rename_channel(conn, paused_a, "etag", "version", apply=True)
    assert find_stranded(conn, SchemaB.__annotations__) == []


def test_threads_with_channel_lists_threads_whose_head_holds_it(saver, conn, paused_a):
    ticket_graph(saver, SchemaB, "version").invoke({"ticket_id": "t8"}, config("b"))

    assert threads_with_channel(conn, "etag") == ["a"]
    assert threads_with_channel(conn, "version") == ["b"]
    assert threads_with_channel(conn, "ticket_id") == ["a", "b"]


def test_find_and_rename_repair_the_real_ticket_agent(agent, checkpoints):
    """The ticket agent paused under ``etag``, stranded by ``version``, repaired by the rename."""
    start_turn(agent("etag"), "real", "raise t7 to high")
    assert not resume(agent("version"), "real").ok  # stranded: nothing ran

    with closing(sqlite3.connect(checkpoints)) as conn:
        (found,) = find_stranded(conn, VersionState.__annotations__)
        assert found.paused and found.unknown_channels == ("etag",)
        (suggestion,) = found.suggestions
        report = rename_channel(conn, "real", suggestion.old, suggestion.new, apply=True)
    assert report.applied

    result = resume(agent("version"), "real")
    assert result.ok
    assert result.line == 'resumed with ticket t7: priority is high at "v2"'
