"""Exporting a thread to JSON and importing it elsewhere: same bytes, same history, or a refusal."""

from __future__ import annotations

import copy
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.timetravel.transfer import (
    FORMAT,
    TransferRefused,
    dumps_export,
    export_thread,
    import_thread,
    loads_export,
)
from tests.playground.timetravel.sample_graphs import (
    config,
    make_forked,
    make_nested,
    nested_graph,
    pause_graph,
)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """One database with a forked thread, a nested (subgraph) thread and a paused thread."""
    path = tmp_path_factory.mktemp("source") / "checkpoints.sqlite"
    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        make_forked(saver, "f")
        make_nested(saver, "n")
        pause_graph(saver).invoke({"ticket": "t9"}, config("p"))
    return path


@pytest.fixture
def src(source: Path):
    conn = sqlite3.connect(source)
    yield conn
    conn.close()


@pytest.fixture
def dest(tmp_path: Path):
    """A connection to a new, empty SQLite file."""
    conn = sqlite3.connect(tmp_path / "imported.sqlite", check_same_thread=False)
    yield conn
    conn.close()


def rows(conn: sqlite3.Connection, thread_id: str) -> tuple[list, list]:
    """Every column of the thread's rows except thread_id, in a stable order."""
    return (
        conn.execute(
            "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata "
            "FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id",
            (thread_id,),
        ).fetchall(),
        conn.execute(
            "SELECT checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value "
            "FROM writes WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id, task_id, idx",
            (thread_id,),
        ).fetchall(),
    )


def all_rows(conn: sqlite3.Connection) -> tuple[list, list]:
    return (
        conn.execute("SELECT * FROM checkpoints ORDER BY 1, 2, 3").fetchall(),
        conn.execute("SELECT * FROM writes ORDER BY 1, 2, 3, 4, 6").fetchall(),
    )


def history(conn: sqlite3.Connection, thread_id: str, graph_factory=pause_graph) -> list:
    """What LangGraph itself reads back: values, next, ids, parent ids, metadata, times."""
    graph = graph_factory(SqliteSaver(conn))
    return [
        (
            s.values,
            s.next,
            s.config["configurable"]["checkpoint_id"],
            s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
            s.metadata,
            s.created_at,
            [(t.name, t.error) for t in s.tasks],
        )
        for s in graph.get_state_history(config(thread_id))
    ]


def test_import_into_a_new_file_copies_every_row_byte_for_byte(src, dest):
    report = import_thread(dest, export_thread(src, "f"))

    assert rows(dest, "f") == rows(src, "f")
    assert history(dest, "f") == history(src, "f")
    assert (report.thread_id, report.source_thread_id) == ("f", "f")
    assert report.checkpoints == len(rows(src, "f")[0])
    assert report.writes == len(rows(src, "f")[1])
    assert all_rows(dest)[0] == [r for r in all_rows(src)[0] if r[0] == "f"]


def test_export_survives_a_json_file_round_trip_and_the_paused_thread_resumes(src, dest, tmp_path):
    path = tmp_path / "bug-report.json"
    path.write_text(dumps_export(export_thread(src, "p")), encoding="utf-8")

    import_thread(dest, json.loads(path.read_text(encoding="utf-8")))

    assert rows(dest, "p") == rows(src, "p")
    result = pause_graph(SqliteSaver(dest)).invoke(None, config("p"))
    assert result == {"ticket": "t9", "priority": "high", "note": "raise t9"}


def test_export_includes_subgraph_namespaces(src, dest):
    data = export_thread(src, "n")

    report = import_thread(dest, loads_export(dumps_export(data)))

    assert report.namespaces[0] == "" and report.namespaces[1].startswith("inner:")
    assert rows(dest, "n") == rows(src, "n")
    assert history(dest, "n", nested_graph) == history(src, "n", nested_graph)
    subgraph_ns = report.namespaces[1]
    assert (
        dest.execute(
            "SELECT COUNT(*) FROM checkpoints WHERE thread_id = 'n' AND checkpoint_ns = ?",
            (subgraph_ns,),
        ).fetchone()[0]
        == 4
    )


def test_import_under_a_new_thread_id_beside_the_original(source, tmp_path):
    path = tmp_path / "shared.sqlite"
    shutil.copyfile(source, path)
    with closing(sqlite3.connect(path)) as conn:
        report = import_thread(conn, export_thread(conn, "f"), thread_id="f-copy")

        assert report.thread_id == "f-copy" and report.source_thread_id == "f"
        assert rows(conn, "f-copy") == rows(conn, "f")
        assert history(conn, "f-copy") == history(conn, "f")


def test_export_is_plain_json_with_the_documented_fields(src):
    data = export_thread(src, "n")

    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["format", "version", "thread_id", "checkpoints", "writes"]
    assert (data["format"], data["version"], data["thread_id"]) == (FORMAT, 1, "n")
    assert "thread_id" not in data["checkpoints"][0]


def test_import_into_nonempty_thread_is_refused_and_changes_nothing(src, dest):
    import_thread(dest, export_thread(src, "p"))
    before = all_rows(dest)

    with pytest.raises(TransferRefused, match="thread 'p' already has checkpoints"):
        import_thread(dest, export_thread(src, "f"), thread_id="p")
    assert all_rows(dest) == before


def break_export(data: dict, how: str) -> dict:
    broken = copy.deepcopy(data)
    if how == "format":
        broken["format"] = "something-else"
    elif how == "version":
        broken["version"] = 2
    elif how == "missing field":
        del broken["checkpoints"][1]["metadata"]
    elif how == "bad base64":
        broken["writes"][-1]["value"] = "not base64!"
    elif how == "wrong type":
        broken["writes"][0]["idx"] = "0"
    elif how == "no checkpoints":
        broken["checkpoints"] = []
    elif how == "postgres storage":
        broken["storage"] = "postgres"  # what export_thread_pg writes
    elif how == "duplicate row":
        # found only by the database, after other rows were inserted: all must roll back
        broken["writes"].append(broken["writes"][0])
    return broken


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("format", "unknown format 'something-else'"),
        ("version", "unsupported export version 2"),
        ("missing field", r"checkpoints\[1\] lacks metadata"),
        ("bad base64", r"writes\[\d+\]\.value is not valid base64"),
        ("wrong type", r"writes\[0\]\.idx must be an integer"),
        ("no checkpoints", "nothing to import"),
        ("postgres storage", "written from a postgres checkpoint database.*postgresql:// URL"),
        ("duplicate row", "the same row twice"),
    ],
)
def test_import_of_a_broken_export_is_refused_and_changes_nothing(src, dest, how, message):
    import_thread(dest, export_thread(src, "p"))
    before = all_rows(dest)

    with pytest.raises(TransferRefused, match=message):
        import_thread(dest, break_export(export_thread(src, "f"), how))
    assert all_rows(dest) == before


def test_export_of_unknown_thread_is_refused_naming_it(src):
    with pytest.raises(TransferRefused, match="thread 'ghost' has no checkpoints"):
        export_thread(src, "ghost")


def test_loads_export_refuses_text_that_is_not_json():
    with pytest.raises(TransferRefused, match="not JSON"):
        loads_export("{nope")
