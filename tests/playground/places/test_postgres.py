"""What only the Postgres backend has: value blobs shared by checkpoints (copied on a rename,
deleted once no kept checkpoint refers to them), JSONB in exports, a read-only session, a
shared read pool, and URLs whose passwords never show.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); skipped without it.
"""

from __future__ import annotations

import copy
from contextlib import closing

import pytest

from playground.places.door import open_storage
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.migrate import MigrationRefused, rename_channel
from playground.timetravel.prune import prune_keep_latest
from playground.timetravel.transfer import TransferRefused, export_thread, import_thread
from tests import postgres
from tests.playground import databases
from tests.playground.timetravel.sample_graphs import config, make_forked, make_long
from tests.playground.timetravel.test_migrate import SchemaA, SchemaB, ticket_graph

pytestmark = pytest.mark.skipif(not postgres.database_url(), reason=postgres.SKIP_REASON)


@pytest.fixture
def pg(tmp_path):
    with databases.database("postgres", tmp_path) as made:
        yield made


def blobs(database, thread_id: str) -> dict[tuple[str, str], bytes]:
    return {(channel, version): bytes(blob) for channel, version, blob in database.execute(
        "SELECT channel, version, blob FROM checkpoint_blobs WHERE thread_id = %s",
        (thread_id,))}


def test_a_rename_copies_the_value_blob_under_the_new_name_and_keeps_the_old_row(pg):
    ticket_graph(pg.saver, SchemaA, "etag", boxed=True).invoke({"ticket_id": "t9"}, config("b"))
    version = pg.saver.get_tuple(config("b")).checkpoint["channel_versions"]["etag"]

    with closing(pg.open(writable=True)) as storage:
        report = rename_channel(storage, "b", "etag", "version", apply=True)

    assert "checkpoint_blobs" in report.changed
    stored = blobs(pg, "b")
    # older checkpoints share the old row: it stays, and the copy holds the very same bytes
    assert stored[("version", version)] == stored[("etag", version)]
    history = list(ticket_graph(pg.saver, SchemaA, "etag").get_state_history(config("b")))
    assert history[1].values["etag"] == {"tag": "v1-t9"}
    result = ticket_graph(pg.saver, SchemaB, "version", boxed=True).invoke(None, config("b"))
    assert result["outcome"] == "wrote at v1-t9"


def test_a_rename_onto_a_name_whose_blob_differs_is_refused_and_changes_nothing(pg):
    ticket_graph(pg.saver, SchemaA, "etag", boxed=True).invoke({"ticket_id": "t9"}, config("b"))
    version = pg.saver.get_tuple(config("b")).checkpoint["channel_versions"]["etag"]
    pg.execute("INSERT INTO checkpoint_blobs VALUES ('b', '', 'version', %s, 'msgpack', %s)",
               (version, b"\xa5other"))
    before = pg.rows()

    with closing(pg.open(writable=True)) as storage, pytest.raises(
            MigrationRefused, match="a different blob is already stored for 'version'"):
        rename_channel(storage, "b", "etag", "version", apply=True)
    assert pg.rows() == before


def test_prune_deletes_the_value_blobs_no_kept_checkpoint_refers_to(pg):
    make_long(pg.saver, "long", turns=4)
    before = blobs(pg, "long")

    with closing(pg.open(writable=True)) as storage:
        report = prune_keep_latest(storage, "long", 2, dry_run=False)

    kept = {(channel, str(version)) for (checkpoint,) in pg.execute(
        "SELECT checkpoint FROM checkpoints WHERE thread_id = 'long'")
        for channel, version in checkpoint["channel_versions"].items()}
    after = blobs(pg, "long")
    assert set(after) <= kept and len(after) < len(before)
    assert report.bytes_after == pg.stored_bytes("long")
    assert pause_resumes(pg)


def pause_resumes(pg) -> bool:
    from tests.playground.timetravel.sample_graphs import pause_graph

    graph = pause_graph(pg.saver)
    graph.invoke({"ticket": "t5"}, config("long"))
    return graph.invoke(None, config("long"))["priority"] == "high"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d.pop("blobs"), "no 'blobs' list"),
        (lambda d: d["blobs"][0].update(blob="not base64!"), r"blobs\[0\].blob is not valid"),
        (lambda d: d["checkpoints"][0].update(checkpoint="{}"), "must be a JSON object"),
        (lambda d: d["writes"][0].update(blob=None), "must be base64 text, not null"),
        (lambda d: d["checkpoints"].append(d["checkpoints"][0]), "same row twice"),
    ],
)
def test_a_damaged_postgres_export_is_refused_and_writes_nothing(pg, damage, message):
    make_forked(pg.saver, "f")
    with closing(pg.open()) as storage:
        data = copy.deepcopy(export_thread(storage, "f"))
    damage(data)
    before = pg.rows()

    with closing(pg.open(writable=True)) as storage, pytest.raises(TransferRefused,
                                                                    match=message):
        import_thread(storage, data, thread_id="bad")
    assert pg.rows() == before


def test_an_import_gives_a_database_without_tables_the_savers_own(pg, tmp_path):
    make_forked(pg.saver, "f")
    with closing(pg.open()) as storage:
        data = export_thread(storage, "f")

    with databases.empty_target("postgres", tmp_path) as url:
        with pytest.raises(CheckpointDbError, match="no PostgresSaver tables"):
            open_storage(url, writable=True)  # only an import's target gets tables
        with closing(open_storage(url, writable=True, create=True)) as storage:
            with pytest.raises(TransferRefused, match="unsupported export version"):
                import_thread(storage, {**data, "version": 7})
            assert not storage.has_saver_tables()  # a refused import made nothing
            report = import_thread(storage, data)
        assert report.checkpoints == 9
        assert databases.Database("postgres", url, None).rows() == pg.rows("f")


def test_the_inspection_session_cannot_write(pg):
    import psycopg

    make_forked(pg.saver, "f")
    with closing(pg.open()) as storage, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        storage.conn.execute("DELETE FROM checkpoints")
    assert pg.count("f") == 9


def test_a_shared_storage_borrows_one_connection_per_query_and_keeps_none(pg):
    make_forked(pg.saver, "f")
    opened = [open_storage(pg.target, shared=True) for _ in range(20)]  # never closed

    for storage in opened:
        assert storage.records("f")
    (count,) = pg.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                          "current_database()")[0]
    assert 2 <= count <= 6  # the pool's few, this query's own and the saver's; not twenty


def test_a_postgres_url_password_is_never_echoed_in_errors():
    with pytest.raises(CheckpointDbError) as refused:
        open_storage("postgresql://someone:s3cret-pass@127.0.0.1:1/nowhere")

    assert "s3cret-pass" not in str(refused.value)
    assert "***" in str(refused.value)
