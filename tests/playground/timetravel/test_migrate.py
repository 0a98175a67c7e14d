"""Conformance of migrate: a renamed state key strands a paused thread on every backend, and
renaming it in the thread's head repairs it, with the same report and refusals everywhere."""

from __future__ import annotations

from contextlib import closing
from typing import TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from playground.agent.state import VersionState
from playground.agent.turns import resume, start_turn
from playground.places.door import open_storage
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
    etag: object
    outcome: str | None


class SchemaB(TypedDict, total=False):
    ticket_id: str
    version: object
    outcome: str | None


def ticket_graph(saver, schema: type, version_key: str, boxed: bool = False):
    """read -> plan -> (pause) -> write, sending the version it read like the ticket agent;
    ``boxed`` keeps the version as a dict (on Postgres a value blob row, not inline JSONB)."""

    def read(state: dict) -> dict:
        tag = f"v1-{state['ticket_id']}"
        return {version_key: {"tag": tag} if boxed else tag, "outcome": None}

    def plan(state: dict) -> dict:
        return {"outcome": "planned"}

    def write(state: dict) -> dict:
        version = state.get(version_key)
        version = version["tag"] if isinstance(version, dict) else version
        return {"outcome": f"wrote at {version}" if version else "not written: no version"}

    builder = StateGraph(schema)
    for name, node in (("read", read), ("plan", plan), ("write", write)):
        builder.add_node(name, node)
    builder.add_edge(START, "read")
    builder.add_edge("read", "plan")
    builder.add_edge("plan", "write")
    builder.add_edge("write", END)
    return builder.compile(checkpointer=saver, interrupt_before=["write"])


@pytest.fixture(params=[False, True], ids=["inline", "boxed"])
def paused_a(request, database) -> str:
    """A thread paused before ``write`` under schema A (``etag``), its value a string or a dict."""
    graph = ticket_graph(database.saver, SchemaA, "etag", boxed=request.param)
    graph.invoke({"ticket_id": "t7"}, config("a"))
    return "a"


def head(saver, thread_id: str):
    return saver.get_tuple(config(thread_id))


def swap(mapping: dict) -> dict:
    return {("version" if k == "etag" else k): v for k, v in mapping.items()}


def test_a_renamed_key_strands_a_paused_thread_silently(database, paused_a):
    before = database.count(paused_a)
    graph_b = ticket_graph(database.saver, SchemaB, "version")

    result = graph_b.invoke(None, config(paused_a))

    assert result == {"ticket_id": "t7", "outcome": "planned"}  # old values, nothing ran
    assert graph_b.get_state(config(paused_a)).next == ("write",)
    assert database.count(paused_a) == before


def test_the_rename_repairs_a_stranded_thread_for_a_fresh_process(database, paused_a):
    ticket_graph(database.saver, SchemaB, "version").invoke(None, config(paused_a))  # stranded
    boxed = isinstance(head(database.saver, paused_a).checkpoint["channel_values"]["etag"], dict)

    with database.storage(writable=True) as storage:
        report = rename_channel(storage, paused_a, "etag", "version", apply=True)

    assert report.applied and (report.old, report.new) == ("etag", "version")
    # The value itself sits inline in the checkpoint, or (a Postgres dict) in its blob row.
    assert "channel_versions" in report.changed
    assert {"channel_values", "checkpoint_blobs"} & set(report.changed)
    with database.fresh_saver() as saver:
        assert report.checkpoint_id == head(saver, paused_a).config["configurable"][
            "checkpoint_id"]
        graph_b = ticket_graph(saver, SchemaB, "version", boxed=boxed)
        result = graph_b.invoke(None, config(paused_a))
        assert result["outcome"] == "wrote at v1-t7"
        assert result["version"] == ({"tag": "v1-t7"} if boxed else "v1-t7")
        assert graph_b.get_state(config(paused_a)).next == ()


def test_the_rename_rewrites_only_the_named_key_and_older_checkpoints_keep_theirs(
        database, paused_a):
    original = head(database.saver, paused_a).checkpoint

    with database.storage(writable=True) as storage:
        rename_channel(storage, paused_a, "etag", "version", apply=True)

    with database.fresh_saver() as saver:
        renamed = head(saver, paused_a).checkpoint
        older = [t.checkpoint for t in saver.list(config(paused_a))][1:]
    assert renamed["channel_values"] == swap(original["channel_values"])
    assert renamed["channel_versions"] == swap(original["channel_versions"])
    assert renamed["versions_seen"] == {k: swap(v) for k, v in original["versions_seen"].items()}
    assert {k: renamed[k] for k in ("v", "ts", "id")} == {k: original[k] for k in ("v", "ts", "id")}
    # older checkpoints are history: they keep the old name, and still read their value
    assert any(c["channel_values"].get("etag") in ("v1-t7", {"tag": "v1-t7"}) for c in older)


def test_the_dry_run_reports_and_changes_nothing(database, paused_a):
    before = database.rows()

    with database.storage() as storage:  # a dry run needs no write access
        report = rename_channel(storage, paused_a, "etag", "version")

    assert not report.applied and "channel_versions" in report.changed
    assert database.rows() == before


def test_the_rename_moves_the_heads_pending_writes(database, paused_a):
    # A task that finished before a failure leaves its output as a pending write on the head.
    at = head(database.saver, paused_a).config
    database.saver.put_writes(at, [("etag", "v2-t7")], "task-1", "~__pregel_pull, side")

    with database.storage(writable=True) as storage:
        report = rename_channel(storage, paused_a, "etag", "version", apply=True)

    assert report.writes_renamed == 1 and "writes" in report.changed
    with database.fresh_saver() as saver:
        pending = head(saver, paused_a).pending_writes
    assert [(task, channel, value) for task, channel, value in pending] == [
        ("task-1", "version", "v2-t7")]


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
def test_refusals_change_nothing(database, paused_a, thread, old, new, message):
    before = database.rows()

    with database.storage(writable=True) as storage, pytest.raises(MigrationRefused,
                                                                    match=message):
        rename_channel(storage, thread, old, new, apply=True)
    assert database.rows() == before


def test_find_stranded_finds_the_paused_thread_and_suggests_the_rename(database, paused_a):
    ticket_graph(database.saver, SchemaB, "version").invoke({"ticket_id": "t8"}, config("b"))

    with database.storage() as storage:
        stranded = find_stranded(storage, SchemaB.__annotations__)

    assert [s.thread_id for s in stranded] == ["a"]
    (found,) = stranded
    assert found.paused and found.next == ("write",) and found.unknown_channels == ("etag",)
    assert found.checkpoint_id == head(database.saver, "a").config["configurable"][
        "checkpoint_id"]
    assert found.suggestions[0] == RenameSuggestion(
        "etag", "version", "the only schema key this checkpoint never set")


def test_find_stranded_suggests_by_name_similarity(database, paused_a):
    with database.storage() as storage:
        stranded = find_stranded(storage, ["ticket_id", "etags", "version", "outcome"])

    assert [(s.old, s.new) for s in stranded[0].suggestions] == [("etag", "etags")]


def test_a_finished_thread_is_stranded_but_not_paused_until_repaired(database, paused_a):
    ticket_graph(database.saver, SchemaA, "etag").invoke(None, config(paused_a))

    with database.storage(writable=True) as storage:
        (found,) = find_stranded(storage, SchemaB.__annotations__)
        assert not found.paused and found.next == ()
        rename_channel(storage, paused_a, "etag", "version", apply=True)
        assert find_stranded(storage, SchemaB.__annotations__) == []


def test_threads_with_channel_lists_threads_whose_head_holds_it(database, paused_a):
    ticket_graph(database.saver, SchemaB, "version").invoke({"ticket_id": "t8"}, config("b"))

    with database.storage() as storage:
        assert threads_with_channel(storage, "etag") == ["a"]
        assert threads_with_channel(storage, "version") == ["b"]
        assert threads_with_channel(storage, "ticket_id") == ["a", "b"]


def test_find_stranded_without_saver_tables_is_refused(database):
    from playground.places.saver_object import SaverStorage

    with pytest.raises(MigrationRefused, match="no checkpoint tables"):
        find_stranded(SaverStorage(database.saver), SchemaB.__annotations__)


def test_find_and_rename_repair_the_real_ticket_agent(agent, checkpoints):
    """The ticket agent paused under ``etag``, stranded by ``version``, repaired by the rename."""
    start_turn(agent("etag"), "real", "raise t7 to high")
    assert not resume(agent("version"), "real").ok  # stranded: nothing ran

    with closing(open_storage(checkpoints, writable=True)) as storage:
        (found,) = find_stranded(storage, VersionState.__annotations__)
        assert found.paused and found.unknown_channels == ("etag",)
        (suggestion,) = found.suggestions
        report = rename_channel(storage, "real", suggestion.old, suggestion.new, apply=True)
    assert report.applied

    result = resume(agent("version"), "real")
    assert result.ok
    assert result.line == 'resumed with ticket t7: priority is high at "v2"'
