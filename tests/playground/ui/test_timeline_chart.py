"""The timeline chart's rows and the data its drawing is given: every kind drawn apart and in
the legend, long waits folded server-side (and folded at first where they outweigh the running
time), a brushed range shown alone."""

from __future__ import annotations

from playground.timetravel.timeline import EDIT, IDLE, RUN, WAIT, Step, Timeline
from playground.ui.components.timeline_chart import (
    MAYBE,
    WHAT,
    _bars,
    _notes,
    chart_data,
    fold_long_waits,
    long_waits_start_folded,
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

    assert [label["label"] for label in labels] == ["2 min wait folded", "1 h idle folded"]
    by_what = [(row["what"], row["to"] - row["from"]) for row in folded]
    running = FOUND.run_seconds
    assert all(width <= running for _, width in by_what)  # nothing longer than the running
    assert [row["seconds"] for row in folded] == [row["seconds"] for row in rows]  # real times
    ends = [row["to"] for row in folded]
    assert ends == sorted(ends) and ends[-1] < 2 * running  # later bars moved left, in order
    write = folded[2]
    assert write["to"] - write["from"] == rows[2]["to"] - rows[2]["from"]  # a run keeps width
    data = chart_data(folded, labels, True)
    assert "(long waits folded)" in data["axis"] and data["folded"]
    assert data["folds"] == labels  # a break and a label per fold


def test_each_fold_says_where_its_break_is_drawn_and_how_much_time_it_cut():
    rows, _ = _bars(FOUND)
    folded, labels = fold_long_waits(rows, FOUND.run_seconds)

    wait, idle = labels
    assert wait["seconds"] == 120.0 and idle["seconds"] == 3600.0  # the real lengths
    for fold in labels:  # the gap drawn plus what was cut is the real length
        assert fold["from"] < fold["at"] < fold["to"]
        assert round(fold["to"] - fold["from"] + fold["cut"], 6) == fold["seconds"]
    # The bar after each fold starts where its break ends: the axis' ticks after a break add
    # the seconds cut before it back, and read real time.
    write = next(row for row in folded if row["what"] == WHAT[RUN] and row["lane"] == "write")
    assert write["from"] == wait["to"]
    assert round(write["from"] + wait["cut"], 6) == 121.0


def test_long_waits_start_folded_when_they_outweigh_the_running_time():
    rows, _ = _bars(FOUND)  # ran 2 s, waited 2 min, idle an hour

    assert long_waits_start_folded(FOUND, rows)


def test_the_chart_starts_at_real_scale_when_the_running_time_dominates():
    busy = Timeline("t", ("root", "a", "b"), None, (
        _step("a", "read", RUN, 0.0, 30.0),
        _step("b", "write", WAIT, 30.0, 50.0, note="paused before write"),
        _step("b", "write", RUN, 50.0, 60.0),
    ))
    rows, _ = _bars(busy)

    assert not long_waits_start_folded(busy, rows)


def test_many_short_waits_do_not_start_folded_when_none_is_long_enough_to_fold():
    steps = []
    for turn in range(5):  # five turns of 1 s, each after a 1.5 s wait: 7.5 s waited, 5 s ran
        at = turn * 2.5
        steps += [_step(f"w{turn}", "(next input)", WAIT, at, at + 1.5),
                  _step(f"r{turn}", "read", RUN, at + 1.5, at + 2.5)]
    chatty = Timeline("t", ("root", *(s.checkpoint_id for s in steps)), None, tuple(steps))
    rows, _ = _bars(chatty)

    assert chatty.wait_seconds > chatty.run_seconds
    assert not long_waits_start_folded(chatty, rows)  # no wait outlasts the running time


def test_short_waits_are_not_folded():
    rows = [{"from": 0.0, "to": 1.0, "kind": RUN, "what": WHAT[RUN]},
            {"from": 1.0, "to": 1.5, "kind": WAIT, "what": WHAT[WAIT]}]
    assert fold_long_waits(rows, 1.0) == (rows, [])


def test_the_caption_counts_steps_that_may_include_a_pause_and_no_longer_hides_pauses():
    said = " · ".join(_notes(FOUND, 0, []))
    assert "1 step may include a pause" in said
    assert "counts as its step's time" not in said


def test_the_caption_says_how_to_unfold_a_folded_wait():
    rows, _ = _bars(FOUND)
    _, labels = fold_long_waits(rows, FOUND.run_seconds)

    said = " · ".join(_notes(FOUND, 0, labels))
    assert "2 long waits folded (click a break on the chart, or Fold long waits" in said


def test_the_table_per_node_lists_each_node_once_with_its_running_time_slowest_first():
    table = node_table(FOUND)

    assert table["columns"][:4] == ["node", "calls", "time (s)", "share of wall time"]
    assert len(table["numeric"]) == len(table["columns"])
    nodes = [row[0] for row in table["rows"]]
    assert nodes == ["read", "write"]  # the waits, the idle time and the fork ran nothing
    assert table["rows"][0][2] == "1.500" and table["rows"][1][2] == "0.500"


def test_a_chats_short_waits_are_not_folded_even_where_they_outlast_its_running():
    # a chat whose steps run 10 ms each, 40 ms apart: waits longer than the running, and no
    # wait a person would call one
    rows = [{"from": 0.0, "to": 0.01, "kind": RUN, "what": WHAT[RUN]},
            {"from": 0.01, "to": 0.05, "kind": WAIT, "what": WHAT[WAIT]},
            {"from": 0.05, "to": 0.06, "kind": RUN, "what": WHAT[RUN]}]

    assert fold_long_waits(rows, 0.02) == (rows, [])


def test_a_branchs_own_part_leaves_out_what_came_before_and_the_gap_it_was_made_after():
    own = FOUND.own_after("b")  # c, d: the fork made an hour later, and what ran after it

    assert [step.checkpoint_id for step in own.steps] == ["c", "d"]
    assert own.idle_seconds == 0  # the hour before the fork belongs to no run
    assert own.run_seconds == 0.5
    assert FOUND.own_after(None) is FOUND and FOUND.own_after("elsewhere") is FOUND
