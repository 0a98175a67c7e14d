"""The guided tours, checked from a room's records: what a step needs, in order, and the records
themselves in SQLite and in Postgres (one read for every room)."""

from __future__ import annotations

import pytest

from playground.lessons import tour
from playground.lessons.room_records import RoomRecords, records_beside
from tests.postgres import SKIP_REASON, database_url, throwaway_database


def _states(records: RoomRecords, room: str, steps=tour.TICKET_TOUR) -> list[str]:
    return [item.state for item in tour.progress(steps, records.room(room))]


def test_a_new_room_has_its_first_step_next_and_the_rest_ahead(tmp_path):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))

    assert _states(records, "quiet-room") == ["current"] + ["ahead"] * 7


def test_a_restart_counts_only_after_a_pause_and_a_resume_only_after_a_restart(tmp_path):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    records.record("r1", tour.RESTARTED, at=100.0)  # restarted before any turn paused
    records.record("r1", tour.RESUMED, at=101.0)  # and resumed something: not the tour's resume
    records.record("r1", tour.PAUSED, at=102.0)

    assert _states(records, "r1")[:3] == ["done", "current", "ahead"]

    records.record("r1", tour.RESTARTED, at=103.0)
    records.record("r1", tour.RESUMED, at=104.0)
    assert _states(records, "r1")[:3] == ["done", "done", "done"]


def test_steps_done_out_of_order_show_done_and_the_first_left_is_next(tmp_path):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    for kind in (tour.PAUSED, tour.FORKED, tour.COMPARED):
        records.record("r2", kind)

    assert _states(records, "r2") == ["done", "current", "ahead", "ahead", "ahead", "done",
                                      "done", "ahead"]
    assert tour.reached(tour.TICKET_TOUR, records.room("r2")) == 3


def test_the_own_graph_tour_counts_a_replay_or_a_fork_as_forking(tmp_path):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    records.record("r3", tour.RAN)
    records.record("r3", tour.REPLAYED)

    assert _states(records, "r3", tour.OWN_GRAPH_TOUR) == ["done", "current", "done", "ahead"]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_every_rooms_activity_is_read_at_once_newest_first(tmp_path, kind):
    if kind == "postgres" and not database_url():
        pytest.skip(SKIP_REASON)

    def check(records: RoomRecords) -> None:
        records.record("old-room", tour.PAUSED, "turn 1", at=10.0)
        records.record("busy-room", tour.PAUSED, "turn 1", at=20.0)
        records.record("busy-room", tour.MET_412, "412: t7 is at v3", at=30.0)
        records.record("busy-room", tour.MET_412, "412: t7 is at v4", at=40.0)

        found = records.rooms(since=15.0)

        assert [a.room for a in found] == ["busy-room"]  # old-room did nothing since
        busy = found[0]
        assert busy.last_kind == tour.MET_412 and busy.last_detail == "412: t7 is at v4"
        assert busy.counts == {tour.PAUSED: 1, tour.MET_412: 2}
        assert busy.first[tour.MET_412] == 30.0
        assert busy.sequence == (tour.PAUSED, tour.MET_412, tour.MET_412)
        assert [a.room for a in records.rooms()] == ["busy-room", "old-room"]

    if kind == "sqlite":
        check(records_beside(str(tmp_path / "checkpoints.sqlite")))
    else:
        with throwaway_database() as url:
            check(records_beside(url))


def test_the_step_the_facilitator_marks_is_read_back_and_is_never_a_room(tmp_path):
    records = records_beside(str(tmp_path / "checkpoints.sqlite"))
    assert records.focus() is None

    records.set_focus(4)
    records.record("r1", tour.PAUSED)

    assert records.focus() == 4
    assert [activity.room for activity in records.rooms()] == ["r1"]
    records.set_focus(None)
    assert records.focus() is None
