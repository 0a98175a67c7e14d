"""Sources on databases whose values name code: all of it reads, nothing runs (SQLite, Postgres)."""

from __future__ import annotations

import pytest

from playground.places.door import open_storage
from playground.timetravel.errors import UnreadableCheckpoint
from playground.timetravel.tree import load_tree
from tests.playground import hostile_db


@pytest.fixture(params=["sqlite", "postgres"])
def hostile(request):
    """(target, canary folder) of a hostile database of each kind."""
    target, folder = request.getfixturevalue(f"hostile_{request.param}")
    return str(target), folder


def test_every_checkpoint_reads_or_says_why_and_nothing_runs(hostile):
    target, folder = hostile
    source = open_storage(target)
    try:
        threads = {t.thread_id: t for t in source.threads()}
        tree = load_tree(source, hostile_db.THREAD, all_details=True)
        shown, refused = {}, {}
        for checkpoint_id in tree.nodes:
            try:
                shown[checkpoint_id] = source.values(hostile_db.THREAD, checkpoint_id)
            except UnreadableCheckpoint as exc:
                refused[checkpoint_id] = str(exc)
            source.pending_writes(hostile_db.THREAD, checkpoint_id)
    finally:
        source.close()

    assert hostile_db.canaries(folder) == []
    assert set(threads) == {hostile_db.THREAD, hostile_db.PLAIN_THREAD}
    assert threads[hostile_db.THREAD].head_next == ("approve",)
    first = shown[hostile_db.IDS[0]]
    assert first["order"] == {"__type__": "myapp.models.Order", "id": "o1", "total": 9.5}
    assert first["ext1"]["__type__"] == "os.system"
    assert refused, "the crafted checkpoints are reported, not shown"
    for checkpoint_id, reason in refused.items():
        assert reason.startswith("checkpoint not readable: ")
        assert tree.details[checkpoint_id].problem == reason


def test_paused_head_shows_its_question_and_the_node_error(hostile):
    target, _ = hostile
    source = open_storage(target)
    try:
        tree = load_tree(source, hostile_db.THREAD)
    finally:
        source.close()

    lines = [signal.line for signal in tree.signals[tree.head]]
    assert lines == ["approve asks: Approve a refund of $40 for order A17?",
                     "charge failed: ValueError('card declined')"]
    assert tree.signals[tree.head][0].interrupt_id == "i-1"


def test_pickle_and_json_writes_are_shown_not_run(hostile):
    target, folder = hostile
    source = open_storage(target)
    try:
        head = load_tree(source, hostile_db.THREAD).head
        writes = {w.channel: w.value for w in source.pending_writes(hostile_db.THREAD, head)}
    finally:
        source.close()

    assert writes["note"]["__unread__"].startswith("pickle, ")
    assert writes["call"]["__type__"] == "os.system"
    assert writes["run"]["__type__"] == "os.system"
    assert hostile_db.canaries(folder) == []


def test_postgres_pickle_and_unknown_blob_types_stay_on_their_channel(hostile_postgres):
    url, _ = hostile_postgres
    source = open_storage(url)
    try:
        values = source.values(hostile_db.THREAD, hostile_db.IDS[0])
    finally:
        source.close()

    assert values["pickled"]["__unread__"].endswith("not opened")
    assert "does not read" in values["odd"]["__unread__"]
    assert "too deep" in values["deep"]["__unread__"]
    assert "too large" in values["huge"]["__unread__"]
    assert values["messages"][2]["tool_call_id"] == "c1"
