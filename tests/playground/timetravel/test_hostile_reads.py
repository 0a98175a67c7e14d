"""Reads of databases built to hurt a reader end, within their limits, with one line each
(SQLite files, and Postgres where a server answers)."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from playground.places.door import open_storage
from playground.timetravel.decode import decode_msgpack, is_unread, to_jsonable
from playground.timetravel.diff import diff_states
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.limits import ReadStopped, reset_limits
from playground.timetravel.messages import describe
from playground.timetravel.signals import as_text
from playground.timetravel.transfer import TransferRefused, import_thread, loads_export
from playground.timetravel.tree import load_tree
from tests.playground import hostile_cases as cases
from tests.postgres import SKIP_REASON, database_url, throwaway_database


@pytest.fixture
def limited(monkeypatch):
    """Set limits through the environment, as a person starting the server would."""

    def set_(**values: str) -> None:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        reset_limits()

    yield set_
    monkeypatch.undo()
    reset_limits()


def test_a_checkpoint_that_is_its_own_parent_is_a_root_with_a_broken_link(tmp_path):
    source = open_storage(cases.write_cycles(tmp_path / "c.sqlite"))

    tree = load_tree(source, "self")

    assert tree.roots == (cases.ROOT,) and tree.path_to(cases.ROOT) == (cases.ROOT,)
    assert tree.broken[cases.ROOT] == "its parent link loops back to itself"


def test_two_checkpoints_naming_each_other_beside_a_branch_are_cut_at_the_oldest(tmp_path):
    source = open_storage(cases.write_cycles(tmp_path / "c.sqlite"))

    tree = load_tree(source, cases.CYCLE_THREAD, all_details=True)

    assert tree.broken == {cases.LOOP_A: "its parent links make a loop through 2 checkpoints"}
    assert tree.children[cases.LOOP_A] == (cases.LOOP_B,)
    assert set(tree.roots) == {cases.ROOT, cases.LOOP_A}
    assert set(tree.leaves) == {cases.LOOP_B, cases.BRANCH}
    assert tree.path_to(cases.LOOP_B) == (cases.LOOP_A, cases.LOOP_B)


def test_an_import_of_a_looping_export_is_refused_and_writes_nothing(tmp_path):
    storage = open_storage(tmp_path / "target.sqlite", writable=True, create=True)
    try:
        with pytest.raises(TransferRefused, match="its parent link loops back to itself"):
            import_thread(storage, cases.cycle_export())
        assert not storage.has_saver_tables()  # nothing was made for a refused import
    finally:
        storage.close()


def test_an_export_nested_beyond_the_stack_is_refused_in_one_line():
    with pytest.raises(TransferRefused, match="nests too deep to read"):
        loads_export(cases.deep_export())


@pytest.mark.parametrize("writer", [cases.write_endless_view, cases.write_rows_view])
def test_a_view_named_like_a_saver_table_is_refused_without_being_read(tmp_path, writer):
    path = writer(tmp_path / "v.sqlite")
    started = time.monotonic()

    with pytest.raises(CheckpointDbError, match="checkpoints is a view, not a table"):
        open_storage(path)
    assert time.monotonic() - started < 5  # refused from the schema, not by running it


def test_a_read_past_its_deadline_stops_with_one_line(tmp_path, limited):
    path = tmp_path / "big.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
        "parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB);"
        "CREATE TABLE writes (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
        "task_id TEXT, task_path TEXT, idx INT, channel TEXT, type TEXT, value BLOB);"
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 300000) "
        "INSERT INTO writes SELECT 't', '', 'c', 'k', 'p', n, 'x', 'msgpack', "
        "randomblob(64) FROM r;"
        "INSERT INTO checkpoints VALUES ('t', '', 'c', NULL, 'msgpack', x'80', '{}');")
    conn.commit()
    conn.close()
    limited(PLAYGROUND_READ_TIMEOUT="0.01")

    with pytest.raises(ReadStopped, match=r"took longer than 0\.01 s to read: stopped"):
        source = open_storage(path)
        time.sleep(0.02)  # the deadline counts from the open
        source.threads()


def test_a_thread_longer_than_the_row_limit_is_refused_in_one_line(tmp_path, limited):
    from playground.savers import open_saver
    from tests.playground.timetravel.sample_graphs import make_long

    with open_saver(tmp_path / "long.sqlite") as saver:
        make_long(saver, "long", turns=5)
    limited(PLAYGROUND_MAX_ROWS="4")

    with pytest.raises(ReadStopped, match=r"thread 'long' has more than 4 checkpoints"):
        load_tree(open_storage(tmp_path / "long.sqlite"), "long")


def test_a_value_nested_a_thousand_levels_shows_as_too_deep_everywhere(tmp_path):
    source = open_storage(cases.write_deep_value(tmp_path / "d.sqlite"))
    tree = load_tree(source, "deep")
    before, after = (source.values("deep", cid) for cid in tree.nodes)

    shown = json.dumps(to_jsonable(after))
    changes = diff_states(before, after).lines()

    assert "too deep to show" in shown
    assert len(changes) == 1 and "too deep to show" in changes[0]
    assert "too deep to show" in describe(after["tree"])
    assert as_text(after)  # no RecursionError: one line


def test_millions_of_tiny_extension_values_are_too_large_to_show_not_gigabytes():
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    value = decode_msgpack(cases.blowup_blob())
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024

    assert is_unread(value)
    assert "too large to show (more than 200,000 objects" in value["__unread__"]
    assert grown_mb < 300  # the crafted blob took 2 GB before the limit


def test_a_blob_of_tiny_extension_values_makes_one_unreadable_checkpoint(tmp_path):
    source = open_storage(cases.write_blowup(tmp_path / "b.sqlite"))

    tree = load_tree(source, "blowup", all_details=True)

    (detail,) = tree.details.values()
    assert "too large to show" in detail.problem


def test_a_ten_megabyte_thread_id_is_listed_cut_short(tmp_path):
    from playground.timetravel.limits import clip

    source = open_storage(cases.write_long_thread_id(tmp_path / "l.sqlite", megabytes=10))

    ids = [t.thread_id for t in source.threads()]

    assert len(ids) == 2 and len(clip(max(ids, key=len))) == 2_000


@pytest.fixture
def pg_url():
    if not database_url():
        pytest.skip(SKIP_REASON)
    with throwaway_database() as url:
        yield url


def test_a_postgres_view_over_pg_sleep_is_refused_without_being_read(pg_url):
    cases.write_postgres_sleeping_view(pg_url)
    started = time.monotonic()

    with pytest.raises(CheckpointDbError, match="not a LangGraph checkpoint database"):
        open_storage(pg_url)
    assert time.monotonic() - started < 5


def test_a_postgres_read_past_its_deadline_is_stopped_by_the_server(pg_url, limited):
    import psycopg

    from playground.places.postgres.connections import setup_postgres_tables
    from playground.places.settings import postgres_options

    with psycopg.connect(pg_url, **postgres_options()) as conn:
        setup_postgres_tables(conn)
    limited(PLAYGROUND_READ_TIMEOUT="0.5")
    source = open_storage(pg_url)
    started = time.monotonic()

    # Any statement of the source's session: the server stops it at the statement_timeout.
    with pytest.raises(ReadStopped, match=r"took longer than 0\.5 s to read: stopped"):
        source._rows("SELECT pg_sleep(30)")
    assert time.monotonic() - started < 10


def test_a_file_another_program_keeps_locked_past_the_deadline_says_so_in_one_line(
        tmp_path, limited):
    path = tmp_path / "busy.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
        "parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB);"
        "CREATE TABLE writes (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
        "task_id TEXT, task_path TEXT, idx INT, channel TEXT, type TEXT, value BLOB);")
    limited(PLAYGROUND_READ_TIMEOUT="0.3", PLAYGROUND_SQLITE_TIMEOUT="0.05")
    conn.execute("BEGIN EXCLUSIVE")  # a writer in rollback-journal mode holds readers out
    try:
        with pytest.raises(CheckpointDbError) as refused:
            open_storage(path)
    finally:
        conn.rollback()
        conn.close()
    assert str(refused.value) == (
        f"{path}: another program held a write lock on it for longer than 0.3 s: open it "
        "again when that program is done writing")
    assert open_storage(path).threads() == []  # once the lock is gone the file opens
