"""The Postgres place's saver on a real database: several processes setting up one empty
database at once."""

from __future__ import annotations

import threading

import pytest

from playground.places.door import open_place
from playground.places.postgres.connections import SETUP_LOCK_KEY, setup_postgres_tables
from tests import postgres


def _connect(url: str):
    import psycopg

    from playground.places.settings import postgres_options

    return psycopg.connect(url, **postgres_options())


def _all_at_once(count: int, work) -> list[BaseException]:
    """Run ``work`` on ``count`` threads released together; return what each one raised."""
    start = threading.Barrier(count)
    failures: list[BaseException] = []

    def run() -> None:
        start.wait()
        try:
            work()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return failures


@pytest.fixture
def empty_database():
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        yield url


def test_replicas_starting_together_on_an_empty_database_all_get_a_saver(empty_database):
    def start_a_replica() -> None:
        with open_place(empty_database).saver():
            pass

    assert _all_at_once(4, start_a_replica) == []

    with _connect(empty_database) as conn:
        done = conn.execute("SELECT count(*) AS n FROM checkpoint_migrations").fetchone()["n"]
        indexes = {row["indexname"] for row in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE indexname LIKE '%thread_id_idx'")}
    from langgraph.checkpoint.postgres import PostgresSaver

    assert done == len(PostgresSaver.MIGRATIONS)  # each migration ran once, none twice
    assert indexes == {"checkpoints_thread_id_idx", "checkpoint_blobs_thread_id_idx",
                       "checkpoint_writes_thread_id_idx"}


def test_table_setup_waits_for_another_process_and_then_finds_the_tables_made(empty_database):
    with _connect(empty_database) as holder, _connect(empty_database) as waiter:
        holder.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))
        finished = threading.Event()
        thread = threading.Thread(target=lambda: (setup_postgres_tables(waiter), finished.set()))
        thread.start()
        assert not finished.wait(0.5)  # it waits while another process holds the setup lock
        holder.execute("SELECT pg_advisory_unlock_all()")
        thread.join(timeout=30)
        assert finished.is_set()
        assert holder.execute("SELECT to_regclass('checkpoints') IS NOT NULL AS made"
                              ).fetchone()["made"]


def test_table_setup_gives_up_with_a_clear_error_when_the_lock_is_never_released(
        empty_database):
    with _connect(empty_database) as holder, _connect(empty_database) as waiter:
        holder.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))
        with pytest.raises(TimeoutError, match="setting up the checkpoint tables"):
            setup_postgres_tables(waiter, timeout=0.3)
        assert waiter.execute("SELECT to_regclass('checkpoints') IS NULL AS absent"
                              ).fetchone()["absent"]


def test_a_check_while_another_process_migrates_waits_for_it_instead_of_refusing(
        empty_database):
    # Another process is halfway through PostgresSaver's migrations: it holds the setup lock,
    # the checkpoint tables exist, the writes table has no task_path yet (what an older
    # LangGraph wrote). A replica starting now must not take the database for an older one.
    migrating = _connect(empty_database)
    migrating.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))
    migrating.execute("CREATE TABLE checkpoint_migrations (v INTEGER PRIMARY KEY)")
    migrating.execute("""CREATE TABLE checkpoints (thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
        parent_checkpoint_id TEXT, type TEXT, checkpoint JSONB NOT NULL,
        metadata JSONB NOT NULL DEFAULT '{}',
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))""")
    migrating.execute("""CREATE TABLE checkpoint_writes (thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT,
        blob BYTEA NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id,
        idx))""")
    outcome: list[BaseException | None] = []
    checker = threading.Thread(target=lambda: outcome.append(_checked(empty_database)))
    checker.start()
    checker.join(timeout=1.0)
    assert checker.is_alive()  # it waits for the migration rather than judging halfway
    migrating.execute("DROP TABLE checkpoint_migrations, checkpoints, checkpoint_writes")
    from langgraph.checkpoint.postgres import PostgresSaver

    PostgresSaver(migrating).setup()  # the migration finishes
    migrating.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))
    checker.join(timeout=60)
    migrating.close()
    assert outcome == [None]


def _checked(url: str) -> BaseException | None:
    try:
        open_place(url).check_runnable()
    except BaseException as exc:
        return exc
    return None
