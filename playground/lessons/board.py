"""The facilitator's board: every active room's place in the tour, its last action, whether it
is stuck, and how many rooms have done each step, from the rooms' records read at once.

Stuck means a room that needs a hand, read from its records: its last run failed in a node, it
has sat on a paused turn for a while, or its writes met 412 again and again without a resume.
"""

from __future__ import annotations

from dataclasses import dataclass

from playground.lessons import tour
from playground.lessons.room_records import RoomActivity

PAUSED_LONG_S = 600  # a turn left paused this long, with nothing done since, is stuck
REPEATED_412 = 3  # this many 412s since the last resume is stuck
REFRESH_S = 5  # the board's page reads every room again this often


@dataclass(frozen=True)
class BoardRow:
    """One room on the board.

    Attributes:
        room: its code.
        done: how many steps of the tour it has done.
        next_step: the title of the first step it has not done, or "" when all are.
        last: its last action, in words.
        last_at: when (seconds since the epoch).
        stuck: why it needs a hand, or "".
        name: the name its attendee gave, or "".
    """

    room: str
    done: int
    next_step: str
    last: str
    last_at: float
    stuck: str = ""
    name: str = ""

    @property
    def stuck_reason(self) -> str:
        """Why it is stuck without the detail after the reason (a failed node's error text,
        which the board says whole above its table)."""
        return self.stuck.partition(": ")[0]


def stuck(room: RoomActivity, now: float) -> str:
    """Why ``room`` needs a hand, or "" when it does not."""
    if room.last_kind == tour.FAILED:
        return f"a node failed: {room.last_detail}" if room.last_detail else "a node failed"
    if room.last_kind == tour.PAUSED and now - room.last_at >= PAUSED_LONG_S:
        return f"paused for {int((now - room.last_at) // 60)} min"
    since_resume = list(room.sequence)
    if tour.RESUMED in since_resume:
        since_resume = since_resume[len(since_resume) - since_resume[::-1].index(tour.RESUMED):]
    if since_resume.count(tour.MET_412) >= REPEATED_412:
        return f"{since_resume.count(tour.MET_412)} writes met 412 without a resume"
    return ""


def board(rooms: list[RoomActivity], steps: tuple[tour.TourStep, ...], now: float
          ) -> tuple[list[BoardRow], list[int]]:
    """The board's rows (newest action first, as ``rooms`` come) and, for each step of
    ``steps``, how many rooms have done it."""
    rows, counts = [], [0] * len(steps)
    for room in rooms:
        progress = tour.progress(steps, room)
        for index, item in enumerate(progress):
            counts[index] += item.state == "done"
        following = next((item.step.title for item in progress if item.state == "current"), "")
        rows.append(BoardRow(room.room, sum(item.state == "done" for item in progress),
                             following, tour.said(room.last_kind, room.last_detail),
                             room.last_at, stuck(room, now), room.name))
    return rows, counts
