"""Tests of the one parser for JSON typed into a form: an object of keys, or one field's value."""

from __future__ import annotations

import pytest

from playground.apps.json_text import JsonRefused, parse_json
from playground.apps.state_fields import EditRefused

# --- an object of keys and values (an edit, a store item) ------------------------------------


def test_json_object_is_parsed() -> None:
    assert parse_json('{"priority": "high", "changes": {"tags": ["a"]}}') == {
        "priority": "high",
        "changes": {"tags": ["a"]},
    }


def test_bad_json_is_refused_with_position() -> None:
    with pytest.raises(JsonRefused) as refused:
        parse_json('{\n  "priority": "high"\n  "note": "x"\n}')

    message = str(refused.value)
    assert message.startswith("not valid JSON at line 3, column 3: Expecting ',' delimiter")
    assert '{"priority": "high"}' in message


def test_empty_text_is_refused_as_bad_json() -> None:
    with pytest.raises(JsonRefused, match="line 1, column 1: Expecting value"):
        parse_json("")


@pytest.mark.parametrize(
    ("text", "position", "kind"),
    [
        ('\n  ["high"]', "line 2, column 3", "an array"),
        ('"high"', "line 1, column 1", "a string"),
        ("  3", "line 1, column 3", "a number"),
        ("null", "line 1, column 1", "null"),
    ],
)
def test_json_that_is_not_an_object_is_refused_with_position(text, position, kind) -> None:
    with pytest.raises(JsonRefused) as refused:
        parse_json(text)

    assert str(refused.value).startswith(f"expected a JSON object at {position}, got {kind}:")


def test_json_naming_a_key_twice_is_refused() -> None:
    with pytest.raises(JsonRefused, match="key 'priority' appears twice"):
        parse_json('{"priority": "low", "priority": "high"}')


def test_an_object_refusal_is_raised_as_the_callers_own_refusal() -> None:
    with pytest.raises(EditRefused, match="key 'priority' appears twice"):
        parse_json('{"priority": "low", "priority": "high"}', refuse=EditRefused)


# --- one field's value -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("3", 3), ("true", True), ('["a"]', ["a"]), ('"high"', "high"), ("null", None),
     ('{"a": 1}', {"a": 1})],
)
def test_a_field_takes_any_json_value(text, value) -> None:
    assert parse_json(text, "priority") == value


def test_a_field_that_is_not_json_is_refused_naming_the_field() -> None:
    with pytest.raises(JsonRefused) as refused:
        parse_json("urgent", "priority")

    assert str(refused.value) == (
        'priority: not valid JSON (Expecting value at column 1); text needs quotes, like "hello"'
    )


def test_a_field_refusal_ends_with_the_callers_quotes_hint() -> None:
    with pytest.raises(EditRefused) as refused:
        parse_json("urgent", "priority", needs_quotes='strings need quotes, like "high"',
                   refuse=EditRefused)

    assert str(refused.value).endswith('; strings need quotes, like "high"')
