"""The facilitator's board from the rooms' records: each room's step, who is stuck and why,
and how many rooms have done each step."""

from __future__ import annotations

from playground.lessons import tour
from playground.lessons.board import PAUSED_LONG_S, board, stuck
from playground.lessons.room_records import records_beside

NOW = 100_000.0


def _activity(tmp_path, *kinds: tuple[str, float], room: str = "r1", detail: str = ""):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    for kind, at in kinds:
        records.record(room, kind, detail, at=at)
    return records.room(room)


def test_a_room_whose_last_run_failed_in_a_node_is_stuck_with_the_error(tmp_path):
    room = _activity(tmp_path, (tour.RAN, 1.0), (tour.FAILED, 2.0),
                     detail="shout failed: ValueError: boom")

    assert stuck(room, NOW) == "a node failed: shout failed: ValueError: boom"
    [row], _ = board([room], tour.OWN_GRAPH_TOUR, NOW)
    assert row.stuck_reason == "a node failed"  # the table's cell; the error is said above it


def test_a_turn_left_paused_a_while_is_stuck_and_a_fresh_one_is_not(tmp_path):
    fresh = _activity(tmp_path, (tour.PAUSED, NOW - 30), room="fresh")
    old = _activity(tmp_path, (tour.PAUSED, NOW - PAUSED_LONG_S - 60), room="old")

    assert stuck(fresh, NOW) == ""
    assert stuck(old, NOW) == "paused for 11 min"


def test_repeated_412s_are_stuck_until_a_resume_writes(tmp_path):
    kinds = [(tour.PAUSED, 1.0)] + [(tour.MET_412, 2.0 + n) for n in range(3)]
    assert stuck(_activity(tmp_path, *kinds, room="a"), NOW) == \
        "3 writes met 412 without a resume"
    recovered = _activity(tmp_path, *kinds, (tour.RESUMED, 9.0), (tour.MET_412, 10.0),
                          room="b")
    assert stuck(recovered, NOW) == ""


def test_the_board_counts_each_step_across_rooms_and_names_each_rooms_next(tmp_path):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    for room, kinds in {"ahead": (tour.PAUSED, tour.RESTARTED, tour.RESUMED, tour.MET_412),
                        "middle": (tour.PAUSED, tour.RESTARTED),
                        "start": (tour.PAUSED,)}.items():
        for at, kind in enumerate(kinds):
            records.record(room, kind, at=float(at))

    rows, counts = board(records.rooms(), tour.TICKET_TOUR, NOW)

    assert counts == [3, 2, 1, 1, 0, 0, 0, 0]
    by_room = {row.room: row for row in rows}
    assert (by_room["ahead"].done, by_room["ahead"].next_step) == (4, "Time travel")
    assert (by_room["start"].done, by_room["start"].next_step) == (1, "Restart")
    assert by_room["ahead"].last == "a write met 412"  # said in words when it has no line
