"""The guided tours, and how far a room has got in one, checked from the room's records.

Each step names the page it happens on and what shows it was done: a record the pages write when
they see the outcome in the room's own state (:mod:`playground.lessons.room_records`). Visiting
a step's page does nothing; doing what it asks does. The ticket agent's workshop has one tour
(:data:`TICKET_TOUR`), a server started on a graph of one's own another (:data:`OWN_GRAPH_TOUR`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from playground.lessons.room_records import RoomActivity

# What the pages record, and when.
PAUSED = "paused"  # Agent: a turn ran and paused before write
RESTARTED = "restarted"  # Agent: Restart process, while a turn was paused
RESUMED = "resumed"  # Agent: a paused turn resumed and its write went in
MET_412 = "met-412"  # Agent or Conflicts: a resume's write answered 412
REPLAYED = "replayed"  # History: a replay from an older checkpoint made checkpoints
FORKED = "forked"  # History or Run: an edit written as a new checkpoint (update_state)
COMPARED = "compared"  # Sizes: the four ways of carrying state measured
REPAIRED = "repaired"  # Schema: the stranded thread repaired and resumed
RAN = "ran"  # Run: a run of one's own graph finished or paused
ANSWERED = "answered"  # Run: a question (interrupt) answered and the run resumed
WEIGHED = "weighed"  # Sizes: old checkpoints pruned (the preview alone shows on every visit)
FAILED = "failed"  # Agent or Run: a run ended with a node's error (the board marks it stuck)

# Each kind as the board says it, when a record has no line of its own.
SAID = {PAUSED: "a turn paused before write", RESTARTED: "restarted the process",
        RESUMED: "a turn resumed and wrote", MET_412: "a write met 412", REPLAYED: "replayed",
        FORKED: "forked with an edit", COMPARED: "compared the sizes",
        REPAIRED: "repaired the schema", RAN: "ran the graph", ANSWERED: "answered a question",
        WEIGHED: "pruned checkpoints", FAILED: "a node failed"}


def said(kind: str, detail: str = "") -> str:
    """A record in words: its own line, else its kind's."""
    return detail or SAID.get(kind, kind)


@dataclass(frozen=True)
class TourStep:
    """One step of a tour.

    Attributes:
        page: its page's file under ``views/``.
        title: a few words.
        text: what to do, as markdown (the playground's own words).
        done_when: how the step is checked, in words.
        done: the check, on the room's records.
    """

    page: str
    title: str
    text: str
    done_when: str
    done: Callable[[RoomActivity], bool]


def _has(*kinds: str) -> Callable[[RoomActivity], bool]:
    return lambda room: any(kind in room.first for kind in kinds)


def _in_order(*kinds: str) -> Callable[[RoomActivity], bool]:
    """Each of ``kinds`` recorded, one after the other (others may come between)."""
    def done(room: RoomActivity) -> bool:
        records = iter(room.sequence)
        return all(kind in records for kind in kinds)  # `in` walks the iterator on
    return done


TICKET_TOUR = (
    TourStep("agent.py", "Run a turn", "On **Agent**, keep the request `raise t7 to high` and "
             "press **Run turn**: the agent reads t7, proposes the change and pauses before "
             "`write`.", "a turn paused before write", _has(PAUSED)),
    TourStep("agent.py", "Restart", "Press **Restart process**: the saver and its connection "
             "are dropped, as if the server restarted. Only the checkpoint file remains.",
             "the process restarted after a turn paused", _in_order(PAUSED, RESTARTED)),
    TourStep("agent.py", "Resume", "Press **Resume**: turn 2 loads the paused checkpoint from "
             "the file and writes t7 with `If-Match`. The ticket's ETag moves on.",
             "a paused turn resumed and wrote after the restart",
             _in_order(PAUSED, RESTARTED, RESUMED)),
    TourStep("conflicts.py", "Conflict", "On **Conflicts**, start a turn, press **Simulate "
             "concurrent edit**, then resume: the API answers 412 and says who changed the "
             "ticket.", "a resume's write was answered 412", _has(MET_412)),
    TourStep("history.py", "Time travel", "On **History**, step through every checkpoint of the "
             "thread and press **Replay from here** on an old one: a new branch appears in the "
             "tree.", "a replay from an older checkpoint ran", _has(REPLAYED)),
    TourStep("history.py", "Fork", "Still on **History**, edit a checkpoint's state and press "
             "**Fork with edit**. Unknown keys and wrong types are refused before anything is "
             "written.", "an edited state was written as a fork", _has(FORKED)),
    TourStep("sizes.py", "Sizes", "On **Sizes**, see what each checkpoint stores, what a resume "
             "loads, and how whole responses in state grow into megabytes: press **Compare**.",
             "the four ways of carrying state were compared", _has(COMPARED)),
    TourStep("schema.py", "Schema", "On **Schema**, pause a thread, then deploy a rename of "
             "`etag` to `version`: the resume does nothing. Add-then-remove works; a repair "
             "unsticks it.", "the stranded thread was repaired and resumed", _has(REPAIRED)),
)

OWN_GRAPH_TOUR = (
    TourStep("run.py", "Run it", "On **Run**, send a message (or fill the input form): each "
             "node's update streams in and the graph lights up the node that runs. Set **Pause "
             "before** or **Pause after** on a node, or step mode, and **Continue** from there.",
             "a run finished or paused", _has(RAN)),
    TourStep("run.py", "Answer it", "When a node calls `interrupt()`, its question shows: type "
             "an **Answer** and press **Resume**. A node that raises shows your traceback; fix "
             "the file, press **Reload graph**, then **Retry**.",
             "a question was answered and the run resumed", _has(ANSWERED)),
    TourStep("history.py", "Fork it", "On **History**, the thread's every checkpoint is a tree: "
             "replay from any of them, or edit a state and fork. On Run, **Edit and fork** a "
             "message.", "a replay ran or an edit was forked", _has(REPLAYED, FORKED)),
    TourStep("sizes.py", "Weigh it", "On **Sizes**, what each checkpoint stores and what a "
             "resume loads; **Prune** old checkpoints, keeping the newest.",
             "old checkpoints were pruned", _has(WEIGHED)),
)


@dataclass(frozen=True)
class StepProgress:
    """A step and where the room stands on it: ``done``, ``current`` (the first not done) or
    ``ahead``."""

    number: int
    step: TourStep
    state: str


def progress(tour: tuple[TourStep, ...], room: RoomActivity) -> list[StepProgress]:
    """Each step of ``tour`` as done, current or ahead, from the room's records."""
    found, current_given = [], False
    for number, step in enumerate(tour, 1):
        if step.done(room):
            state = "done"
        elif not current_given:
            state, current_given = "current", True
        else:
            state = "ahead"
        found.append(StepProgress(number, step, state))
    return found


def reached(tour: tuple[TourStep, ...], room: RoomActivity) -> int:
    """How many steps of ``tour`` the room has done."""
    return sum(1 for step in tour if step.done(room))
