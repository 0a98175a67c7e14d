"""What each room has done, as the playground saw it happen: the records a tour step is checked
against, and what the facilitator's board shows.

A record is written when a page sees an outcome in the room's own state (a turn paused before
``write``, a resume's write answered 412, a replay's new branch, a fork's checkpoint), never
when a person says a step is done. Records live in the playground's own database, beside its
checkpoints: a table of its own in the shared Postgres database, so every replica's rooms are
in one place, or a SQLite file beside the checkpoint file. The playground writes them and reads
them; it never adds a table to a database it did not make (an Inspect target is never one).

Reading every room at once (:meth:`RoomRecords.rooms`) is one query, whatever the number of
rooms.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from playground.places.base import OwnTables, OwnTablesError
from playground.places.door import open_place

ROOMS = "rooms"  # the name of the playground's own tables they live in
TABLE = "playground_room_records"
# The facilitator's own records (the step the room is on) go under a name no room code can
# take (codes are letters, digits and dashes), and are never listed as a room. The name carries
# the fingerprint of the room's access token: a mark belongs to the token, so it outlives a
# restart and is shared by replicas, and a new token (`--new-token`) starts without one.
FACILITATOR = "*facilitator"
FOCUS = "focus"
NAME = "name"  # the name a room's attendee gave the board: said on it, never an action


class RoomRecordsError(OSError):
    """The records could not be read or written (the database is down, locked or full)."""

DETAIL_MAX = 300  # a record's detail is a line for a person, never a payload


@dataclass(frozen=True)
class RoomActivity:
    """One room's records, read at once.

    Attributes:
        room: the room code.
        name: the name its attendee gave (the newest; "" when none).
        first: each kind recorded, and when it was first recorded (seconds since the epoch).
        sequence: every kind recorded, oldest first (a room has tens of records).
        last_kind: the newest record's kind.
        last_detail: its line.
        last_at: when it was written.
        counts: how many times each kind was recorded.
    """

    room: str
    name: str = ""
    first: dict[str, float] = field(default_factory=dict)
    sequence: tuple[str, ...] = ()
    last_kind: str = ""
    last_detail: str = ""
    last_at: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


def records_beside(target: str, owner: str = "") -> RoomRecords:
    """The rooms' records beside the checkpoints at ``target`` (a SQLite file's path: a
    ``rooms.sqlite`` beside it; a Postgres URL: a table in that database), through the door;
    ``owner`` as :class:`RoomRecords` takes it."""
    return RoomRecords(open_place(target).own_tables(ROOMS), owner)


class RoomRecords:
    """The records of every room, in tables of the playground's own beside its checkpoints.

    Args:
        tables: where they live (:meth:`playground.places.base.Place.own_tables`), reached
            through the place: its connections, its deadline.
        owner: the fingerprint of the room's access token
            (:func:`playground.access.token.fingerprint`), under which the facilitator's mark
            is kept; "" for a server that has none.
    """

    def __init__(self, tables: OwnTables, owner: str = "") -> None:
        self._tables = tables
        self._facilitator = f"{FACILITATOR}:{owner}" if owner else FACILITATOR
        self._run(f"CREATE TABLE IF NOT EXISTS {TABLE} (room TEXT NOT NULL, kind TEXT NOT NULL, "
                  f"detail TEXT NOT NULL, at {tables.NUMBER} NOT NULL)")
        self._run(f"CREATE INDEX IF NOT EXISTS {TABLE}_at ON {TABLE} (at)")
        # One room's records (a Start page's tour, every few seconds per attendee) and the
        # mark are read by room.
        self._run(f"CREATE INDEX IF NOT EXISTS {TABLE}_room ON {TABLE} (room, at)")

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement; any error of the database as :class:`RoomRecordsError`."""
        try:
            return self._tables.run(sql, params)
        except OwnTablesError as exc:
            raise RoomRecordsError(f"the rooms' records: {exc}") from None

    def record(self, room: str, kind: str, detail: str = "", at: float | None = None) -> None:
        """Write that ``room`` did ``kind`` (now, unless ``at`` says when)."""
        self._run(f"INSERT INTO {TABLE} (room, kind, detail, at) VALUES (?, ?, ?, ?)",
                  (room, kind, detail[:DETAIL_MAX], time.time() if at is None else at))

    def rooms(self, since: float = 0.0, only: Iterable[str] | None = None
              ) -> list[RoomActivity]:
        """Every room with a record at or after ``since`` (or only the rooms named), newest
        action first: one query for them all."""
        names = list(only) if only is not None else None
        if names is not None and not names:
            return []
        where = "at >= ?" if names is None else f"room IN ({', '.join('?' for _ in names)})"
        params: tuple = (since,) if names is None else tuple(names)
        # Every record of the rooms active since then (a room has tens, a workshop thousands).
        rows = self._run(
            f"SELECT room, kind, detail, at FROM {TABLE} WHERE room IN (SELECT room FROM "
            f"{TABLE} WHERE {where}) ORDER BY at", params)
        first: dict[str, dict[str, float]] = {}
        sequence: dict[str, list[str]] = {}
        counts: dict[str, dict[str, int]] = {}
        last: dict[str, tuple[str, str, float]] = {}
        names: dict[str, str] = {}
        for room, kind, detail, at in rows:
            if room.startswith(FACILITATOR):
                continue
            if kind == NAME:
                names[room] = detail
                continue
            first.setdefault(room, {}).setdefault(kind, at)
            sequence.setdefault(room, []).append(kind)
            counted = counts.setdefault(room, {})
            counted[kind] = counted.get(kind, 0) + 1
            last[room] = (kind, detail, at)
        found = [RoomActivity(room, names.get(room, ""), first[room], tuple(sequence[room]),
                              *last[room], counts[room]) for room in last]
        return sorted(found, key=lambda activity: activity.last_at, reverse=True)

    def set_focus(self, step: int | None) -> None:
        """Mark the tour step the whole room is on now (None: no step)."""
        self.record(self._facilitator, FOCUS, "" if step is None else str(step))

    def focus(self) -> int | None:
        """The step the facilitator marked last under this token, or None."""
        found = self._run(f"SELECT detail FROM {TABLE} WHERE room = ? AND kind = ? "
                          "ORDER BY at DESC LIMIT 1", (self._facilitator, FOCUS))
        detail = found[0][0] if found else ""
        return int(detail) if detail.isdigit() else None

    def room(self, room: str) -> RoomActivity:
        """One room's records (an empty activity when it has none; only its name when it has
        done nothing yet)."""
        found = self.rooms(only=[room])
        if found:
            return found[0]
        named = self._run(f"SELECT detail FROM {TABLE} WHERE room = ? AND kind = ? "
                          "ORDER BY at DESC LIMIT 1", (room, NAME))
        return RoomActivity(room, named[0][0] if named else "")

    def close(self) -> None:
        """Give back what the tables hold (a SQLite file's connection)."""
        self._tables.close()
