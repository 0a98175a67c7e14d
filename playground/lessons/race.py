"""Two resumes of one paused thread at the same moment: the thread forks, the API writes once.

LangGraph raises nothing when two processes resume the same paused checkpoint: each writes its own
branch. What stops the second write is the API: the agent's Idempotency-Key (the same for both,
since it is derived from the thread and the checkpoint) makes the second PATCH a replay of the
first, and without the key its stale If-Match gets a 412.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver

from playground.agent.client import ApiResult, TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import TurnResult, resume, start_turn, thread_config
from playground.lessons.conflicts import agent_actor
from playground.places.door import open_storage
from playground.runtime.driven import driven
from playground.timetravel.display import tree_view, view_dot
from playground.timetravel.tree import load_tree

RACE_THREAD = "conflict-race"
GATE_SECONDS = 10.0


@dataclass(frozen=True)
class SentPatch:
    """One PATCH a racing resume sent, and what came back."""

    if_match: str | None
    idempotency_key: str | None
    status: int
    etag: str | None


class _GatedClient(TicketClient):
    """The agent's client, holding each PATCH at a barrier until both resumes have reached it."""

    def __init__(self, base_url: str, tenant: str, actor: str, send_key: bool) -> None:
        super().__init__(base_url, tenant=tenant, actor=actor)
        self.gate = threading.Barrier(2)
        self.send_key = send_key
        self.sent: list[SentPatch] = []
        self._lock = threading.Lock()

    def patch_ticket(
        self,
        ticket_id: str,
        changes: dict,
        if_match: str | None,
        idempotency_key: str | None = None,
    ) -> ApiResult:
        # A broken barrier means the other resume never got this far: send alone.
        with contextlib.suppress(threading.BrokenBarrierError):
            self.gate.wait(timeout=GATE_SECONDS)
        key = idempotency_key if self.send_key else None
        result = super().patch_ticket(ticket_id, changes, if_match, key)
        with self._lock:
            self.sent.append(SentPatch(if_match, key, result.status, result.etag))
        return result


@dataclass(frozen=True)
class RaceResult:
    """What two simultaneous resumes of one paused thread did.

    Attributes:
        thread_id: the thread.
        ticket_id: the ticket both tried to write.
        send_key: whether the Idempotency-Key was sent (the agent always sends it).
        paused_checkpoint: the checkpoint both resumed from.
        branches: the checkpoints made from it: two means the thread forked.
        lines: what each resume() reported.
        requests: the PATCHes sent, in the order their answers came back.
        new_writes: the API history entries the race added.
        tree_dot: the thread's checkpoint tree, the paused checkpoint highlighted.
    """

    thread_id: str
    ticket_id: str
    send_key: bool
    paused_checkpoint: str
    branches: tuple[str, ...]
    lines: tuple[str, ...]
    requests: tuple[SentPatch, ...]
    new_writes: tuple[dict, ...]
    tree_dot: str

    @property
    def forked(self) -> bool:
        """True when both resumes wrote a child of the paused checkpoint."""
        return len(self.branches) > 1

    @property
    def same_key(self) -> bool:
        """True when both PATCHes carried one Idempotency-Key."""
        keys = {r.idempotency_key for r in self.requests}
        return len(self.requests) == 2 and len(keys) == 1 and None not in keys

    @property
    def refused(self) -> tuple[SentPatch, ...]:
        """The PATCHes the API answered with 412."""
        return tuple(r for r in self.requests if r.status == 412)

    def explanation(self) -> str:
        """What happened, in plain words, built only from what was observed."""
        sent = ", ".join(sorted({r.if_match or "(none)" for r in self.requests}))
        parts = [
            f"Both resumes loaded the same paused checkpoint and each saved its own next "
            f"checkpoint: the thread now has {len(self.branches)} branches from that checkpoint, "
            "and LangGraph raised no error."
            if self.forked
            else f"The thread has {len(self.branches)} branch(es) from the paused checkpoint: "
            "this time the resumes did not overlap.",
            f"Both PATCHes sent If-Match {sent}.",
        ]
        writes = len(self.new_writes)
        if self.same_key:
            key = self.requests[0].idempotency_key
            parts.append(
                f"They also sent the same Idempotency-Key ({key}), because the agent derives it "
                "from the thread and the checkpoint it resumes from. "
                f"The API wrote {writes} time{'s' if writes != 1 else ''} and answered the other "
                "request with the stored response of that write, so both branches believe they "
                "wrote. Without the key, the second PATCH would have been refused with 412: its "
                "If-Match was no longer the ticket's version."
            )
        elif self.refused:
            parts.append(
                f"No Idempotency-Key was sent. The API wrote {writes} time"
                f"{'s' if writes != 1 else ''} and refused the other PATCH with 412: after the "
                "first write its If-Match was stale. The fork itself stays in the thread."
            )
        else:
            parts.append(f"The API wrote {writes} time{'s' if writes != 1 else ''}.")
        return " ".join(parts)


def race_resumes(
    api_url: str,
    tenant: str,
    saver: BaseCheckpointSaver,
    checkpoints: str | Path,
    thread_id: str,
    ticket_id: str = "t7",
    send_key: bool = True,
) -> RaceResult:
    """Pause a thread, then resume it twice at the same time from two Python threads.

    The thread is emptied first so its tree shows this run only. A ``threading.Barrier``
    releases both ``resume()`` calls together, and a second one holds each PATCH until both
    resumes are inside the write, so they overlap on any machine, as a double click or a retried
    request would in production.

    Args:
        api_url: the ticket API.
        tenant: the workspace's tenant.
        saver: the saver the agent checkpoints to.
        checkpoints: the SQLite file or Postgres URL behind ``saver``, read back for the tree.
        thread_id: the thread to race on.
        ticket_id: the ticket the agent writes.
        send_key: send the agent's Idempotency-Key (True, as the agent does) or drop it.

    Raises:
        ValueError: the first turn did not pause before the write (the ticket is unknown).
    """
    saver.delete_thread(thread_id)
    client = _GatedClient(api_url, tenant, agent_actor(thread_id.rsplit("/", 1)[-1]), send_key)
    try:
        current = client.get_ticket(ticket_id)
        before = {int(e["version"]) for e in client.history(ticket_id)}
        priority = "urgent" if current.body.get("priority") == "high" else "high"
        # Driven through the async API like every graph the pages run (on any saver).
        graph = driven(build_agent(client, saver, "etag"))
        started = start_turn(graph, thread_id, f"raise {ticket_id} to {priority}")
        if started.next != ("write",):
            raise ValueError(f"the first turn did not pause before the write: {started.line}")
        paused = graph.get_state(thread_config(thread_id)).config["configurable"]["checkpoint_id"]

        start = threading.Barrier(2)
        results: list[TurnResult | None] = [None, None]
        errors: list[BaseException] = []

        def run(slot: int) -> None:
            try:
                start.wait(timeout=GATE_SECONDS)
                results[slot] = resume(graph, thread_id)
            except BaseException as exc:  # re-raised below, in the caller's thread
                errors.append(exc)

        workers = [threading.Thread(target=run, args=(slot,)) for slot in (0, 1)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        if errors:
            raise errors[0]
        new_writes = tuple(
            e for e in client.history(ticket_id) if int(e["version"]) not in before
        )
        sent = tuple(client.sent)
    finally:
        client.close()

    source = open_storage(checkpoints)
    try:
        tree = load_tree(source, thread_id)
        dot = view_dot(tree_view(tree, selected=paused, storage=source)).source
    finally:
        source.close()
    return RaceResult(
        thread_id=thread_id,
        ticket_id=ticket_id,
        send_key=send_key,
        paused_checkpoint=paused,
        branches=tuple(tree.children.get(paused, ())),
        lines=tuple(r.line for r in results if r is not None),
        requests=sent,
        new_writes=new_writes,
        tree_dot=dot,
    )
