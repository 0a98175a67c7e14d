"""Conformance of export and import: every row of a thread, copied exactly into a database of
the same kind, or a refusal that writes nothing, the same on every backend."""

from __future__ import annotations

import copy
import json
from contextlib import closing

import pytest

from playground.places.door import open_storage
from playground.timetravel.transfer import (
    FORMAT,
    TransferRefused,
    dumps_export,
    export_thread,
    import_thread,
    loads_export,
)
from tests.playground.databases import Database
from tests.playground.timetravel.sample_graphs import (
    config,
    make_forked,
    make_nested,
    nested_graph,
    pause_graph,
)


def history(saver, thread_id: str, build=pause_graph) -> list:
    """What LangGraph itself reads back: values, next, ids, parents, metadata, times, tasks."""
    return [
        (s.values, s.next, s.config["configurable"]["checkpoint_id"],
         s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
         s.metadata, s.created_at, [(t.name, t.error) for t in s.tasks])
        for s in build(saver).get_state_history(config(thread_id))
    ]


def without_thread(rows: dict[str, list]) -> dict[str, list]:
    """The rows with their thread_id column (the first, in every saver table) left out."""
    return {table: [row[1:] for row in found] for table, found in rows.items()}


def export_of(database: Database, thread_id: str) -> dict:
    with database.storage() as storage:
        return export_thread(storage, thread_id)


def import_into(target: str, data: dict, thread_id: str | None = None):
    with closing(open_storage(target, writable=True, create=True)) as storage:
        return import_thread(storage, data, thread_id=thread_id)


@pytest.fixture
def threads(database) -> Database:
    """A forked thread ``f``, a nested (subgraph) thread ``n`` and a paused thread ``p``."""
    make_forked(database.saver, "f")
    make_nested(database.saver, "n")
    pause_graph(database.saver).invoke({"ticket": "t9"}, config("p"))
    return database


def test_an_import_into_a_new_database_copies_every_row_exactly(threads, empty_target):
    report = import_into(empty_target, export_of(threads, "f"))

    copied = Database(threads.kind, empty_target, None)
    assert copied.rows() == threads.rows("f")
    with threads.fresh_saver() as original, copied.fresh_saver() as imported:
        assert history(imported, "f") == history(original, "f")
    assert (report.thread_id, report.source_thread_id) == ("f", "f")
    assert report.checkpoints == threads.count("f")
    assert report.writes == len(threads.rows("f")[
        "writes" if threads.kind == "sqlite" else "checkpoint_writes"])
    assert report.bytes == threads.stored_bytes("f") and report.namespaces == ("",)


def test_an_export_survives_a_json_file_and_the_paused_thread_resumes(threads, empty_target,
                                                                       tmp_path):
    path = tmp_path / "bug-report.json"
    path.write_text(dumps_export(export_of(threads, "p")), encoding="utf-8")

    import_into(empty_target, json.loads(path.read_text(encoding="utf-8")))

    with Database(threads.kind, empty_target, None).fresh_saver() as saver:
        result = pause_graph(saver).invoke(None, config("p"))
    assert result == {"ticket": "t9", "priority": "high", "note": "raise t9"}
    with threads.fresh_saver() as saver:  # the original still waits
        assert pause_graph(saver).get_state(config("p")).next == ("write",)


def test_an_export_holds_every_subgraph_namespace(threads, empty_target):
    report = import_into(empty_target, loads_export(dumps_export(export_of(threads, "n"))))

    assert report.namespaces[0] == "" and report.namespaces[1].startswith("inner:")
    copied = Database(threads.kind, empty_target, None)
    assert copied.rows() == threads.rows("n")
    with threads.fresh_saver() as original, copied.fresh_saver() as imported:
        assert history(imported, "n", nested_graph) == history(original, "n", nested_graph)


def test_an_import_under_a_new_thread_id_sits_beside_the_original(threads):
    report = import_into(threads.target, export_of(threads, "f"), thread_id="f-copy")

    assert (report.thread_id, report.source_thread_id) == ("f-copy", "f")
    assert without_thread(threads.rows("f-copy")) == without_thread(threads.rows("f"))
    with threads.fresh_saver() as saver:
        assert history(saver, "f-copy") == history(saver, "f")


def test_an_export_is_plain_json_with_the_documented_fields(threads):
    data = export_of(threads, "n")

    with threads.storage() as storage:
        lists = [table.key for table in storage.export_tables]
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["format", "version", "storage", "thread_id", *lists]
    assert (data["format"], data["version"], data["storage"], data["thread_id"]) == (
        FORMAT, 1, threads.kind, "n")
    assert "thread_id" not in data["checkpoints"][0]


def test_an_import_into_a_thread_that_has_rows_is_refused_and_changes_nothing(threads):
    before = threads.rows()

    with pytest.raises(TransferRefused, match="thread 'p' already has checkpoints"):
        import_into(threads.target, export_of(threads, "f"), thread_id="p")
    assert threads.rows() == before


def _blob_column(data: dict) -> str:
    return "value" if "value" in data["writes"][0] else "blob"


DAMAGES = {
    "format": (lambda d: d.update(format="something-else"), "unknown format 'something-else'"),
    "version": (lambda d: d.update(version=2), "unsupported export version 2"),
    "missing field": (lambda d: d["checkpoints"][1].pop("metadata"),
                      r"checkpoints\[1\] lacks metadata"),
    "bad base64": (lambda d: d["writes"][-1].update({_blob_column(d): "not base64!"}),
                   r"writes\[\d+\]\.(value|blob) is not valid base64"),
    "wrong type": (lambda d: d["writes"][0].update(idx="0"),
                   r"writes\[0\]\.idx must be an integer"),
    "no checkpoints": (lambda d: d.update(checkpoints=[]), "nothing to import"),
    "other storage": (lambda d: d.update(storage="sqlite" if d["storage"] == "postgres"
                                         else "postgres"), "written from a .* checkpoint database"),
    # found only by the database, after other rows went in: all of them must roll back
    "duplicate row": (lambda d: d["writes"].append(d["writes"][0]), "the same row twice"),
    "parent loop": (lambda d: d["checkpoints"][0].update(
        parent_checkpoint_id=d["checkpoints"][-1]["checkpoint_id"]), "parent links make a loop"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_export_is_refused_and_writes_nothing(threads, damage):
    change, message = DAMAGES[damage]
    data = copy.deepcopy(export_of(threads, "f"))
    change(data)
    before = threads.rows()

    with pytest.raises(TransferRefused, match=message):
        import_into(threads.target, data, thread_id="bad")
    assert threads.rows() == before


def test_an_export_of_an_unknown_thread_is_refused_naming_it(threads):
    with pytest.raises(TransferRefused, match="thread 'ghost' has no checkpoints"):
        export_of(threads, "ghost")


def test_an_import_into_a_read_only_database_is_refused(threads):
    data = export_of(threads, "f")
    before = threads.rows()

    with threads.storage() as storage, pytest.raises(TransferRefused, match="read-only"):
        import_thread(storage, data, thread_id="f-copy")
    assert threads.rows() == before


def test_a_saver_object_is_neither_exported_nor_imported_into(threads):
    from playground.places.saver_object import SaverStorage

    storage = SaverStorage(threads.saver)
    with pytest.raises(TransferRefused, match="export works on SQLite"):
        export_thread(storage, "f")
    with pytest.raises(TransferRefused, match="import works into SQLite"):
        import_thread(storage, export_of(threads, "f"))


def test_loads_export_refuses_text_that_is_not_json():
    with pytest.raises(TransferRefused, match="not JSON"):
        loads_export("{nope")
