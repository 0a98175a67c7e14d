"""Bytes per checkpoint, what a resume loads, and how storage grows."""

from __future__ import annotations

import sqlite3

from playground.places.door import open_storage
from playground.timetravel.sizes import size_report


def _raw_sql_totals(path, thread_id: str) -> tuple[int, int]:
    with sqlite3.connect(path) as conn:
        stored = conn.execute(
            "SELECT sum(length(checkpoint) + length(metadata)) FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = ''", (thread_id,)
        ).fetchone()[0]
        stored += conn.execute(
            "SELECT coalesce(sum(length(value)), 0) FROM writes "
            "WHERE thread_id = ? AND checkpoint_ns = ''", (thread_id,)
        ).fetchone()[0]
        newest = conn.execute(
            "SELECT length(checkpoint) FROM checkpoints WHERE thread_id = ? "
            "AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1", (thread_id,)
        ).fetchone()[0]
    return newest, stored


def test_sizes_match_raw_sql_and_the_generic_saver_reading(sample_db, samples):
    path, _ = sample_db
    source = open_storage(path)

    from_sql = size_report("long", source.records("long"))

    assert (from_sql.resume_load_bytes, from_sql.stored_bytes) == _raw_sql_totals(path, "long")


def test_any_saver_gives_sizes_of_the_serialized_checkpoints(samples):
    from langgraph.checkpoint.memory import InMemorySaver

    saver = InMemorySaver()
    samples.make_long(saver, "mem", turns=3)

    report = size_report("mem", open_storage(saver).records("mem"))

    assert report.checkpoints == 15
    assert 300 < report.resume_load_bytes < 3000
    assert report.stored_bytes > 10 * report.resume_load_bytes


def test_growth_series_has_one_point_per_turn_and_only_grows(sample_db):
    path, _ = sample_db

    report = size_report("long", open_storage(path).records("long"))

    assert [turn for turn, _ in report.turns] == list(range(1, 21))
    totals = [total for _, total in report.turns]
    assert totals == sorted(totals) and totals[-1] == report.stored_bytes
    # What a resume loads stays one checkpoint while the thread keeps all of them.
    assert report.stored_bytes > 50 * report.resume_load_bytes


def test_cumulative_bytes_end_at_the_stored_total(sample_db):
    path, _ = sample_db

    report = size_report("forked", open_storage(path).records("forked"))

    assert report.points[-1].cumulative_bytes == report.stored_bytes
    assert report.checkpoints == 9
