"""Schema migration on Postgres: a renamed key strands a paused thread; renaming it repairs it.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); skipped without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from playground.timetravel.migrate import MigrationRefused
from playground.timetravel.pg_migrate import rename_channel_pg, threads_with_channel_pg
from tests.playground.timetravel.sample_graphs import config

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"
)
ROOT = Path(__file__).resolve().parents[3]
TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


class SchemaA(TypedDict, total=False):
    ticket_id: str
    etag: object
    outcome: str | None


class SchemaB(TypedDict, total=False):
    ticket_id: str
    version: object
    outcome: str | None


def ticket_graph(saver, schema: type, version_key: str, boxed: bool = False):
    """read -> plan -> (pause) -> write; ``boxed`` stores the version as a dict (a blob row)."""

    def read(state: dict) -> dict:
        tag = f"v1-{state['ticket_id']}"
        return {version_key: {"tag": tag} if boxed else tag, "outcome": None}

    def plan(state: dict) -> dict:
        return {"outcome": "planned"}

    def write(state: dict) -> dict:
        version = state.get(version_key)
        if isinstance(version, dict):
            version = version["tag"]
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


def connect():
    import psycopg
    from psycopg.rows import dict_row

    return psycopg.connect(URL, autocommit=True, prepare_threshold=0, row_factory=dict_row)


@pytest.fixture
def pg():
    from langgraph.checkpoint.postgres import PostgresSaver

    conn = connect()
    saver = PostgresSaver(conn)
    saver.setup()
    prefix = f"migrate-{uuid.uuid4().hex[:8]}-"
    yield saver, prefix
    for table in TABLES:
        conn.execute(f"DELETE FROM {table} WHERE thread_id LIKE %s", (prefix + "%",))
    conn.close()


@pytest.fixture
def paused_a(pg) -> str:
    """A thread paused before ``write`` under schema A (etag, inline string)."""
    saver, prefix = pg
    ticket_graph(saver, SchemaA, "etag").invoke({"ticket_id": "t7"}, config(prefix + "a"))
    return prefix + "a"


def rows(conn, thread_id: str) -> dict[str, list]:
    return {
        table: conn.execute(
            f"SELECT * FROM {table} WHERE thread_id = %s ORDER BY 1, 2, 3, 4", (thread_id,)
        ).fetchall()
        for table in TABLES
    }


def head(conn, thread_id: str) -> dict:
    return conn.execute(
        "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = %s "
        "AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    ).fetchone()


def test_renamed_key_strands_a_paused_thread_on_postgres_and_the_rename_repairs_it(pg, paused_a):
    saver, _ = pg
    before = len(rows(saver.conn, paused_a)["checkpoints"])
    stranded = ticket_graph(saver, SchemaB, "version").invoke(None, config(paused_a))
    assert stranded == {"ticket_id": "t7", "outcome": "planned"}  # old values, nothing ran
    assert len(rows(saver.conn, paused_a)["checkpoints"]) == before

    report = rename_channel_pg(saver.conn, paused_a, "etag", "version", apply=True)

    assert report.applied and (report.old, report.new) == ("etag", "version")
    assert {"channel_values", "channel_versions"} <= set(report.changed)
    assert report.checkpoint_id == head(saver.conn, paused_a)["checkpoint_id"]
    from langgraph.checkpoint.postgres import PostgresSaver

    with connect() as fresh:  # a fresh graph on its own connection, under the new schema
        graph_b = ticket_graph(PostgresSaver(fresh), SchemaB, "version")
        result = graph_b.invoke(None, config(paused_a))
        assert result == {"ticket_id": "t7", "version": "v1-t7", "outcome": "wrote at v1-t7"}
        assert graph_b.get_state(config(paused_a)).next == ()


def test_rename_copies_a_blob_value_under_the_new_name_and_keeps_the_old_row(pg):
    saver, prefix = pg
    thread = prefix + "boxed"
    ticket_graph(saver, SchemaA, "etag", boxed=True).invoke({"ticket_id": "t9"}, config(thread))
    version = head(saver.conn, thread)["checkpoint"]["channel_versions"]["etag"]

    report = rename_channel_pg(saver.conn, thread, "etag", "version", apply=True)

    assert "checkpoint_blobs" in report.changed
    blobs = {
        (r["channel"], r["version"]): bytes(r["blob"])
        for r in rows(saver.conn, thread)["checkpoint_blobs"]
    }
    # older checkpoints share the old row: it stays, and the copy holds the very same bytes
    assert blobs[("version", version)] == blobs[("etag", version)]
    history = list(ticket_graph(saver, SchemaA, "etag").get_state_history(config(thread)))
    assert history[1].values["etag"] == {"tag": "v1-t9"}  # the parent still reads its value
    graph_b = ticket_graph(saver, SchemaB, "version", boxed=True)
    result = graph_b.invoke(None, config(thread))
    assert result["version"] == {"tag": "v1-t9"} and result["outcome"] == "wrote at v1-t9"


def test_rename_on_postgres_rewrites_only_the_named_key(pg, paused_a):
    saver, _ = pg
    original = head(saver.conn, paused_a)["checkpoint"]

    rename_channel_pg(saver.conn, paused_a, "etag", "version", apply=True)

    renamed = head(saver.conn, paused_a)["checkpoint"]
    swap = lambda m: {("version" if k == "etag" else k): v for k, v in m.items()}  # noqa: E731
    assert renamed["channel_values"] == swap(original["channel_values"])
    assert renamed["channel_versions"] == swap(original["channel_versions"])
    assert renamed["versions_seen"] == {k: swap(v) for k, v in original["versions_seen"].items()}
    assert {k: renamed[k] for k in ("v", "ts", "id")} == {k: original[k] for k in ("v", "ts", "id")}


def test_rename_dry_run_on_postgres_reports_and_changes_nothing(pg, paused_a):
    saver, _ = pg
    before = rows(saver.conn, paused_a)

    report = rename_channel_pg(saver.conn, paused_a, "etag", "version")

    assert not report.applied and "channel_values" in report.changed
    assert rows(saver.conn, paused_a) == before


def test_rename_on_postgres_moves_pending_writes_of_the_head(pg, paused_a):
    saver, _ = pg
    checkpoint_id = head(saver.conn, paused_a)["checkpoint_id"]
    saver.conn.execute(
        "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, "
        "channel, type, blob, task_path) VALUES (%s, '', %s, 'task-1', 0, 'etag', 'msgpack', "
        "%s, '~__pregel_pull, side')",
        (paused_a, checkpoint_id, b"\xa5v2-t7"),
    )

    report = rename_channel_pg(saver.conn, paused_a, "etag", "version", apply=True)

    assert report.writes_renamed == 1 and "writes" in report.changed
    channels = saver.conn.execute(
        "SELECT channel FROM checkpoint_writes WHERE thread_id = %s AND task_id = 'task-1'",
        (paused_a,),
    ).fetchall()
    assert channels == [{"channel": "version"}]


@pytest.mark.parametrize(
    ("thread", "old", "new", "message"),
    [
        ("nobody", "etag", "version", "has no checkpoints"),
        ("a", "colour", "version", "'colour' is not in the newest checkpoint"),
        ("a", "etag", "outcome", "'outcome' already holds a value or version"),
        ("a", "etag", "ticket_id", "'ticket_id' already holds a value or version"),
        ("a", "etag", "etag", "nothing to rename"),
        ("a", "etag", "branch:to:write", "internal channels"),
    ],
)
def test_rename_refusals_on_postgres_change_nothing(pg, paused_a, thread, old, new, message):
    saver, prefix = pg
    before = rows(saver.conn, paused_a)

    with pytest.raises(MigrationRefused, match=message):
        rename_channel_pg(saver.conn, prefix + thread, old, new, apply=True)
    assert rows(saver.conn, paused_a) == before


def test_threads_with_channel_pg_lists_threads_whose_head_holds_it(pg, paused_a):
    saver, prefix = pg
    ticket_graph(saver, SchemaB, "version").invoke({"ticket_id": "t8"}, config(prefix + "b"))

    def mine(channel: str) -> list[str]:
        return [t for t in threads_with_channel_pg(saver.conn, channel) if t.startswith(prefix)]

    assert mine("etag") == [prefix + "a"]
    assert mine("version") == [prefix + "b"]
    assert mine("ticket_id") == [prefix + "a", prefix + "b"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "playground.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def test_cli_migrate_on_postgres_dry_run_then_apply_repairs_the_thread(pg, paused_a):
    saver, _ = pg
    before = rows(saver.conn, paused_a)

    dry = cli("migrate", URL, "--rename", "etag=version", "--thread", paused_a)
    assert dry.returncode == 0, dry.stderr
    assert f"{paused_a}: would rename etag -> version" in dry.stdout
    assert "dry run: nothing changed" in dry.stdout
    assert rows(saver.conn, paused_a) == before

    applied = cli("migrate", URL, "--rename", "etag=version", "--thread", paused_a, "--apply")
    assert applied.returncode == 0, applied.stderr
    assert f"{paused_a}: renamed etag -> version" in applied.stdout
    result = ticket_graph(saver, SchemaB, "version").invoke(None, config(paused_a))
    assert result["outcome"] == "wrote at v1-t7"


def test_cli_migrate_on_postgres_refusal_is_one_line_and_changes_nothing(pg, paused_a):
    saver, _ = pg
    before = rows(saver.conn, paused_a)

    refused = cli("migrate", URL, "--rename", "etag=outcome", "--thread", paused_a, "--apply")

    assert refused.returncode == 2 and "already holds a value" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert rows(saver.conn, paused_a) == before
