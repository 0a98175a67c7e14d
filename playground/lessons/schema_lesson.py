"""The migration lesson: a renamed state key strands a paused thread; add-then-remove does not;
renaming the key inside the thread's newest checkpoint repairs it.

The steps are commands over the agent and the checkpoint file. What each step's status is comes
from the file itself (which channels the thread's newest checkpoint holds, whether it waits), so a
reload shows the same lesson.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

from playground.agent.state import schema_variant
from playground.agent.turns import TurnResult, resume, start_turn, thread_config
from playground.places.door import open_storage
from playground.timetravel.errors import UnknownThread
from playground.timetravel.migrate import (
    MigrationReport,
    StrandedThread,
    find_stranded,
    rename_channel,
)
from playground.timetravel.tree import load_tree

STRANDED = "schema-stranded"
ADD_REMOVE = "schema-addremove"
STRANDED_REQUEST = "raise t7 to high"
# Another ticket, so step 3's write does not make step 1's paused read stale.
ADD_REMOVE_REQUEST = "raise t4 to high"
OLD, NEW = "etag", "version"


def schema_keys(schema: str) -> tuple[str, ...]:
    """The state keys of a schema variant (``etag``, ``version`` or ``both``)."""
    return tuple(schema_variant(schema).state_type.__annotations__)


@dataclass(frozen=True)
class StepResult:
    """What a step did.

    Attributes:
        kind: how to show it: success, error, warning or info.
        status: ``done``, ``stuck``, ``repaired`` or ``failed``.
        text: the outcome in plain words.
        values: the thread's state after the step, as the graph of that step sees it.
    """

    kind: str
    status: str
    text: str
    values: dict = field(default_factory=dict)


def _nothing_ran(result: TurnResult) -> bool:
    return bool(result.next) and "nothing ran" in result.line


def pause_under_etag(
    graph_etag: CompiledStateGraph, thread_id: str, request: str = STRANDED_REQUEST
) -> StepResult:
    """Step 1: start a fresh thread under the original schema; it pauses before the write."""
    graph_etag.checkpointer.delete_thread(thread_id)  # the lesson starts from an empty thread
    result = start_turn(graph_etag, thread_id, request)
    if not result.ok:
        return StepResult("error", "failed", result.line, result.values)
    return StepResult(
        "success", "done",
        f"Paused under the etag schema: {result.line}. The checkpoint stores the version it "
        f"read in a state key named etag ({result.values.get(OLD)}).",
        result.values,
    )


def deploy_rename(graph_version: CompiledStateGraph, thread_id: str) -> StepResult:
    """Step 2: resume the paused thread with the graph whose ``etag`` key became ``version``."""
    result = resume(graph_version, thread_id)
    if _nothing_ran(result):
        return StepResult(
            "warning", "stuck",
            "Stuck: resume() ran nothing, wrote nothing and raised nothing. It returned the old "
            "values and the thread still waits before write. The paused checkpoint records a "
            "channel named etag; the new schema has no etag key, so that channel's version is "
            "never marked as seen and LangGraph stops before write again, every time. The "
            "ticket was not written.",
            result.values,
        )
    kind = "success" if result.ok else "error"
    return StepResult(kind, "done" if result.ok else "failed", result.line, result.values)


def add_then_remove(
    graph_etag: CompiledStateGraph,
    graph_both: CompiledStateGraph,
    thread_id: str,
    request: str = ADD_REMOVE_REQUEST,
) -> StepResult:
    """Step 3: pause a fresh thread under ``etag``, then resume it with the ``both`` schema."""
    paused = pause_under_etag(graph_etag, thread_id, request)
    if paused.status != "done":
        return paused
    result = resume(graph_both, thread_id)
    if not result.ok:
        return StepResult("error", "failed", result.line, result.values)
    return StepResult(
        "success", "done",
        f"Resumed and written: {result.line}. The both schema still has etag, so the paused "
        "checkpoint's channels all exist; the write read the version from etag and stored the "
        "new one in etag and version. Once no paused thread holds only etag, a later release "
        "can drop it.",
        result.values,
    )


def stranded_threads(
    checkpoints: str | Path, thread_prefix: str = "", schema: str = NEW
) -> tuple[StrandedThread, ...]:
    """Threads whose newest checkpoint holds channels ``schema`` lacks (``find_stranded``).

    Args:
        checkpoints: the SQLite checkpoint file, or a Postgres URL.
        thread_prefix: keep only thread ids starting with it (one workspace's threads).
        schema: the schema as deployed now.
    """
    with closing(open_storage(checkpoints)) as storage:
        found = find_stranded(storage, schema_keys(schema))
    return tuple(t for t in found if t.thread_id.startswith(thread_prefix))


def preview_repair(checkpoints: str | Path, thread_id: str) -> MigrationReport:
    """Step 4a: what renaming ``etag`` to ``version`` in the thread's head would change (dry run).

    Raises:
        MigrationRefused: the rename is not possible; the message says why and what to do.
    """
    return _rename(checkpoints, thread_id, apply=False)


def apply_repair(checkpoints: str | Path, thread_id: str) -> MigrationReport:
    """Step 4b: rename ``etag`` to ``version`` in the thread's newest checkpoint.

    Raises:
        MigrationRefused: the rename is not possible; nothing was changed.
    """
    return _rename(checkpoints, thread_id, apply=True)


def _rename(checkpoints: str | Path, thread_id: str, apply: bool) -> MigrationReport:
    # A writable connection of its own, closed after each command, next to the server's saver
    # (SQLite's lock or Postgres's table lock orders the two).
    with closing(open_storage(checkpoints, writable=apply)) as storage:
        return rename_channel(storage, thread_id, OLD, NEW, apply=apply)


def resume_repaired(graph_version: CompiledStateGraph, thread_id: str) -> StepResult:
    """Step 4c: resume the repaired thread with the ``version`` schema; the write runs."""
    result = resume(graph_version, thread_id)
    if _nothing_ran(result):
        return StepResult("warning", "stuck", f"Still stuck: {result.line}. Apply the repair "
                          "first.", result.values)
    if not result.ok:
        return StepResult("error", "failed", result.line, result.values)
    return StepResult(
        "success", "repaired",
        f"Repaired and written: {result.line}. The head now names the channel version, which "
        "the new schema knows, so the write ran and sent the ETag from version.",
        result.values,
    )


@dataclass(frozen=True)
class ThreadLook:
    """A lesson thread as the checkpoint file holds it.

    Attributes:
        thread_id: the thread.
        exists: False when it has no checkpoints.
        checkpoint_id: its newest checkpoint (what a resume loads).
        waiting_at: nodes it waits before (empty when finished).
        channels: the state channels stored in that checkpoint, with their values.
        seen_by_new_schema: the state the ``version`` graph reports for the thread.
        outcome: the last outcome in the checkpoint.
    """

    thread_id: str
    exists: bool
    checkpoint_id: str | None = None
    waiting_at: tuple[str, ...] = ()
    channels: dict = field(default_factory=dict)
    seen_by_new_schema: dict = field(default_factory=dict)
    outcome: str | None = None

    @property
    def holds_old_key(self) -> bool:
        """True when the head still names the channel ``etag``."""
        return OLD in self.channels

    @property
    def stranded(self) -> bool:
        """Paused and holding ``etag``: a resume under the ``version`` schema runs nothing."""
        return bool(self.waiting_at) and self.holds_old_key and NEW not in self.channels


def look(
    checkpoints: str | Path, graph_version: CompiledStateGraph, thread_id: str
) -> ThreadLook:
    """Read a thread's newest checkpoint from the file, and what the new graph makes of it."""
    source = open_storage(checkpoints)
    try:
        tree = load_tree(source, thread_id)
        channels = source.values(thread_id, tree.head)
    except UnknownThread:
        return ThreadLook(thread_id, exists=False)
    finally:
        source.close()
    new_view = dict(graph_version.get_state(thread_config(thread_id)).values)
    return ThreadLook(
        thread_id=thread_id,
        exists=True,
        checkpoint_id=tree.head,
        waiting_at=tree.details[tree.head].next,
        channels=channels,
        seen_by_new_schema=new_view,
        outcome=channels.get("outcome"),
    )


@dataclass(frozen=True)
class LessonStep:
    """One step of the lesson: its number, title, status (``to do``, ``done``, ``stuck``,
    ``paused``, ``repaired``, ``failed``) and a one-line note."""

    number: int
    title: str
    status: str
    note: str


def lesson_steps(stranded: ThreadLook, add_remove: ThreadLook, rename_tried: bool) -> tuple[
    LessonStep, ...
]:
    """Each step's status, from the two threads' heads and whether step 2 was tried."""
    written = stranded.exists and not stranded.waiting_at
    repaired = stranded.exists and NEW in stranded.channels and not stranded.holds_old_key
    if not stranded.exists:
        one = LessonStep(1, "Pause a thread under the etag schema", "to do",
                         "Start a turn: it reads t7 and pauses before the write.")
    else:
        one = LessonStep(1, "Pause a thread under the etag schema", "done",
                         f"The thread's checkpoint holds {', '.join(stranded.channels)}.")
    if repaired:
        two = LessonStep(2, "Deploy the rename (etag becomes version)", "repaired",
                         "Stuck before; step 4 renamed the channel in its head.")
    elif rename_tried and stranded.stranded:
        two = LessonStep(2, "Deploy the rename (etag becomes version)", "stuck",
                         "Resume ran nothing: the thread still waits before write.")
    else:
        two = LessonStep(2, "Deploy the rename (etag becomes version)", "to do",
                         "Resume the paused thread with the new schema.")
    if not add_remove.exists:
        three = LessonStep(3, "Do the rename as add-then-remove", "to do",
                           "Pause another thread under etag, resume it with both keys.")
    elif add_remove.waiting_at:
        three = LessonStep(3, "Do the rename as add-then-remove", "paused",
                           "Paused; the add-then-remove resume has not run.")
    elif (add_remove.outcome or "").startswith(("4", "not ")):
        three = LessonStep(3, "Do the rename as add-then-remove", "failed",
                           f"The write did not go through: {add_remove.outcome}")
    else:
        three = LessonStep(3, "Do the rename as add-then-remove", "done",
                           "Resumed and written with the both schema.")
    if repaired and written:
        four = LessonStep(4, "Repair the stranded thread", "done",
                          f"Renamed, resumed and finished: {stranded.outcome}")
    elif repaired:
        four = LessonStep(4, "Repair the stranded thread", "repaired",
                          "The head now names version: resume it with the new schema.")
    else:
        four = LessonStep(4, "Repair the stranded thread", "to do",
                          "Find it, preview the rename, apply it, resume.")
    return (one, two, three, four)
