"""The timeline chart's rows and the data its drawing is given: every kind drawn apart and in
the legend, long waits folded server-side, a brushed range shown alone."""

from __future__ import annotations

from playground.timetravel.timeline import EDIT, IDLE, RUN, WAIT, Step, Timeline
from playground.ui.components.timeline_chart import (
    MAYBE,
    WHAT,
    _bars,
    _notes,
    chart_data,
    fold_long_waits,
    node_table,
)


def _step(cid: str, node: str, kind: str, start: float, end: float, **more) -> Step:
    return Step(cid, "p", 1, 1, node, kind, start, end, **more)


# A run of 1 s, paused 120 s before write, which runs 0.5 s; then a fork a day later.
STEPS = (
    _step("a", "read", RUN, 0.0, 1.0),
    _step("b", "write", WAIT, 1.0, 121.0, note="paused before write"),
    _step("b", "write", RUN, 121.0, 121.5),
    _step("c", "fork", IDLE, 121.5, 3721.5),
    _step("c", "fork", EDIT, 3721.5, 3721.5),
    _step("d", "read", RUN, 3721.5, 3722.0, maybe_paused=True,
          note="may include a pause: it began a new run whose start is not recorded"),
)
FOUND = Timeline("t", ("root", "a", "b", "c", "d"), None, STEPS)


def test_each_kind_is_drawn_apart_and_named_in_the_legend():
    rows, unknown = _bars(FOUND)
    assert unknown == 0
    assert [row["what"] for row in rows] == [WHAT[RUN], WHAT[WAIT], WHAT[RUN], WHAT[IDLE],
                                             WHAT[EDIT], MAYBE]
    data = chart_data(rows, selected="b")
    kinds = {name: (dashed, instant) for name, _, dashed, instant in data["kinds"]}
    assert set(kinds) == set(WHAT.values()) | {MAYBE}  # every kind in the legend
    assert kinds[WHAT[EDIT]] == (False, True)  # an instant is a moment, not a bar
    assert kinds[MAYBE][0] and kinds[WHAT[IDLE]][0] and not kinds[WHAT[RUN]][0]  # dashed
    assert data["lanes"] == ["read", "write", "fork"]  # in the order of their first step
    assert [row["dashed"] for row in data["rows"]] == [False, False, False, True, False, True]
    assert data["span"] is None and data["end"] == 3722.0 and data["selected"] == "b"
    assert chart_data(rows, span=(1.0, 2.5))["span"] == [1.0, 2.5]  # a range shown alone


def test_folding_long_waits_shifts_the_later_bars_and_says_how_long_each_was():
    rows, _ = _bars(FOUND)
    folded, labels = fold_long_waits(rows, FOUND.run_seconds)

    assert [label["label"] for label in labels] == ["⋯ 2 min wait folded",
                                                    "⋯ 1 h idle folded"]
    by_what = [(row["what"], row["to"] - row["from"]) for row in folded]
    running = FOUND.run_seconds
    assert all(width <= running for _, width in by_what)  # nothing longer than the running
    assert [row["seconds"] for row in folded] == [row["seconds"] for row in rows]  # real times
    ends = [row["to"] for row in folded]
    assert ends == sorted(ends) and ends[-1] < 2 * running  # later bars moved left, in order
    write = folded[2]
    assert write["to"] - write["from"] == rows[2]["to"] - rows[2]["from"]  # a run keeps width
    data = chart_data(folded, labels, True)
    assert "(long waits folded)" in data["axis"]
    assert data["folds"] == labels  # a rule and a label per fold


def test_short_waits_are_not_folded():
    rows = [{"from": 0.0, "to": 1.0, "kind": RUN, "what": WHAT[RUN]},
            {"from": 1.0, "to": 1.5, "kind": WAIT, "what": WHAT[WAIT]}]
    assert fold_long_waits(rows, 1.0) == (rows, [])


def test_the_caption_counts_steps_that_may_include_a_pause_and_no_longer_hides_pauses():
    said = " · ".join(_notes(FOUND, 0, []))
    assert "1 step may include a pause" in said
    assert "counts as its step's time" not in said



def test_the_table_per_node_lists_each_node_once_with_its_running_time_slowest_first():
    table = node_table(FOUND)

    assert table["columns"][:4] == ["node", "calls", "time (s)", "share of wall time"]
    assert len(table["numeric"]) == len(table["columns"])
    nodes = [row[0] for row in table["rows"]]
    assert nodes == ["read", "write"]  # the waits, the idle time and the fork ran nothing
    assert table["rows"][0][2] == "1.500" and table["rows"][1][2] == "0.500"
