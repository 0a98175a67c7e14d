"""The MCP server's caps, on plain data: a value over its cap is cut with its size said, an
answer is made to fit the answer cap keeping its shape, pages stop at their budget, and a cursor
is refused by any tool but the one that gave it."""

from __future__ import annotations

import json

import pytest

from playground.mcp.answers import Answer, tool_result
from playground.mcp.bounds import (
    ANSWER_CAP,
    VALUE_CAP,
    cursor_for,
    cut,
    fit,
    json_size,
    jsonable,
    position_of,
    take,
)
from tests.playground.mcp.client import wire_bytes


def test_a_value_over_its_cap_is_cut_with_its_size_and_a_preview():
    text = "x" * (VALUE_CAP + 1)
    data = {"items": list(range(5_000))}

    assert cut("short") == "short"
    assert cut(text) == {"cut": True, "bytes": json_size(text), "preview": "x" * 400 + "…"}
    shown = cut(data)
    assert shown["cut"] and shown["bytes"] == json_size(data)
    assert shown["preview"].startswith('{"items":[0,1,2')


def test_fit_shrinks_the_largest_part_first_and_keeps_the_rest_whole():
    answer = {"thread_id": "t1", "status": "failed", "values": {"small": 1, "big": "y" * 50_000},
              "checkpoints": [{"ordinal": n, "note": "z" * 300} for n in range(200)]}

    fitted = fit(answer, 20_000)

    assert json_size(fitted) <= 20_000
    assert (fitted["thread_id"], fitted["status"]) == ("t1", "failed")
    assert fitted["values"]["small"] == 1 and fitted["values"]["big"]["cut"] is True
    kept, marker = fitted["checkpoints"][:-1], fitted["checkpoints"][-1]
    assert kept == answer["checkpoints"][:len(kept)]
    assert marker["cut"] and marker["items"] == 200 - len(kept)


def test_take_stops_at_its_limit_or_its_budget_and_never_gives_an_empty_page():
    items = [{"n": n, "text": "a" * 100} for n in range(50)]

    by_limit, more = take(items, 10, 100_000)
    by_budget, more_too = take(items, 50, 1_000)
    (alone,), _ = take([{"text": "b" * 5_000}], 10, 1_000)

    assert (len(by_limit), more) == (10, True)
    assert more_too and 0 < len(by_budget) < 10 and json_size(by_budget) <= 1_000
    assert json_size(alone) <= 1_000


def test_a_cursor_goes_on_where_it_says_and_only_for_the_tool_that_gave_it():
    cursor = cursor_for("get_thread", 40)

    assert position_of(cursor, "get_thread") == 40
    assert position_of(None, "get_thread") == 0
    with pytest.raises(ValueError, match="not a cursor of get_timeline"):
        position_of(cursor, "get_timeline")
    with pytest.raises(ValueError, match="not a cursor of get_thread"):
        position_of("get_thread:-1", "get_thread")


def test_a_tool_result_stays_under_the_cap_even_when_its_text_copy_escapes_every_character():
    # quotes and control characters grow twice when the JSON text copy is escaped again
    nasty = '"\\\x01' * 20_000
    answer = Answer("a summary", {"values": [nasty[i:i + 4_000] for i in range(0, 80_000, 4_000)]})

    result = tool_result(answer)

    assert wire_bytes(result) <= ANSWER_CAP
    assert json.loads(result.content[1].text) == result.structured_content
    assert result.content[0].text == "a summary"


def test_values_json_cannot_say_become_text():
    assert jsonable({"inf": float("inf"), "bytes": b"\x00\x01", "nested": ({"t": (1, 2)},)}) == {
        "inf": "inf", "bytes": {"__type__": "bytes", "length": 2}, "nested": [{"t": [1, 2]}]}
    assert jsonable("\ud800 lone") == "? lone"
