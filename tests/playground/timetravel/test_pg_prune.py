"""Pruning a thread stored by PostgresSaver: rows, shared blobs, the head still resumes.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); skipped without it.
"""

from __future__ import annotations

import os
import uuid

import pytest

from playground.timetravel.pg_prune import delete_branch_pg, prune_keep_latest_pg
from playground.timetravel.prune import PruneRefused
from playground.timetravel.sizes import size_report
from playground.timetravel.source import open_source

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"
)


@pytest.fixture
def pg(samples):
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    conn = psycopg.connect(URL, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    saver = PostgresSaver(conn)
    saver.setup()
    prefix = f"prune-{uuid.uuid4().hex[:8]}-"
    yield saver, prefix
    for table in ("checkpoint_writes", "checkpoint_blobs", "checkpoints"):
        conn.execute(f"DELETE FROM {table} WHERE thread_id LIKE %s", (prefix + "%",))
    conn.close()


def _stored(thread_id: str) -> int:
    source = open_source(URL)
    try:
        return size_report(thread_id, source.records(thread_id)).stored_bytes
    finally:
        source.close()


def test_prune_on_postgres_keeps_the_newest_and_the_head_still_resumes(pg, samples):
    saver, prefix = pg
    thread = prefix + "long"
    graph = samples.make_long(saver, thread, turns=5)
    config = {"configurable": {"thread_id": thread}}
    graph.invoke({"ticket": "t2"}, config)  # paused before write
    before = _stored(thread)

    dry = prune_keep_latest_pg(saver.conn, thread, 3)
    assert _stored(thread) == before  # a dry run changes nothing
    report = prune_keep_latest_pg(saver.conn, thread, 3, dry_run=False)

    assert report.bytes_before == dry.bytes_before == before
    assert report.checkpoints_after == 3 and report.bytes_after == _stored(thread) < before
    graph.invoke(None, config)
    assert graph.get_state(config).values["priority"] == "high"
    assert not graph.get_state(config).next


def test_prune_on_postgres_refuses_keep_zero_and_changes_nothing(pg, samples):
    saver, prefix = pg
    thread = prefix + "z"
    samples.make_long(saver, thread, turns=1)
    before = _stored(thread)

    with pytest.raises(PruneRefused, match="at least 1"):
        prune_keep_latest_pg(saver.conn, thread, 0, dry_run=False)

    assert _stored(thread) == before


def test_delete_branch_on_postgres_removes_one_fork_and_never_the_head(pg, samples):
    saver, prefix = pg
    thread = prefix + "forked"
    graph = samples.make_forked(saver, thread)
    history = list(graph.get_state_history({"configurable": {"thread_id": thread}}))
    update = next(s for s in history if s.metadata["source"] == "update")
    root = history[-1]

    with pytest.raises(PruneRefused, match="head"):
        delete_branch_pg(saver.conn, thread, root.config["configurable"]["checkpoint_id"],
                         dry_run=False)
    report = delete_branch_pg(saver.conn, thread, update.config["configurable"]["checkpoint_id"],
                              dry_run=False)

    assert report.checkpoints_before == 9 and report.checkpoints_after == 7
    left = {s.config["configurable"]["checkpoint_id"]
            for s in graph.get_state_history({"configurable": {"thread_id": thread}})}
    assert update.config["configurable"]["checkpoint_id"] not in left and len(left) == 7


def test_inspection_session_on_postgres_cannot_write():
    import psycopg

    source = open_source(URL)
    try:
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            source.conn.execute("DELETE FROM checkpoints WHERE thread_id = 'nobody'")
    finally:
        source.close()
