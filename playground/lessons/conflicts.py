"""The 412 lab: two agent threads and a colleague edit one ticket; two resumes race on one thread.

Every write attempt on the ticket comes from one of two records: the API's history (accepted
writes: version, changes, actor, time) and the agent threads' own checkpoints (each run of the
``write`` node leaves a checkpoint whose outcome says what the API answered). Nothing is kept in
memory, so the timeline is the same after a reload or in another tab of the same room.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import graphviz
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from playground.agent.client import TicketClient
from playground.agent.planner import PRIORITIES
from playground.agent.turns import TurnResult, resume, start_turn, thread_config
from playground.lessons.explain import explain_outcome

THREADS = ("conflict-a", "conflict-b")
COLLEAGUE = "colleague"
# Both resumes wait here inside the write, so they truly overlap however the machine schedules
# them; a resume that never reaches the write gives up after this many seconds.

_WRITTEN = re.compile(r' at "v(?P<version>\d+)"$')
_STALE = re.compile(r"^412: ticket is at v(?P<now>\d+)")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Outcome:
    """What one action did, for a person: ``kind`` is success, error, warning or info."""

    kind: str
    text: str
    values: dict = field(default_factory=dict)


def agent_actor(thread: str) -> str:
    """The ``X-Actor`` of an agent thread, so the API's history says which thread wrote."""
    return f"agent:{thread}"


def who_of(actor: str) -> str:
    """How a history actor reads in the timeline (``agent:conflict-a`` -> ``agent conflict-a``)."""
    return f"agent {actor.split(':', 1)[1]}" if actor.startswith("agent:") else actor


def first_request(thread: str, ticket_id: str) -> str:
    """The request each thread starts with: the two agents want different things."""
    return f"raise {ticket_id} to high" if thread == THREADS[0] else f"lower {ticket_id} to low"


def _name(thread_id: str) -> str:
    return thread_id.rsplit("/", 1)[-1]


def _proposal(values: dict) -> str:
    changes = values.get("changes") or {}
    return ", ".join(f"{key} {value}" for key, value in changes.items()) or "nothing"


def _version(values: Mapping) -> str | None:
    return values.get("etag") or values.get("version")


# -- the agent threads -----------------------------------------------------------------------


def run_turn(graph: CompiledStateGraph, thread_id: str, request: str) -> Outcome:
    """Turn 1 of a thread: read the ticket, plan, pause before the write."""
    result = start_turn(graph, thread_id, request)
    return _started(_name(thread_id), result)


def replan(graph: CompiledStateGraph, thread_id: str, fallback_request: str) -> Outcome:
    """The recovery after a 412: a new turn with the same request, which reads the ticket again.

    The refused write is not retried: the agent plans again from what the ticket is now, so the
    colleague's edit is seen instead of overwritten.
    """
    values = graph.get_state(thread_config(thread_id)).values
    result = start_turn(graph, thread_id, values.get("request") or fallback_request)
    outcome = _started(_name(thread_id), result)
    if not result.ok:
        return outcome
    return Outcome(
        "info",
        f"{_name(thread_id)} re-read {result.values.get('ticket_id')} at "
        f"{_version(result.values)} and planned again ({_proposal(result.values)}). Press "
        "Resume to write from the version it holds now.",
        result.values,
    )


def _started(name: str, result: TurnResult) -> Outcome:
    if not result.ok:
        return Outcome("error", f"{name}: {result.line}", result.values)
    return Outcome(
        "success",
        f"{name} read {result.values.get('ticket_id')} at {_version(result.values)} and proposes "
        f"{_proposal(result.values)}; it is paused before writing. Press Resume to write.",
        result.values,
    )


def resume_turn(graph: CompiledStateGraph, thread_id: str, client: TicketClient) -> Outcome:
    """Turn 2 of a thread: run the write with the ETag the thread read, and say what happened."""
    result = resume(graph, thread_id)
    name = _name(thread_id)
    if result.ok:
        return Outcome("success", f"{name} {result.line}", result.values)
    outcome = result.values.get("outcome") or ""
    ticket_id = result.values.get("ticket_id")
    if result.next or not outcome or "nothing to resume" in result.line:
        return Outcome("warning", f"{name}: {result.line}", result.values)
    history = client.history(ticket_id) if ticket_id else []
    return Outcome(
        "error",
        f"{name} {result.line}. {explain_outcome(outcome, ticket_id, history)}",
        result.values,
    )


@dataclass(frozen=True)
class ThreadCard:
    """One agent thread as the page shows it.

    Attributes:
        name: the thread name (``conflict-a``).
        status: ``new``, ``paused``, ``written``, ``refused`` or ``finished``.
        ticket_id: the ticket it works on.
        held: the ETag in its state (the version it read, or the one it wrote).
        proposed: the change it planned.
        outcome: the last write's outcome, if any.
        stale: paused while the ticket moved past ``held``: its Resume will get a 412.
    """

    name: str
    status: str
    ticket_id: str | None
    held: str | None
    proposed: dict
    outcome: str | None
    stale: bool


def thread_card(
    graph: CompiledStateGraph, thread_id: str, current_etag: Callable[[str], str | None]
) -> ThreadCard:
    """Read a thread's newest checkpoint; ``current_etag(ticket_id)`` asks the API."""
    snapshot = graph.get_state(thread_config(thread_id))
    values = dict(snapshot.values)
    ticket_id, held, outcome = values.get("ticket_id"), _version(values), values.get("outcome")
    if not values:
        status = "new"
    elif snapshot.next:
        status = "paused"
    elif outcome and _WRITTEN.search(outcome):
        status = "written"
    elif outcome:
        status = "refused"
    else:
        status = "finished"
    stale = bool(status == "paused" and ticket_id and held and current_etag(ticket_id) != held)
    return ThreadCard(_name(thread_id), status, ticket_id, held, values.get("changes") or {},
                      outcome, stale)


# -- the colleague ---------------------------------------------------------------------------


def colleague_edit(
    client: TicketClient, ticket_id: str, avoid: Iterable[str] = (), who: str = COLLEAGUE
) -> Outcome:
    """Change the ticket's priority as a colleague would: a fresh read, then a write with its ETag.

    Args:
        client: a client acting as the colleague.
        ticket_id: the ticket.
        avoid: priorities the agents propose; the colleague picks another one, so whose edit
            survives is visible.
        who: how the colleague is named in the text (the client's actor).
    """
    current = client.get_ticket(ticket_id)
    if current.status != 200:
        return Outcome("error", f"The colleague could not read {ticket_id}: {current.error}")
    taken = {current.body.get("priority"), *avoid}
    priority = next((p for p in reversed(PRIORITIES) if p not in taken), "urgent")
    written = client.patch_ticket(ticket_id, {"priority": priority}, current.etag)
    if written.status != 200:
        return Outcome("error", f"The colleague's edit failed: {written.status} {written.error}")
    return Outcome(
        "warning",
        f"{who} read {ticket_id} at {current.etag} and set its priority to "
        f"{priority}: the ticket is now at {written.etag}. An agent thread still holding "
        f"{current.etag} is stale: its Resume will be refused with 412.",
        {"priority": priority, "etag": written.etag, "sent": current.etag},
    )


def reset_lab(
    client: TicketClient, saver: BaseCheckpointSaver, thread_ids: Iterable[str]
) -> Outcome:
    """Start over: the workspace's tickets back to their seed, the lab's threads deleted."""
    client.reset()
    for thread_id in thread_ids:
        saver.delete_thread(thread_id)
    return Outcome("info", "Started over: every ticket is back at v1 and the lab's threads are "
                   "empty. The other pages' threads were kept.")


# -- the timeline of write attempts ----------------------------------------------------------


@dataclass(frozen=True)
class WriteRow:
    """One write attempt on the ticket.

    Attributes:
        at: when (ISO 8601, UTC).
        who: ``colleague``, ``agent conflict-a``, ...
        sent: the ``If-Match`` it sent: the version it had read.
        answer: the new ETag, ``412``, or the stored answer of an idempotent replay.
        result: ``written``, ``refused``, ``replayed`` or ``not sent``.
        changes: what it asked for.
        why: why the API answered so, in plain words.
    """

    at: str
    who: str
    sent: str
    answer: str
    result: str
    changes: str
    why: str

    @property
    def clock(self) -> str:
        """The time of day, to the millisecond (``13:57:52.503``)."""
        when = _when(self.at)
        return when.strftime("%H:%M:%S.") + f"{when.microsecond // 1000:03d}"


@dataclass(frozen=True)
class _Attempt:
    thread: str
    at: str
    sent: str | None
    outcome: str
    changes: dict


def _attempts(graph: CompiledStateGraph, thread: str, thread_id: str, ticket_id: str):
    """Every run of the write node on a thread, on every branch, from its checkpoints."""
    # Materialize first: the saver holds its lock while its iterator is open (docs/architecture.md).
    snapshots = list(graph.get_state_history(thread_config(thread_id)))
    by_id = {s.config["configurable"]["checkpoint_id"]: s for s in snapshots}
    for snapshot in snapshots:
        if snapshot.metadata.get("source") != "loop" or not snapshot.parent_config:
            continue
        parent = by_id.get(snapshot.parent_config["configurable"]["checkpoint_id"])
        # The checkpoint after a "paused before write" one is where the write's outcome landed.
        if parent is None or tuple(parent.next) != ("write",):
            continue
        if parent.values.get("ticket_id") != ticket_id:
            continue
        yield _Attempt(thread, snapshot.created_at or "", _version(parent.values),
                       snapshot.values.get("outcome") or "", parent.values.get("changes") or {})


def _changes(changes: Mapping) -> str:
    return ", ".join(f"{key} -> {value}" for key, value in changes.items())


def _when(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)


def write_timeline(
    graph: CompiledStateGraph, threads: Mapping[str, str], ticket_id: str, history: list[dict]
) -> tuple[WriteRow, ...]:
    """Every write attempt on a ticket, oldest first.

    Args:
        graph: any build of the agent on the checkpoint saver (only its history is read).
        threads: thread name -> thread id of the agent threads to look at.
        ticket_id: the ticket.
        history: its accepted writes, oldest first (``GET /tickets/{id}/history``).
    """
    accepted = {int(entry["version"]): entry for entry in history}
    claimed: dict[int, _Attempt] = {}
    rows: list[WriteRow] = []
    attempts = sorted(
        (a for name, tid in threads.items() for a in _attempts(graph, name, tid, ticket_id)),
        key=lambda a: _when(a.at),
    )
    for attempt in attempts:
        who, sent = f"agent {attempt.thread}", attempt.sent or "(none)"
        changes = _changes(attempt.changes)
        written = _WRITTEN.search(attempt.outcome)
        if written:
            version = int(written["version"])
            entry = accepted.get(version)
            if entry and version not in claimed and entry.get("actor") == agent_actor(
                attempt.thread
            ):
                claimed[version] = attempt  # shown with the history row below
                continue
            rows.append(WriteRow(
                attempt.at, who, sent, f'"v{version}" (stored answer)', "replayed", changes,
                f"Same Idempotency-Key as the request that wrote v{version}: both resumed from "
                "the same paused checkpoint, so the API wrote nothing again and answered with "
                "the stored response. This branch believes it wrote.",
            ))
        elif attempt.outcome.startswith("not "):
            rows.append(WriteRow(attempt.at, who, sent, "not sent", "not sent", changes,
                                 explain_outcome(attempt.outcome, ticket_id, history, "")))
        else:
            answer = "412" if _STALE.match(attempt.outcome) else attempt.outcome[:3]
            # The way out is said once, on the agent's card, beside its button.
            rows.append(WriteRow(attempt.at, who, sent, answer, "refused", changes,
                                 explain_outcome(attempt.outcome, ticket_id, history, "")))
    for version, entry in accepted.items():
        attempt = claimed.get(version)
        actor = str(entry.get("actor") or "someone")
        sent = attempt.sent if attempt and attempt.sent else f'"v{version - 1}"'
        rows.append(WriteRow(
            str(entry.get("at") or ""), who_of(actor), sent, f'"v{version}"', "written",
            _changes(entry.get("changes") or {}),
            f"{sent} was still the ticket's current version, so the API wrote it: "
            f"{ticket_id} moved to v{version}.",
        ))
    # Written rows first on a tie: a refusal or replay always follows the write that caused it.
    rows.sort(key=lambda row: (_when(row.at), row.result != "written"))
    return tuple(rows)


def timeline_dot(rows: Iterable[WriteRow], ticket_id: str) -> str:
    """The ticket's versions as a chain, with each write as an arrow from the version it sent.

    Accepted writes move the chain on; a refused one ends in a red 412, a replayed one in a grey
    stored answer.
    """
    dot = graphviz.Digraph("writes", graph_attr={"rankdir": "LR", "bgcolor": "transparent",
                                                  "nodesep": "0.3", "ranksep": "0.5"})
    dot.attr("node", fontname="Helvetica", fontsize="11", style="filled,rounded", shape="box")
    dot.attr("edge", fontname="Helvetica", fontsize="9")
    rows = list(rows)
    top = max((int(_DIGITS.search(r.answer)[0]) for r in rows if r.result == "written"),
              default=1)
    for version in range(1, top + 1):
        dot.node(f"v{version}", f"{ticket_id} v{version}", fillcolor="#e8f1fb", color="#5b7fa6")
    for index, row in enumerate(rows):
        sent = _DIGITS.search(row.sent)
        if sent is None or row.result == "not sent":
            continue
        origin = f"v{sent[0]}"
        if row.result == "written":
            dot.edge(origin, f"v{int(sent[0]) + 1}", label=row.who, color="#2e7d32")
        elif row.result == "replayed":
            dot.node(f"r{index}", "stored answer\n(no write)", fillcolor="#eeeeee",
                     color="#888888")
            dot.edge(origin, f"r{index}", label=row.who, style="dotted", color="#888888")
        else:
            dot.node(f"x{index}", f"{row.answer}\nrefused", fillcolor="#fde2e4", color="#d1495b")
            dot.edge(origin, f"x{index}", label=row.who, style="dashed", color="#d1495b")
    return dot.source


# -- two resumes of one paused thread at the same time ---------------------------------------
