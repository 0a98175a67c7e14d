"""Turns of a conversation with the agent: start one (read + plan, then pause) or resume it.

These are the commands the CLI and the pages call; each returns a :class:`TurnResult` whose
``line`` says in plain words what happened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from langgraph.graph.state import CompiledStateGraph

from playground.agent.client import ApiUnavailable
from playground.agent.planner import find_ticket_id
from playground.timetravel.runs import with_run


@dataclass(frozen=True)
class TurnResult:
    """What one turn did.

    Attributes:
        thread_id: the conversation.
        line: one sentence for a person.
        ok: False when the turn failed (nothing understood, read failed, write refused).
        values: the state after the turn.
        next: the nodes the thread waits at (empty when finished).
    """

    thread_id: str
    line: str
    ok: bool
    values: dict = field(default_factory=dict)
    next: tuple[str, ...] = ()



def write_refused(outcome: str) -> bool:
    """Whether the agent's ``outcome`` says its write did not happen: an HTTP status (``412:
    ticket is at v4...``) or ``not ...`` (nothing to write)."""
    return outcome[:3].isdigit() or outcome.startswith("not ")

def thread_config(thread_id: str) -> dict:
    """The config that addresses a thread's newest checkpoint."""
    return {"configurable": {"thread_id": thread_id}}


def _version_of(values: dict) -> str | None:
    return values.get("etag") or values.get("version")


def start_turn(graph: CompiledStateGraph, thread_id: str, request: str) -> TurnResult:
    """Turn 1: read the ticket the request names, plan the change, pause before writing."""
    config = thread_config(thread_id)
    # Marked as a run (its id, its start), so a timeline tells the pause from the write's time.
    graph.invoke({"request": request, "ticket_id": find_ticket_id(request)}, with_run(config))
    snapshot = graph.get_state(config)
    values, waiting = dict(snapshot.values), tuple(snapshot.next)
    if not waiting:
        return TurnResult(thread_id, values.get("outcome") or "finished", False, values, waiting)
    return _paused(thread_id, values, waiting)


def _paused(thread_id: str, values: dict, waiting: tuple[str, ...]) -> TurnResult:
    """Describe a thread that stopped before its write: what it read and what it proposes."""
    proposed = json.dumps(values.get("changes") or {})
    version = _version_of(values)
    if version:
        line = f"read {values['ticket_id']} at {version}, proposed {proposed}, waiting for the user"
        ok = True
    else:
        line = f"read failed ({values.get('outcome')}), proposed {proposed}, waiting for the user"
        ok = False
    return TurnResult(thread_id, line, ok, values, waiting)


def resume(graph: CompiledStateGraph, thread_id: str) -> TurnResult:
    """Turn 2: resume a paused thread, which runs the write.

    The line speaks of the ticket, for the Agent page, the lessons and the CLI; History resumes
    any app's thread with :func:`playground.runtime.time_travel.resume_thread`, in general words.
    """
    config = thread_config(thread_id)
    before = graph.get_state(config)
    # A process killed after a step's tasks saved their writes, but before the step's checkpoint,
    # leaves a thread whose ``next`` is empty while ``tasks`` still lists them; invoke(None)
    # applies those writes and carries on, so such a thread is resumable too.
    pending = tuple(before.next) or tuple(task.name for task in before.tasks)
    if not pending:
        reason = "it has no checkpoints" if not before.values else "it is not paused"
        return TurnResult(thread_id, f"nothing to resume: {reason}", False, dict(before.values))
    try:
        graph.invoke(None, with_run(config))
    except ApiUnavailable as exc:
        return TurnResult(
            thread_id,
            f"{exc}; the thread is still paused at {pending}, resume when it is back",
            False,
            dict(before.values),
            pending,
        )
    after = graph.get_state(config)
    values, waiting = dict(after.values), tuple(after.next)
    if after.config["configurable"]["checkpoint_id"] == before.config["configurable"][
        "checkpoint_id"
    ]:
        # Nothing ran: typically a state key was renamed under a paused thread (langgraph keeps
        # interrupting on the dead key's channel version and raises nothing).
        return TurnResult(
            thread_id,
            f"resumed, and nothing ran: the thread is still waiting at {waiting}",
            False,
            values,
            waiting,
        )
    if waiting:
        # A turn 1 whose process died before the pause: resuming finished its read and plan and
        # paused before the write again, so report it as turn 1 does.
        return _paused(thread_id, values, waiting)
    outcome = values.get("outcome") or ""
    return TurnResult(
        thread_id, f"resumed with ticket {values.get('ticket_id')}: {outcome}",
        not write_refused(outcome), values, waiting,
    )
