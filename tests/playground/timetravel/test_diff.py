"""Tests of diff_states: what changed between two states, by path."""

from __future__ import annotations

import pytest

from playground.timetravel.diff import StateDiff, diff_states

CASES = [
    pytest.param(
        {"ticket_id": "t7"},
        {"ticket_id": "t7", "etag": '"v2"'},
        StateDiff(added={"etag": '"v2"'}),
        ['+ etag = "v2"'],
        id="added",
    ),
    pytest.param(
        {"ticket_id": "t7", "version": "v1"},
        {"ticket_id": "t7"},
        StateDiff(removed={"version": "v1"}),
        ["- version"],
        id="removed",
    ),
    pytest.param(
        {"priority": "normal"},
        {"priority": "high"},
        StateDiff(changed={"priority": ("normal", "high")}),
        ['~ priority: "normal" -> "high"'],
        id="changed",
    ),
    pytest.param(
        {"changes": {"priority": "normal", "tags": ["a"]}},
        {"changes": {"priority": "high", "tags": ["a"], "owner": "ann"}},
        StateDiff(added={"changes.owner": "ann"}, changed={"changes.priority": ("normal", "high")}),
        ['+ changes.owner = "ann"', '~ changes.priority: "normal" -> "high"'],
        id="nested-dict",
    ),
    pytest.param(
        {"log": ["bump 0", "bump 1", "bump 2"]},
        {"log": ["bump 0", "bump 1", "done"]},
        StateDiff(changed={"log[2]": ("bump 2", "done")}),
        ['~ log[2]: "bump 2" -> "done"'],
        id="list-same-length-element",
    ),
    pytest.param(
        {"log": ["bump 0"]},
        {"log": ["bump 0", "bump 1"]},
        StateDiff(changed={"log": (["bump 0"], ["bump 0", "bump 1"])}),
        ['~ log: ["bump 0"] -> ["bump 0", "bump 1"]'],
        id="list-growth-is-whole",
    ),
    pytest.param(
        {"runs": [{"ok": True}, {"ok": True}]},
        {"runs": [{"ok": True}, {"ok": False}]},
        StateDiff(changed={"runs[1].ok": (True, False)}),
        ["~ runs[1].ok: true -> false"],
        id="dict-inside-list",
    ),
    pytest.param(
        {"etag": None},
        {},
        StateDiff(removed={"etag": None}),
        ["- etag"],
        id="none-then-missing-is-removed",
    ),
    pytest.param(
        {},
        {"etag": None},
        StateDiff(added={"etag": None}),
        ["+ etag = null"],
        id="missing-then-none-is-added",
    ),
    pytest.param(
        {"etag": None},
        {"etag": '"v1"'},
        StateDiff(changed={"etag": (None, '"v1"')}),
        ['~ etag: null -> "v1"'],
        id="none-then-value-is-changed",
    ),
    pytest.param(
        {"count": 1},
        {"count": True},
        StateDiff(changed={"count": (1, True)}),
        ["~ count: 1 -> true"],
        id="equal-but-other-type-is-changed",
    ),
    pytest.param(
        {"a": 1, "b": {"c": [1, 2]}},
        {"b": {"c": [1, 2]}, "a": 1},
        StateDiff(),
        [],
        id="identical-in-any-key-order",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected", "lines"), CASES)
def test_diff_states_reports_paths_and_lines(old, new, expected, lines) -> None:
    diff = diff_states(old, new)

    assert diff == expected
    assert diff.lines() == lines
    assert diff.is_empty is (not lines)


def test_lines_are_in_natural_path_order() -> None:
    old = {"log": [f"x{i}" for i in range(11)], "b": 1, "a": 1}
    new = {"log": [f"y{i}" for i in range(11)], "b": 2}

    lines = diff_states(old, new).lines()

    assert lines[0] == "- a"
    assert lines[1] == "~ b: 1 -> 2"
    assert lines[2:5] == [
        '~ log[0]: "x0" -> "y0"',
        '~ log[1]: "x1" -> "y1"',
        '~ log[2]: "x2" -> "y2"',
    ]
    assert lines[-1] == '~ log[10]: "x10" -> "y10"'


def test_long_values_are_shortened_in_lines_only() -> None:
    diff = diff_states({}, {"note": "x" * 500})

    (line,) = diff.lines(limit=20)

    assert line == '+ note = "xxxxxxxxxxxxxxxx...'
    assert diff.added["note"] == "x" * 500


def test_strings_are_compared_whole_not_per_character() -> None:
    diff = diff_states({"note": "abc"}, {"note": "abd"})

    assert diff.changed == {"note": ("abc", "abd")}
