"""The timeline chart's rows and spec: every kind drawn apart and in the legend, long waits
folded server-side, a brushed range shown alone."""

from __future__ import annotations

from playground.timetravel.timeline import EDIT, IDLE, RUN, WAIT, Step, Timeline
from playground.ui.components.timeline_chart import (
    FONT_PX,
    MAYBE,
    WHAT,
    _bars,
    _notes,
    _spec,
    fold_long_waits,
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
    spec = _spec(3)
    bars, instants = spec["layer"][:2]
    assert set(bars["encoding"]["color"]["scale"]["domain"]) == set(WHAT.values()) | {MAYBE}
    assert instants["mark"]["type"] == "tick"  # an instant is a moment, not a bar
    assert "note" in [field["field"] for field in bars["encoding"]["tooltip"]]
    names = {param["name"]: param for param in bars["params"]}
    assert names["pick"]["select"]["type"] == "point"
    assert names["zoom"]["select"]["type"] == "interval"  # a brush across the time axis
    assert names["zoom"]["select"]["encodings"] == ["x"]
    zoomed = _spec(3, span=(1.0, 2.5))["layer"][0]["encoding"]["x"]["scale"]["domain"]
    assert zoomed == [1.0, 2.5]
    fonts = spec["config"]
    assert min(fonts["axis"].values()) >= 12 and fonts["legend"]["labelFontSize"] >= 12
    assert FONT_PX >= 12


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
    assert "(long waits folded)" in _spec(3, labels, True)["layer"][0]["encoding"]["x"]["title"]
    assert len(_spec(3, labels, True)["layer"]) == 4  # a rule and a label per fold


def test_short_waits_are_not_folded():
    rows = [{"from": 0.0, "to": 1.0, "kind": RUN, "what": WHAT[RUN]},
            {"from": 1.0, "to": 1.5, "kind": WAIT, "what": WHAT[WAIT]}]
    assert fold_long_waits(rows, 1.0) == (rows, [])


def test_the_caption_counts_steps_that_may_include_a_pause_and_no_longer_hides_pauses():
    said = " · ".join(_notes(FOUND, 0, []))
    assert "1 step may include a pause" in said
    assert "counts as its step's time" not in said

