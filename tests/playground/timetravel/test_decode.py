"""The safe decoder: every stored value becomes plain data, and nothing a value names ever runs."""

from __future__ import annotations

import json
import time

import ormsgpack
import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from playground.timetravel.decode import (
    MAX_EXT_DEPTH,
    TS_HEAD_BYTES,
    checkpoint_time,
    decode_checkpoint,
    decode_typed,
    is_unread,
    to_jsonable,
    ts_at_head,
)
from tests.playground import hostile_db


def _msgpack(value) -> bytes:
    return ormsgpack.packb(value)


@pytest.mark.parametrize("code", hostile_db.RUNNING_CODES)
def test_langgraph_default_serializer_runs_the_command_a_value_names(tmp_path, code):
    # The fixture is live: the permissive default really executes these values. If LangGraph
    # ever stops doing so, this test says the other tests here no longer prove anything.
    value = hostile_db.ext_values(tmp_path)[f"ext{code}"]

    JsonPlusSerializer().loads_typed(("msgpack", _msgpack(value)))

    assert hostile_db.canary(tmp_path, f"ext{code}").exists()


def test_safe_decoder_keeps_each_extension_as_typed_data_and_runs_nothing(tmp_path):
    values = hostile_db.ext_values(tmp_path)

    decoded = {name: decode_typed("msgpack", _msgpack(value)) for name, value in values.items()}

    assert hostile_db.canaries(tmp_path) == []
    command = f"touch {hostile_db.canary(tmp_path, 'ext0')}"
    assert decoded["ext0"] == {"__type__": "os.system", "value": command}
    assert decoded["ext1"]["__type__"] == "os.system"
    assert decoded["ext1"]["args"] == [f"touch {hostile_db.canary(tmp_path, 'ext1')}"]
    assert decoded["ext2"] == {"__type__": "subprocess.run", "shell": True,
                               "args": f"touch {hostile_db.canary(tmp_path, 'ext2')}"}
    assert decoded["ext3"]["__type__"] == "os.system"
    assert decoded["ext4"]["__type__"] == decoded["ext5"]["__type__"] == "subprocess.run"
    assert decoded["ext6"] == {"__type__": "numpy.ndarray", "dtype": "<f8", "shape": [2],
                               "bytes": 16}
    assert decoded["ext7"]["__type__"].endswith("_DeltaSnapshot")
    assert decoded["ext7"]["value"]["__type__"] == "os.system"
    assert decoded["order"] == {"__type__": "myapp.models.Order", "id": "o1", "total": 9.5}
    assert decoded["messages"][0]["content"] == "Where is my order A17?"


def test_json_lc_constructor_is_shown_as_data(tmp_path):
    blob = json.dumps(hostile_db.lc_envelope(tmp_path)).encode()

    decoded = decode_typed("json", blob)

    assert decoded["__type__"] == "os.system"
    assert decoded["args"] == [f"touch {hostile_db.canary(tmp_path, 'json-lc')}"]
    assert hostile_db.canaries(tmp_path) == []


def test_pickle_is_named_with_its_size_and_never_opened(tmp_path):
    blob = hostile_db.pickle_blob(tmp_path)

    decoded = decode_typed("pickle", blob)

    assert decoded["__unread__"] == f"pickle, {len(blob)} bytes, not opened"
    assert hostile_db.canaries(tmp_path) == []


def test_safe_builtin_values_read_as_plain_data():
    serde = JsonPlusSerializer(allowed_msgpack_modules=None)
    import datetime
    import uuid

    stored = {"when": datetime.datetime(2026, 12, 1, 9, 30), "seen": {"a"},
              "id": uuid.UUID("12345678123456781234567812345678")}

    decoded = decode_typed(*serde.dumps_typed(stored))

    assert decoded["when"] == {"__type__": "datetime.datetime", "value": "2026-12-01T09:30:00"}
    assert decoded["seen"] == {"__type__": "builtins.set", "value": ["a"]}
    assert decoded["id"]["value"] == "12345678-1234-5678-1234-567812345678"


@pytest.mark.parametrize(
    ("blob", "words"),
    [
        (hostile_db.deep_blob(), "too deep to show"),
        (hostile_db.huge_array_blob(), "too large to show"),
        (b"\xc1\xc1 not msgpack", "could not be decoded"),
    ],
)
def test_crafted_blob_is_one_line_quickly(blob, words):
    started = time.perf_counter()

    decoded = decode_typed("msgpack", blob)

    assert is_unread(decoded) and words in decoded["__unread__"]
    assert time.perf_counter() - started < 5  # a bound on a hang, not a benchmark


def test_extensions_nested_past_the_limit_stop_at_a_marker():
    value = None
    for _ in range(MAX_EXT_DEPTH + 5):
        value = ormsgpack.Ext(1, ormsgpack.packb(("m", "f", [value])))

    decoded = decode_typed("msgpack", ormsgpack.packb(value))

    depth = 0
    while isinstance(decoded, dict) and "args" in decoded:
        decoded, depth = decoded["args"][0], depth + 1
    assert depth == MAX_EXT_DEPTH
    assert "too deep to show" in decoded["__unread__"]


def test_unknown_storage_type_and_unknown_extension_are_markers():
    assert "does not read" in decode_typed("yaml", b"a: 1")["__unread__"]
    unknown = ormsgpack.packb(ormsgpack.Ext(42, b"\x00"))
    assert "unknown msgpack extension 42" in decode_typed("msgpack", unknown)["__unread__"]
    assert decode_typed("null", b"") is None


def test_checkpoint_that_is_not_a_mapping_gives_its_reason():
    checkpoint, problem = decode_checkpoint("msgpack", _msgpack([1, 2]))

    assert checkpoint == {} and "not a mapping" in problem


def test_to_jsonable_turns_bytes_and_tuples_into_json():
    shown = to_jsonable({"raw": b"\x00\x01", "pair": (1, 2), 3: "x"}, bytes_preview=2)

    assert json.loads(json.dumps(shown)) == {
        "raw": {"__type__": "bytes", "length": 2, "hex": "0001"}, "pair": [1, 2], "3": "x"}


def test_the_time_cut_from_a_blobs_head_is_the_time_its_full_decode_reads():
    from langgraph.checkpoint.base import create_checkpoint, empty_checkpoint

    checkpoint = create_checkpoint(empty_checkpoint(), None, 1)  # as a run saves each one
    type_, blob = JsonPlusSerializer().dumps_typed(checkpoint)
    assert ts_at_head(blob[:TS_HEAD_BYTES]) == checkpoint["ts"]
    assert checkpoint_time(type_, blob) == decode_checkpoint(type_, blob)[0]["ts"]


@pytest.mark.parametrize("head", [
    json.dumps({"v": 4, "ts": "2026-12-02T10:00:00.000000+00:00"}).encode(),  # JSON (LangGraph.js)
    _msgpack({"ts": "2026-12-02T10:00:00.000000+00:00", "v": 4}),  # keys in another order
    _msgpack({"v": 4, "ts": "2026-12-02"}),  # a time of another length
    b"",
    None,
])
def test_a_head_not_laid_out_as_langgraph_writes_it_gives_no_time_at_its_place(head):
    assert ts_at_head(head if head is None else head[:TS_HEAD_BYTES]) is None
