"""Exporting a Postgres thread to JSON and importing it: same rows, same history, or a refusal.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); skipped without it.
"""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import subprocess
import sys
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from playground.timetravel.pg_transfer import export_thread_pg, import_thread_pg
from playground.timetravel.transfer import (
    FORMAT,
    TransferRefused,
    dumps_export,
    export_thread,
    loads_export,
)
from tests.playground.timetravel.sample_graphs import (
    config,
    make_forked,
    make_nested,
    nested_graph,
    pause_graph,
)

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"
)
ROOT = Path(__file__).resolve().parents[3]
TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")


@pytest.fixture
def pg():
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    conn = psycopg.connect(URL, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    saver = PostgresSaver(conn)
    saver.setup()
    prefix = f"transfer-{uuid.uuid4().hex[:8]}-"
    yield saver, prefix
    for table in TABLES:
        conn.execute(f"DELETE FROM {table} WHERE thread_id LIKE %s", (prefix + "%",))
    conn.close()


def rows(conn, thread_id: str) -> dict[str, list]:
    """Every column of the thread's rows except thread_id, in a stable order."""
    found = {}
    for table in TABLES:
        found[table] = [
            {k: v for k, v in row.items() if k != "thread_id"}
            for row in conn.execute(
                f"SELECT * FROM {table} WHERE thread_id = %s ORDER BY 2, 3, 4, 5", (thread_id,)
            )
        ]
    return found


def history(graph, thread_id: str) -> list[tuple]:
    return [
        (
            s.values,
            s.next,
            s.config["configurable"]["checkpoint_id"],
            (s.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
            s.metadata.get("source"),
        )
        for s in graph.get_state_history(config(thread_id))
    ]


def test_round_trip_on_postgres_gives_the_same_rows_and_history(pg):
    saver, prefix = pg
    graph = make_forked(saver, prefix + "f")

    data = loads_export(dumps_export(export_thread_pg(saver.conn, prefix + "f")))
    report = import_thread_pg(saver.conn, data, thread_id=prefix + "copy")

    assert data["format"] == FORMAT and data["storage"] == "postgres" and data["blobs"]
    assert (report.thread_id, report.source_thread_id) == (prefix + "copy", prefix + "f")
    assert report.checkpoints == 9 and report.namespaces == ("",) and report.bytes > 0
    assert rows(saver.conn, prefix + "copy") == rows(saver.conn, prefix + "f")
    assert history(graph, prefix + "copy") == history(graph, prefix + "f")


def test_round_trip_on_postgres_keeps_subgraph_namespaces(pg):
    saver, prefix = pg
    make_nested(saver, prefix + "n")

    report = import_thread_pg(saver.conn, export_thread_pg(saver.conn, prefix + "n"),
                              thread_id=prefix + "n2")

    assert len(report.namespaces) > 1
    assert rows(saver.conn, prefix + "n2") == rows(saver.conn, prefix + "n")
    graph = nested_graph(saver)
    assert history(graph, prefix + "n2") == history(graph, prefix + "n")


def test_an_imported_paused_thread_resumes_on_postgres(pg):
    saver, prefix = pg
    graph = pause_graph(saver)
    graph.invoke({"ticket": "t9"}, config(prefix + "p"))

    import_thread_pg(saver.conn, export_thread_pg(saver.conn, prefix + "p"), prefix + "p2")

    assert graph.get_state(config(prefix + "p2")).next == ("write",)
    assert graph.invoke(None, config(prefix + "p2"))["priority"] == "high"
    assert graph.get_state(config(prefix + "p")).next == ("write",)  # the original is untouched


def test_import_on_postgres_into_a_non_empty_thread_is_refused_and_changes_nothing(pg):
    saver, prefix = pg
    pause_graph(saver).invoke({"ticket": "t9"}, config(prefix + "p"))
    data = export_thread_pg(saver.conn, prefix + "p")
    before = rows(saver.conn, prefix + "p")

    with pytest.raises(TransferRefused, match="already has checkpoints"):
        import_thread_pg(saver.conn, data)
    assert rows(saver.conn, prefix + "p") == before


def test_import_on_postgres_of_a_sqlite_export_is_refused(pg, tmp_path):
    saver, prefix = pg
    from langgraph.checkpoint.sqlite import SqliteSaver

    with closing(sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False)) as conn:
        pause_graph(SqliteSaver(conn)).invoke({"ticket": "t9"}, config("p"))
        data = export_thread(conn, "p")

    with pytest.raises(TransferRefused, match="written from a sqlite checkpoint database"):
        import_thread_pg(saver.conn, data, thread_id=prefix + "s")
    assert rows(saver.conn, prefix + "s") == {table: [] for table in TABLES}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.update(version=99), "unsupported export version 99"),
        (lambda d: d.pop("blobs"), "no 'blobs' list"),
        (lambda d: d["blobs"][0].update(blob="not base64!"), r"blobs\[0\].blob is not valid"),
        (lambda d: d["checkpoints"][0].update(checkpoint="{}"), "must be a JSON object"),
        (lambda d: d["writes"][0].update(blob=None), "must be base64 text, not null"),
        (lambda d: d["checkpoints"].append(d["checkpoints"][0]), "same row twice"),
    ],
)
def test_damaged_postgres_export_is_refused_and_writes_nothing(pg, damage, message):
    saver, prefix = pg
    make_forked(saver, prefix + "f")
    data = copy.deepcopy(export_thread_pg(saver.conn, prefix + "f"))
    damage(data)

    with pytest.raises(TransferRefused, match=message):
        import_thread_pg(saver.conn, data, thread_id=prefix + "bad")
    assert rows(saver.conn, prefix + "bad") == {table: [] for table in TABLES}


def test_export_on_postgres_of_an_unknown_thread_is_refused(pg):
    saver, prefix = pg
    with pytest.raises(TransferRefused, match="has no checkpoints"):
        export_thread_pg(saver.conn, prefix + "nobody")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "playground.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def test_cli_export_and_import_on_postgres(pg, tmp_path):
    saver, prefix = pg
    graph = make_forked(saver, prefix + "f")

    exported = cli("export", URL, "--thread", prefix + "f")
    assert exported.returncode == 0, exported.stderr
    path = tmp_path / "thread.json"
    path.write_text(exported.stdout)
    assert json.loads(exported.stdout)["storage"] == "postgres"

    imported = cli("import", URL, str(path), "--thread", prefix + "cli")
    assert imported.returncode == 0, imported.stderr
    assert f"imported thread {prefix}cli: 9 checkpoints" in imported.stdout
    assert history(graph, prefix + "cli") == history(graph, prefix + "f")

    again = cli("import", URL, str(path), "--thread", prefix + "cli")
    assert again.returncode == 2 and "already has checkpoints" in again.stderr

    into_sqlite = cli("import", str(tmp_path / "new.sqlite"), str(path))
    assert into_sqlite.returncode == 2
    assert "import it into a postgresql:// URL" in into_sqlite.stderr
    assert "Traceback" not in into_sqlite.stderr
