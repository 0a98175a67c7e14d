"""One refresh of the facilitator's board, server-side: every active room's records read in one
query and turned into the board's rows and step counts, for a room of 60 and of 600, on SQLite
and on Postgres. The baseline is the bare query that reads the same rows
(``SELECT room, kind, detail, at FROM ... WHERE at >= ?``), in the same run.

Each room has done a few to all of the eight steps, about 20 records (a workshop's hour).
Goal (issue 32): a refresh for 60 rooms at most 200 ms.
"""

from __future__ import annotations

import random
import sqlite3
import tempfile
import time
from pathlib import Path

from bench import fresh_databases
from playground.lessons import tour
from playground.lessons.board import board
from playground.lessons.room_records import TABLE, RoomRecords, records_beside

ROUNDS = 20
KINDS = [tour.PAUSED, tour.RESTARTED, tour.RESUMED, tour.MET_412, tour.MET_412, tour.RESUMED,
         tour.REPLAYED, tour.FORKED, tour.FORKED, tour.COMPARED, tour.REPAIRED]


def _fill(records: RoomRecords, rooms: int, now: float) -> None:
    rng = random.Random(rooms)
    for index in range(rooms):
        done = rng.randint(1, len(KINDS))
        for step, kind in enumerate(KINDS[:done] * 2):  # each action a couple of times
            records.record(f"room-{index:04d}", kind, f"{kind} in turn {step}",
                           at=now - 3000 + step * 60 + index)


def _best(action) -> float:
    best = None
    for _ in range(ROUNDS):
        started = time.perf_counter()
        action()
        took = time.perf_counter() - started
        best = took if best is None else min(best, took)
    return best


def _bare(kind: str, target: str, since: float) -> None:
    sql = f"SELECT room, kind, detail, at FROM {TABLE} WHERE at >= ?"
    if kind == "Postgres":
        import psycopg

        with psycopg.connect(target) as conn:
            conn.execute(sql.replace("?", "%s"), (since,)).fetchall()
        return
    with sqlite3.connect(Path(target).with_name("rooms.sqlite")) as conn:
        conn.execute(sql, (since,)).fetchall()


def _measure(kind: str, target: str, rooms: int) -> tuple[float, float]:
    """(one refresh, the bare query) for ``rooms`` rooms, best of ROUNDS."""
    records = records_beside(target)
    now = time.time()
    _fill(records, rooms, now)
    since = now - 3 * 3600
    ours = _best(lambda: board(records.rooms(since=since), tour.TICKET_TOUR, now))
    bare = _best(lambda: _bare(kind, target, since))
    records._run(f"DELETE FROM {TABLE}")  # the next size starts empty
    return ours, bare


def _rows(kind: str, target: str) -> list[dict]:
    rows = []
    for rooms in (60, 600):
        ours, bare = _measure(kind, target, rooms)
        rows.append({
            "name": f"one board refresh for {rooms} rooms on {kind} (rooms' records read at "
                    "once, rows and step counts made)",
            "ours": f"{ours * 1000:.1f} ms", "baseline_value": f"{bare * 1000:.1f} ms",
            "baseline": "the bare query reading the same rows, same run",
            "ratio": round(ours / bare, 2), "goal": "<= 200 ms for 60 rooms"})
    return rows


def run() -> dict:
    """The refresh on SQLite, then on Postgres where a server answers."""
    with tempfile.TemporaryDirectory() as tmp:
        rows = _rows("SQLite", str(Path(tmp) / "checkpoints.sqlite"))
    urls = fresh_databases(("bench_board",))
    if urls is not None:
        rows += _rows("Postgres", urls[0])
    return {"rows": rows}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
