"""msgpack read by its framing only: every type's end found as ormsgpack writes it, a map cut
into its values and laid back byte for byte, extension payloads skipped by their length."""

from __future__ import annotations

import struct

import ormsgpack
import pytest

from playground.timetravel.msgpack_frames import (
    NotMsgpack,
    bin_of,
    ext_code,
    is_bin,
    is_scalar,
    map_items,
    packed_map,
    value_end,
)
from tests.playground import hostile_db

SAMPLES = [None, True, False, 0, 127, -1, -33, 255, 65_536, 2**40, -(2**40), 2**64 - 1, 1.5,
           "", "a" * 31, "b" * 32, "c" * 300, "d" * 70_000, b"", b"x" * 300, b"y" * 70_000,
           [], [1, [2, [3]]], list(range(20)), list(range(70_000)), {}, {"k": {"n": [1]}},
           {f"k{i}": i for i in range(20)}, ormsgpack.Ext(7, b"1"), ormsgpack.Ext(5, b"12"),
           ormsgpack.Ext(1, b"1234"), ormsgpack.Ext(2, b"x" * 8), ormsgpack.Ext(3, b"x" * 16),
           ormsgpack.Ext(4, b"x" * 3), ormsgpack.Ext(6, b"x" * 300),
           ormsgpack.Ext(0, b"x" * 70_000)]


@pytest.mark.parametrize("value", SAMPLES, ids=lambda v: type(v).__name__)
def test_value_end_is_where_ormsgpack_ends_every_type(value):
    encoded = ormsgpack.packb(value)

    assert value_end(encoded + b"\xc0trailing") == len(encoded)


def test_a_map_cut_into_its_values_is_laid_back_byte_for_byte():
    checkpoint = {"v": 4, "ts": "2026-12-01T00:00:00+00:00", "id": "1",
                  "channel_values": {"messages": [ormsgpack.Ext(5, b"m" * 40)], "n": 3,
                                     "snap": ormsgpack.Ext(7, ormsgpack.packb([1]))},
                  "channel_versions": {"n": "1"}}
    blob = ormsgpack.packb(checkpoint)

    parts = [(key, blob[start:end]) for key, start, end in map_items(blob)]
    values = dict(parts)["channel_values"]
    inner = [(key, values[start:end]) for key, start, end in map_items(values)]

    assert packed_map(parts) == blob and packed_map(inner) == values
    assert [key for key, _ in inner] == ["messages", "n", "snap"]
    kinds = {key: (is_scalar(raw), is_bin(raw), ext_code(raw)) for key, raw in inner}
    assert kinds == {"messages": (False, False, None), "n": (True, False, None),
                     "snap": (False, False, 7)}
    assert is_bin(bin_of(b"raw")) and ormsgpack.unpackb(bin_of(b"raw")) == b"raw"


def test_extension_values_naming_commands_are_skipped_by_their_length(tmp_path):
    values = hostile_db.ext_values(tmp_path)
    blob = ormsgpack.packb(values)

    found = {key: blob[start:end] for key, start, end in map_items(blob)}

    assert found == {key: ormsgpack.packb(value) for key, value in values.items()}
    assert hostile_db.canaries(tmp_path) == []


@pytest.mark.parametrize("data", [b"", b"\xc1", b"\x92\x01", b"\xda\x00\x09short",
                                  b"\xdd" + struct.pack(">I", 2**32 - 1) + b"\xc0" * 8,
                                  b"\x91" * 100_000])
def test_bytes_that_do_not_frame_as_msgpack_are_refused(data):
    with pytest.raises(NotMsgpack):
        value_end(data)


def test_a_map_whose_keys_are_not_strings_is_refused():
    with pytest.raises(NotMsgpack, match="not a string"):
        map_items(ormsgpack.packb({1: "a"}, option=ormsgpack.OPT_NON_STR_KEYS))
    with pytest.raises(NotMsgpack, match="does not start a map"):
        map_items(ormsgpack.packb([1]))
