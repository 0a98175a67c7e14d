"""What only the SQLite backend has: a file to check before anything is read, a read-only
connection, a file made for an import, and msgpack blobs rewritten byte for byte."""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing

import ormsgpack
import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.places.door import open_storage
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.migrate import MigrationRefused, rename_channel
from playground.timetravel.prune import prune_keep_latest
from tests.playground.timetravel.sample_graphs import config, pause_graph


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def paused(tmp_path):
    """A SqliteSaver file with one thread paused before ``write``."""
    path = tmp_path / "checkpoints.sqlite"
    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        pause_graph(SqliteSaver(conn)).invoke({"ticket": "t7"}, config("a"))
    return path


def rows(path) -> tuple[list, list]:
    with closing(sqlite3.connect(path)) as conn:
        return (conn.execute("SELECT * FROM checkpoints ORDER BY 1, 2, 3").fetchall(),
                conn.execute("SELECT * FROM writes ORDER BY 1, 2, 3, 4, 6").fetchall())


def test_the_read_only_connection_cannot_write(paused):
    storage = open_storage(paused)
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            storage.conn.execute("DELETE FROM checkpoints")
    finally:
        storage.close()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"hello, not a database\n", "not a SQLite database"),
        (b"SQLite format 3\x00" + b"\xff" * 200, "not a readable SQLite database"),
    ],
)
def test_a_file_that_is_not_a_checkpoint_database_is_reported(tmp_path, content, message):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(content)

    for writable in (False, True):
        with pytest.raises(CheckpointDbError, match=message):
            open_storage(path, writable=writable, create=writable)
    assert path.read_bytes() == content


def test_a_sqlite_file_of_another_app_is_reported_and_never_given_tables(tmp_path):
    path = tmp_path / "other.sqlite"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER, text TEXT)")
        conn.commit()
    before = _digest(path)

    with pytest.raises(CheckpointDbError, match="not a LangGraph checkpoint database"):
        open_storage(path, writable=True, create=True)  # an import never writes into it
    assert _digest(path) == before


def test_a_missing_file_is_reported_and_not_created_unless_an_import_asks(tmp_path):
    path = tmp_path / "nope.sqlite"

    with pytest.raises(CheckpointDbError, match="no such file"):
        open_storage(path)
    assert not path.exists()

    made = open_storage(tmp_path / "new" / "made.sqlite", writable=True, create=True)
    try:
        assert not made.has_saver_tables()  # an import makes them once its export is checked
        made.create_saver_tables()
        assert made.has_saver_tables() and made.threads() == []
    finally:
        made.close()


def test_a_head_stored_as_pickle_is_not_rewritten(paused):
    with closing(sqlite3.connect(paused)) as conn:
        checkpoint_id, blob = conn.execute(
            "SELECT checkpoint_id, checkpoint FROM checkpoints ORDER BY checkpoint_id DESC"
        ).fetchone()
        conn.execute("INSERT INTO checkpoints VALUES ('crafted', '', ?, NULL, 'pickle', ?, ?)",
                     (checkpoint_id, blob, b"{}"))
        conn.commit()
    before = rows(paused)

    with closing(open_storage(paused, writable=True)) as storage, pytest.raises(
            MigrationRefused, match="stored as 'pickle'"):
        rename_channel(storage, "crafted", "note", "remark", apply=True)
    assert rows(paused) == before


def test_a_head_without_channel_versions_is_not_rewritten(paused):
    blob = ormsgpack.packb({"v": 4, "channel_values": {"etag": "x"}})
    with closing(sqlite3.connect(paused)) as conn:
        conn.execute("INSERT INTO checkpoints VALUES ('odd', '', 'c1', NULL, 'msgpack', ?, ?)",
                     (blob, b"{}"))
        conn.commit()
    before = rows(paused)

    with closing(open_storage(paused, writable=True)) as storage, pytest.raises(
            MigrationRefused, match="lacks channel_values, channel_versions or versions_seen"):
        rename_channel(storage, "odd", "etag", "version", apply=True)
    assert rows(paused) == before


def test_a_head_that_would_not_re_encode_to_the_same_bytes_is_not_rewritten(paused):
    # A float32 packs in 5 bytes; read back as a Python float it would pack in 9.
    blob = ormsgpack.packb({"v": 4, "channel_values": {"etag": "x"},
                            "channel_versions": {"etag": 1}, "versions_seen": {}})
    blob = blob.replace(b"\x01", b"\xca\x3f\x80\x00\x00", 1)
    with closing(sqlite3.connect(paused)) as conn:
        conn.execute("INSERT INTO checkpoints VALUES ('f32', '', 'c1', NULL, 'msgpack', ?, ?)",
                     (blob, b"{}"))
        conn.commit()
    before = rows(paused)

    with closing(open_storage(paused, writable=True)) as storage, pytest.raises(
            MigrationRefused, match="does not re-encode byte for byte"):
        rename_channel(storage, "f32", "etag", "version", apply=True)
    assert rows(paused) == before


def test_a_change_waits_for_another_writer_and_commits_on_its_own(paused):
    with closing(open_storage(paused, writable=True)) as storage:
        storage.conn.execute("BEGIN")  # a transaction someone left open on this connection
        with pytest.raises(RuntimeError, match="commit or roll it back"):
            prune_keep_latest(storage, "a", 1, dry_run=False)
        storage.conn.rollback()
        assert prune_keep_latest(storage, "a", 1, dry_run=False).checkpoints_after == 1


def test_records_read_with_times_carry_the_time_langgraph_gives_each_checkpoint(paused):
    with closing(sqlite3.connect(paused, check_same_thread=False)) as conn:
        graph = pause_graph(SqliteSaver(conn))
        given = {snapshot.config["configurable"]["checkpoint_id"]: snapshot.created_at
                 for snapshot in graph.get_state_history(config("a"))}
    storage = open_storage(paused)
    timed = storage.records("a", times=True)
    assert {record.checkpoint_id: record.created_at for record in timed} == given
    # Without times the records are the same, less the time (a tree that shows none)
    assert [record._replace(created_at=None) for record in timed] == storage.records("a")


def test_reads_under_most_of_a_thread_give_what_reads_under_a_few_give(paused, monkeypatch):
    """Ids that are most of a namespace are read in one pass over it, a few through IN lists:
    the same rows either way."""
    import playground.places.sqlite.reads as sqlite_place

    storage = open_storage(paused)
    ids = [record.checkpoint_id for record in storage.records("a")]
    assert len(ids) >= 4

    def reads(some: list[str]) -> tuple:
        return (storage.checkpoint_times("a", some), sorted(storage.write_owners("a", some)),
                sorted((w.checkpoint_id, w.task_id, w.channel, repr(w.value))
                       for w in storage.stored_writes("a", "", some)))

    monkeypatch.setattr(sqlite_place, "_CHUNK", 2)  # more than two ids: one pass over the thread
    for some in (ids, ids[1:], ids[:3]):
        in_one_pass = reads(some)
        monkeypatch.setattr(sqlite_place, "_ONE_PASS_SHARE", 10.0)  # never one pass
        assert reads(some) == in_one_pass
        assert set(in_one_pass[0]) == set(some)
        monkeypatch.setattr(sqlite_place, "_ONE_PASS_SHARE", 0.25)
