"""The marks a run the playground drives leaves in its checkpoints (run id, start), read back on
every kind's records, and LangGraph's own resume mark read without decoding values."""

from __future__ import annotations

import datetime as dt
import time

import ormsgpack

from playground.places.door import open_storage
from playground.places.saver_object import SaverStorage
from playground.runtime.driven import driven
from playground.timetravel.decode import interrupt_seen
from playground.timetravel.runs import RUN_ID_KEY, RUN_STARTED_KEY, run_of, with_run
from playground.timetravel.timeline import parse_time
from tests.playground.timetravel.sample_graphs import counting_chain


def _graph(saver):
    return counting_chain(saver, ("read", "write"), interrupt_before=("write",))


def test_each_run_the_playground_drives_marks_every_checkpoint_it_writes(saver, tmp_path):
    graph = driven(_graph(saver))
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"count": 0}, config)
    graph.invoke(None, config)

    for storage in (open_storage(tmp_path / "checkpoints.db"), SaverStorage(saver)):
        records = storage.records("t", times=True)
        assert all(record.run_id and record.run_started_at for record in records)
        runs = [record.run_id for record in records]
        assert len(set(runs)) == 2 and runs[-1] != runs[0]  # the resume is a run of its own
        for record in records:
            started, written = parse_time(record.run_started_at), parse_time(record.created_at)
            assert started is not None and written is not None and started <= written


def test_a_callers_run_marks_are_kept_and_nested_metadata_is_left_alone():
    marked = with_run({"configurable": {"thread_id": "t"}, "metadata": {"k": "v"}})
    assert marked["metadata"]["k"] == "v"
    assert dt.datetime.fromisoformat(marked["metadata"][RUN_STARTED_KEY]).tzinfo is not None
    assert with_run(marked)["metadata"] == marked["metadata"]  # a lower layer keeps them
    assert run_of({RUN_ID_KEY: "r", RUN_STARTED_KEY: "x" * 500}) == ("r", None, None)
    assert run_of({RUN_ID_KEY: ["not", "text"]}) == (None, None, None)


def test_the_resume_mark_is_read_as_strings_and_numbers_only():
    mark = {"a": "1.0", "b": 2}
    plain = ormsgpack.packb({"v": 4, "versions_seen": {"__interrupt__": mark, "x": {"a": "1"}}})
    assert interrupt_seen("msgpack", plain) == ormsgpack.packb(mark)  # its bytes, not built
    assert interrupt_seen("msgpack", plain[-40:]) == ormsgpack.packb(mark)  # from a tail
    # A value there that is not a plain string or number (here an extension) is not read.
    key = b"\xad__interrupt__"
    crafted = b"\x81\xadversions_seen\x81" + key + b"\x81\xa1a" + b"\xc7\x03\x01abc"
    assert interrupt_seen("msgpack", crafted) is None
    assert interrupt_seen("msgpack", b"\x81\xa1v\x04") is None
    assert interrupt_seen("pickle", plain) is None
    assert interrupt_seen("json", b'{"versions_seen": {"__interrupt__": {"a": 3}}}') == {"a": 3}


def test_run_marks_and_resume_marks_read_the_same_on_every_database_kind(database):
    """SQLite and Postgres: a marked run's records carry its id and start; a stock thread's
    resumed step is found by LangGraph's own mark and said to maybe include a pause."""
    from playground.timetravel.timeline import PAUSE_WORTH_SECONDS, timeline
    from playground.timetravel.tree import load_tree

    graph = _graph(database.saver)
    marked = {"configurable": {"thread_id": "marked"}}
    graph.invoke({"count": 0}, with_run(marked))
    graph.invoke(None, with_run(marked))
    stock = {"configurable": {"thread_id": "stock"}}
    graph.invoke({"count": 0}, stock)
    time.sleep(PAUSE_WORTH_SECONDS + 0.1)  # a pause long enough to be looked for
    graph.invoke(None, stock)

    with database.storage() as storage:
        records = storage.records("marked")
        assert len({record.run_id for record in records}) == 2
        assert all(parse_time(record.run_started_at) for record in records)
        assert all(record.run_id is None for record in storage.records("stock"))
        found = timeline(storage, load_tree(storage, "stock", times=True))
        assert [step.node for step in found.steps if step.maybe_paused] == ["write"]
        found = timeline(storage, load_tree(storage, "marked", times=True))
        assert found.maybe_paused == 0
        assert [s.note for s in found.steps if s.kind == "wait"] == ["paused before write"]
