"""Opening checkpoint files: read-only inspection, and a clear error for anything else."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.source import open_source


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_inspection_reads_every_thread_and_changes_no_byte(sample_db):
    path, _ = sample_db
    before = _digest(path)

    source = open_source(path)
    for thread in source.threads():
        records = source.records(thread.thread_id)
        source.details(thread.thread_id, [r.checkpoint_id for r in records])
    source.close()

    assert _digest(path) == before


def test_read_only_source_refuses_to_hand_out_a_saver(sample_db):
    path, _ = sample_db

    with pytest.raises(CheckpointDbError, match="read-only"):
        open_source(path).saver()


def test_read_only_connection_cannot_write(sample_db):
    path, _ = sample_db
    source = open_source(path)

    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        source.conn.execute("DELETE FROM checkpoints")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"hello, not a database\n", "not a SQLite database"),
        (b"SQLite format 3\x00" + b"\xff" * 200, "not a readable SQLite database"),
    ],
)
def test_file_that_is_not_a_checkpoint_database_is_reported(tmp_path, content, message):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(content)

    with pytest.raises(CheckpointDbError, match=message):
        open_source(path)
    assert path.read_bytes() == content


def test_sqlite_file_of_another_app_is_reported_not_crashed_on(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER, text TEXT)")
    before = _digest(path)

    with pytest.raises(CheckpointDbError, match="not a LangGraph checkpoint database"):
        open_source(path)
    assert _digest(path) == before


def test_missing_file_is_reported_and_not_created(tmp_path):
    path = tmp_path / "nope.sqlite"

    with pytest.raises(CheckpointDbError, match="no such file"):
        open_source(path)
    assert not path.exists()


def test_unknown_thread_is_reported_by_name(sample_db):
    path, _ = sample_db

    with pytest.raises(UnknownThread, match="'ghost'"):
        open_source(path).records("ghost")


def test_values_leave_out_langgraph_bookkeeping_channels(sample_db):
    path, _ = sample_db
    source = open_source(path)
    head = source.records("forked")[-1]

    values = source.values("forked", head.checkpoint_id)

    assert values == {"ticket": "t7", "priority": "normal", "note": "raise t7"}


def test_pending_writes_name_their_node_and_channel(sample_db):
    path, _ = sample_db
    source = open_source(path)
    first_loop = source.records("fan")[1]

    writes = source.pending_writes("fan", first_loop.checkpoint_id)

    assert {(w.node, w.channel, tuple(w.value)) for w in writes if w.channel == "notes"} == {
        ("left", "notes", ("left on tickets",)),
        ("right", "notes", ("right on tickets",)),
    }
