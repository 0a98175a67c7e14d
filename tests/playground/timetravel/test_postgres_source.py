"""The engine on a real PostgreSQL server written by the official PostgresSaver.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); skipped without it.
"""

from __future__ import annotations

import os
import uuid

import pytest

from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.sizes import size_report
from playground.timetravel.source import open_source
from playground.timetravel.tree import load_tree

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL server to test on)"
)


@pytest.fixture
def pg_saver():
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    conn = psycopg.connect(URL, autocommit=True, prepare_threshold=0, row_factory=dict_row)
    saver = PostgresSaver(conn)
    saver.setup()
    prefix = f"pg-{uuid.uuid4().hex[:8]}-"
    yield saver, prefix
    for table in ("checkpoint_writes", "checkpoint_blobs", "checkpoints"):
        conn.execute(f"DELETE FROM {table} WHERE thread_id LIKE %s", (prefix + "%",))
    conn.close()


def test_tree_on_postgres_equals_get_state_history(pg_saver, samples):
    saver, prefix = pg_saver
    graph = samples.make_forked(saver, prefix + "forked")
    config = {"configurable": {"thread_id": prefix + "forked"}}

    tree = load_tree(open_source(URL), prefix + "forked", all_details=True)

    history = {
        s.config["configurable"]["checkpoint_id"]: (
            s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
            tuple(sorted(s.next)),
        )
        for s in graph.get_state_history(config)
    }
    assert {cid: (r.parent_id, tree.details[cid].next) for cid, r in tree.nodes.items()} == history
    assert len(tree.leaves) == 3


def test_thread_list_and_sizes_on_postgres(pg_saver, samples):
    saver, prefix = pg_saver
    samples.make_long(saver, prefix + "long", turns=4)

    source = open_source(URL)
    threads = {t.thread_id: t for t in source.threads() if t.thread_id.startswith(prefix)}
    report = size_report(prefix + "long", source.records(prefix + "long"))

    assert threads[prefix + "long"].checkpoints == 20
    assert report.checkpoints == 20 and report.stored_bytes > report.resume_load_bytes > 0


def test_postgres_sizes_count_every_stored_byte_once(pg_saver, samples):
    saver, prefix = pg_saver
    samples.make_long(saver, prefix + "sized", turns=3)
    key = {"t": prefix + "sized"}

    report = size_report(prefix + "sized", open_source(URL).records(prefix + "sized"))

    raw = saver.conn.execute(
        "SELECT (SELECT sum(octet_length(checkpoint::text) + octet_length(metadata::text)) "
        "  FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = '') + "
        "(SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs "
        "  WHERE thread_id = %(t)s AND checkpoint_ns = '') + "
        "(SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes "
        "  WHERE thread_id = %(t)s AND checkpoint_ns = '') AS total",
        key,
    ).fetchone()["total"]
    assert report.stored_bytes == raw


def test_postgres_url_password_is_never_echoed_in_errors():
    with pytest.raises(CheckpointDbError) as refused:
        open_source("postgresql://someone:s3cret-pass@127.0.0.1:1/nowhere")

    assert "s3cret-pass" not in str(refused.value)
    assert "***" in str(refused.value)
