"""How many bytes a thread stores, per checkpoint and in total, and how that grows.

A resume loads one checkpoint (the newest blob); the database keeps all of them. The gap between
the two is what pruning recovers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

from playground.timetravel.records import CheckpointRecord


class SizePoint(NamedTuple):  # a NamedTuple: one per checkpoint, so cheap to create matters
    """Bytes of one checkpoint and the running total up to it (creation order)."""

    ordinal: int
    checkpoint_id: str
    source: str | None
    blob_bytes: int
    metadata_bytes: int
    writes_bytes: int
    cumulative_bytes: int


@dataclass(frozen=True)
class SizeReport:
    """A thread's storage at a glance.

    Attributes:
        resume_load_bytes: the head's blob: what a resume reads.
        stored_bytes: every blob, metadata and pending write of the thread.
        points: one per checkpoint, oldest first.
        turns: cumulative stored bytes at the end of each turn (a turn starts at an ``input``
            checkpoint), the growth series a chart shows.
    """

    thread_id: str
    resume_load_bytes: int
    stored_bytes: int
    points: tuple[SizePoint, ...]
    turns: tuple[tuple[int, int], ...]

    @property
    def checkpoints(self) -> int:
        """How many checkpoints the thread keeps."""
        return len(self.points)


def size_report(thread_id: str, records: Sequence[CheckpointRecord]) -> SizeReport:
    """Sum a thread's bytes from its checkpoint records (any order)."""
    ordered = sorted(records, key=attrgetter("checkpoint_id"))
    points, total = [], 0
    turns: list[tuple[int, int]] = []
    turn = 0
    for ordinal, record in enumerate(ordered, 1):
        if record.source == "input" and turn and points:
            turns.append((turn, total))
        if record.source == "input" or turn == 0:
            turn += 1
        total += record.blob_bytes + record.metadata_bytes + record.writes_bytes
        points.append(
            SizePoint(ordinal, record.checkpoint_id, record.source, record.blob_bytes,
                      record.metadata_bytes, record.writes_bytes, total)
        )
    if points:
        turns.append((turn, total))
    head = ordered[-1] if ordered else None
    return SizeReport(
        thread_id=thread_id,
        resume_load_bytes=head.blob_bytes if head else 0,
        stored_bytes=total,
        points=tuple(points),
        turns=tuple(turns),
    )
