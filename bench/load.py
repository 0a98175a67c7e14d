"""Workshop load: N attendees walk the whole agent path at once against one backend.

Every attendee runs in its own thread with its own API tenant and thread ids (as the
playground's rooms do), against ONE embedded ticket API and ONE checkpoint saver shared by
everybody, as the Streamlit server shares it across sessions. Per round, an attendee:

1. turn 1: ``start_turn("raise t7 to high")``, which must pause before ``write``;
2. restart: a new client and a newly compiled graph on the saver (``--restart graph``), or the
   UI's own restart: the shared saver's connection closed and reopened for everybody
   (``--restart shared``, what ``playground/ui/resources.restart_process`` does; on SQLite
   this closes the connection under other threads' queries, which can crash the process);
3. resume: the write, which must be accepted (one 200);
4. turn 2 (``raise t7 to urgent``), then a colleague edit (fresh GET's ETag, PATCH as actor
   ``colleague``), then resume (412), which must be refused: the expected 412 is not an error;
5. history, then replay from turn 1's first ``read`` checkpoint (re-reads, pauses again);
6. fork with edit on the replay's paused head: ``{"changes": {"priority": "low"}}`` as ``plan``,
   which runs the write from the fresh ETag and must be accepted.

The baseline is one attendee alone on the same backend, measured first in the same run. The
crowd starts together and clicks without pause (a closed loop: the worst case for a room).

At the end every thread's engine tree (``load_tree`` on the saver's file or URL) must equal
``get_state_history`` (ids, parents, next), and every ticket's version must be 1 + its accepted
writes, with every 200 the clients saw present in the API's history and nothing else there.

Run: ``python -m bench.load [--attendees 30] [--rounds 5] [--alone-rounds 20]
[--backend sqlite|postgres] [--restart graph|shared]``. Postgres needs
``PLAYGROUND_TEST_DATABASE_URL=postgresql://...``: checkpoints go to PostgresSaver on a pool,
tickets too when ``ticket_api.ticket_store_sqlite.open_store`` exists and the API accepts
the URL (else SQLite);
the result's ``backend`` says which.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph.state import CompiledStateGraph

import ticket_api.ticket_store_sqlite
from playground.agent.client import ApiResult, TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import TurnResult, resume, start_turn, thread_config
from playground.places.door import open_storage
from playground.places.settings import sqlite_timeout
from playground.runtime.time_travel import ReplayResult, fork_with_edit, replay_from
from playground.timetravel.tree import load_tree
from ticket_api.server import EmbeddedServer, start_embedded

ACTIONS = (
    "turn 1", "restart", "resume", "turn 2", "colleague edit", "resume (412)", "history",
    "replay", "fork",
)
DATABASE_URL_ENV = "PLAYGROUND_TEST_DATABASE_URL"
TICKET = "t7"
COLLEAGUE = "colleague"
ASSIGNEES = ("dara", "lin", "sam", "kofi")
_ETAG = re.compile(r'^(?:W/)?"v(\d+)"$')


def version_of(etag: str | None) -> int | None:
    """The ticket version an ETag names (``"v3"`` -> 3), or None."""
    match = _ETAG.match(etag or "")
    return int(match.group(1)) if match else None


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


# -- what the clients saw -------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """One PATCH a client sent and what the API answered."""

    tenant: str
    ticket_id: str
    actor: str
    status: int
    version: int | None
    changes: dict


class RecordingClient(TicketClient):
    """A TicketClient that logs every PATCH answer, so accepted writes can be audited later."""

    def __init__(self, base_url: str, tenant: str, actor: str, log: list[Write]) -> None:
        super().__init__(base_url, tenant=tenant, actor=actor)
        self.actor = actor
        self.log = log

    def patch_ticket(
        self,
        ticket_id: str,
        changes: dict,
        if_match: str | None,
        idempotency_key: str | None = None,
    ) -> ApiResult:
        result = super().patch_ticket(ticket_id, changes, if_match, idempotency_key)
        self.log.append(Write(
            self.tenant, ticket_id, self.actor, result.status, version_of(result.etag),
            dict(changes),
        ))
        return result


# -- the one backend ------------------------------------------------------------------------


class Backend:
    """One ticket API and one checkpoint saver shared by every attendee.

    Args:
        workdir: where the SQLite files go.
        kind: ``sqlite``, or ``postgres`` for checkpoints in PostgresSaver on a pool (the URL
            comes from ``PLAYGROUND_TEST_DATABASE_URL``).

    Raises:
        ValueError: ``postgres`` without the URL, or an unknown kind.
    """

    def __init__(self, workdir: Path, kind: str = "sqlite") -> None:
        self.kind = kind
        self.checkpoints_file = workdir / "checkpoints.sqlite"
        self.url = None
        if kind == "postgres":
            self.url = os.environ.get(DATABASE_URL_ENV, "")
            if not self.url.startswith(("postgresql://", "postgres://")):
                raise ValueError(
                    f"--backend postgres needs {DATABASE_URL_ENV}=postgresql://...; "
                    "or run with --backend sqlite"
                )
        elif kind != "sqlite":
            raise ValueError(f"unknown backend {kind!r}: choose sqlite or postgres")
        self.api, tickets = self._start_api(workdir)
        self._lock = threading.Lock()
        self._saver = self._open_saver()
        checkpoints = "Postgres (PostgresSaver, pool)" if self.url else "SQLite file (SqliteSaver)"
        self.label = f"checkpoints: {checkpoints}; tickets: {tickets}"

    def _start_api(self, workdir: Path) -> tuple[EmbeddedServer, str]:
        tickets_file = workdir / "tickets.sqlite"
        if self.url and hasattr(ticket_api.ticket_store_sqlite, "open_store"):
            try:
                api = start_embedded(self.url)
            except Exception as exc:  # the API refused the URL: keep the tickets on SQLite
                reason = f"{type(exc).__name__}: {exc}".replace(self.url, "<url>")
                return start_embedded(str(tickets_file)), f"SQLite file (Postgres: {reason})"
            return api, f"Postgres ({type(api.store).__name__})"
        return start_embedded(str(tickets_file)), "SQLite file (TicketStore)"

    def _open_saver(self) -> BaseCheckpointSaver:
        if self.url:
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool

            # PostgresSaver needs autocommit and dict rows; prepare_threshold=0 for poolers.
            pool = ConnectionPool(
                self.url, min_size=1, max_size=10, open=True,
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
            )
            saver = PostgresSaver(pool)
            saver.setup()
            return saver
        # As playground/ui/resources.py does: one connection for every session; SqliteSaver
        # serializes its calls with its own lock.
        conn = sqlite3.connect(
            str(self.checkpoints_file), check_same_thread=False, timeout=sqlite_timeout()
        )
        saver = SqliteSaver(conn)
        saver.setup()
        return saver

    @property
    def saver(self) -> BaseCheckpointSaver:
        """The saver every session uses now."""
        with self._lock:
            return self._saver

    def restart_shared(self) -> None:
        """Drop the shared saver and open a new one, as the UI's "Restart process" does."""
        with self._lock:
            old, self._saver = self._saver, self._open_saver()
        old.conn.close()

    def source_target(self) -> str:
        """What the engine opens to read the checkpoints: the file or the URL."""
        return self.url or str(self.checkpoints_file)

    def close(self, thread_ids: list[str]) -> None:
        """Stop the API and close the saver; on Postgres, delete this run's threads first."""
        try:
            if self.url:
                for thread_id in thread_ids:
                    self.saver.delete_thread(thread_id)
        finally:
            self.saver.conn.close()
            self.api.stop()


# -- one attendee ---------------------------------------------------------------------------


class Unexpected(Exception):
    """An action returned, but not with the outcome the workshop path expects."""


@dataclass
class Attendee:
    """One browser session: its room (tenant and thread prefix), its clients, what it saw."""

    room: str
    backend: Backend
    restart: str = "graph"
    timings: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)

    @property
    def tenant(self) -> str:
        return f"room-{self.room}"

    def client(self, actor: str) -> RecordingClient:
        """A client of this attendee's tenant that logs its writes."""
        return RecordingClient(self.backend.api.url, self.tenant, actor, self.writes)

    def run(self, rounds: int, done: Callable[[], None]) -> None:
        """Walk the path ``rounds`` times; an error ends that round, not the attendee."""
        for round_no in range(rounds):
            walk = _Walk(self, round_no)
            try:
                walk.run()
            except Exception as exc:
                self.errors.append(
                    f"{self.room} round {round_no}, {walk.action}: {type(exc).__name__}: {exc}"
                )
            finally:
                walk.close()
            done()


class _Walk:
    """One round of the workshop path on a new thread of the attendee's room."""

    def __init__(self, attendee: Attendee, round_no: int) -> None:
        self.a = attendee
        self.round_no = round_no
        self.thread_id = f"{attendee.room}/round-{round_no}"
        attendee.threads.append(self.thread_id)
        self.action = "start"
        self.agent: RecordingClient | None = None
        self._graph: CompiledStateGraph | None = None

    def graph(self) -> CompiledStateGraph:
        # With a restart that swaps the shared saver, every click compiles the agent on the
        # saver of the moment, as a Streamlit rerun does (PageContext.agent).
        if self.a.restart == "shared" or self._graph is None:
            self._graph = build_agent(self.agent, self.a.backend.saver)
        return self._graph

    def _do(self, action: str, fn: Callable[[], Any]) -> Any:
        self.action = action
        started = time.perf_counter()
        result = fn()
        self.a.timings[action].append(time.perf_counter() - started)
        return result

    def _expect(self, condition: bool, text: str) -> None:
        if not condition:
            raise Unexpected(text)

    def _patches_during(self, action: str, fn: Callable[[], Any]) -> tuple[Any, list[int]]:
        before = len(self.a.writes)
        result = self._do(action, fn)
        return result, [w.status for w in self.a.writes[before:]]

    def _expect_paused(self, turn: TurnResult, changes: dict) -> None:
        self._expect(turn.ok and turn.next == ("write",), f"did not pause: {turn.line}")
        self._expect(turn.values.get("changes") == changes, f"planned {turn.values.get('changes')}")

    def close(self) -> None:
        if self.agent is not None:
            self.agent.close()

    def run(self) -> None:
        """Walk the path once; raises on the first exception or unexpected outcome."""
        tid = self.thread_id
        self.agent = self.a.client("agent")
        self._graph = build_agent(self.agent, self.a.backend.saver)
        turn = self._do("turn 1", lambda: start_turn(self.graph(), tid, "raise t7 to high"))
        self._expect_paused(turn, {"priority": "high"})

        self._do("restart", self._restart)

        done, statuses = self._patches_during("resume", lambda: resume(self.graph(), tid))
        self._expect(done.ok and not done.next, done.line)
        self._expect(statuses == [200], f"PATCH answers {statuses}, expected [200]")

        turn = self._do("turn 2", lambda: start_turn(self.graph(), tid, "raise t7 to urgent"))
        self._expect_paused(turn, {"priority": "urgent"})

        edited = self._do("colleague edit", self._colleague_edit)
        self._expect(edited.status == 200, f"colleague PATCH answered {edited.status}")

        refused, statuses = self._patches_during("resume (412)", lambda: resume(self.graph(), tid))
        outcome = refused.values.get("outcome") or ""
        self._expect(not refused.ok and outcome.startswith("412"), refused.line)
        self._expect(statuses == [412], f"PATCH answers {statuses}, expected [412]")

        history = self._do(
            "history", lambda: list(self.graph().get_state_history(thread_config(tid)))
        )
        # Turn 1's first checkpoint due to run `read`: the oldest such one in the thread.
        old = [s for s in history if tuple(s.next) == ("read",)]
        self._expect(bool(old), "no checkpoint before read in the history")
        replayed, statuses = self._patches_during(
            "replay", lambda: replay_from(self.graph(), old[-1].config)
        )
        self._expect_replay(replayed, edited.etag, statuses)

        forked, statuses = self._patches_during("fork", lambda: fork_with_edit(
            self.graph(), replayed.head_config, {"changes": {"priority": "low"}}, as_node="plan"
        ))
        self._expect(not forked.paused, f"fork paused at {forked.next}")
        self._expect(forked.values.get("priority") == "low",
                     f"fork outcome {forked.values.get('outcome')!r}")
        self._expect(statuses == [200], f"PATCH answers {statuses}, expected [200]")

    def _expect_replay(self, replayed: ReplayResult, etag: str | None, statuses: list[int]) -> None:
        self._expect(replayed.next == ("write",), f"replay stopped at {replayed.next}")
        self._expect(replayed.fork_checkpoint_id is not None, "replay wrote no fork checkpoint")
        self._expect(replayed.values.get("etag") == etag,
                     f"replay read {replayed.values.get('etag')}, ticket is at {etag}")
        self._expect(statuses == [], f"replay sent PATCHes {statuses}")

    def _restart(self) -> None:
        # What a process restart loses: the client and the compiled graph; with "shared", the
        # server-wide saver and its connection too, as the UI's "Restart process" does.
        self.close()
        if self.a.restart == "shared":
            self.a.backend.restart_shared()
        self.agent = self.a.client("agent")
        self._graph = build_agent(self.agent, self.a.backend.saver)

    def _colleague_edit(self) -> ApiResult:
        colleague = self.a.client(COLLEAGUE)
        try:
            fresh = colleague.get_ticket(TICKET)
            if fresh.status != 200:
                return fresh
            assignee = ASSIGNEES[self.round_no % len(ASSIGNEES)]
            return colleague.patch_ticket(TICKET, {"assignee": assignee}, fresh.etag)
        finally:
            colleague.close()


# -- consistency ----------------------------------------------------------------------------


def check_thread(graph: CompiledStateGraph, source: Any, thread_id: str) -> list[str]:
    """Compare the engine's tree of a thread with LangGraph's own history of it.

    Returns:
        One line per difference (ids, parents or next nodes); empty when they agree.
    """
    expected = {}
    for snapshot in graph.get_state_history(thread_config(thread_id)):
        parent = (snapshot.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        expected[snapshot.config["configurable"]["checkpoint_id"]] = (
            parent, tuple(sorted(snapshot.next))
        )
    if not expected:
        return []  # the thread's first action failed before anything was written
    tree = load_tree(source, thread_id, all_details=True)
    found = {
        cid: (
            record.parent_id,
            tuple(sorted(tree.details[cid].next)) if cid in tree.details else None,
        )
        for cid, record in tree.nodes.items()
    }
    problems = []
    if set(found) != set(expected):
        problems.append(
            f"{thread_id}: ids differ (only in tree: {len(set(found) - set(expected))}, "
            f"only in history: {len(set(expected) - set(found))})"
        )
    for cid in sorted(set(found) & set(expected)):
        if found[cid] != expected[cid]:
            problems.append(
                f"{thread_id} {cid}: tree (parent, next) {found[cid]} != history {expected[cid]}"
            )
    return problems


def check_ticket(client: TicketClient, writes: list[Write], ticket_id: str = TICKET) -> list[str]:
    """Audit one ticket of one tenant against the writes its clients saw.

    The version must be 1 + the accepted writes in the API's history, the history's versions
    must run 2..version, every 200 a client saw must be there (same actor and changes), and no
    entry may be there that no client saw accepted.
    """
    ticket = client.get_ticket(ticket_id)
    entries = client.history(ticket_id)
    where = f"{client.tenant}/{ticket_id}"
    version = version_of(ticket.etag)
    problems = []
    if version != 1 + len(entries):
        problems.append(f"{where}: version {version} != 1 + {len(entries)} accepted writes")
    versions = [entry["version"] for entry in entries]
    if versions != list(range(2, len(entries) + 2)):
        problems.append(f"{where}: history versions {versions} are not 2..{len(entries) + 1}")
    in_history = {entry["version"]: (entry["actor"], entry["changes"]) for entry in entries}
    accepted = {
        w.version: (w.actor, w.changes)
        for w in writes
        if w.status == 200 and w.ticket_id == ticket_id and w.tenant == client.tenant
    }
    for seen_version, seen in sorted(accepted.items()):
        if in_history.get(seen_version) != seen:
            problems.append(
                f"{where}: accepted write v{seen_version} {seen} missing from history "
                f"(history has {in_history.get(seen_version)})"
            )
    unseen = sorted(set(in_history) - set(accepted))
    if unseen:
        problems.append(f"{where}: history has writes no client saw accepted: {unseen}")
    return problems


def check_consistency(backend: Backend, attendees: list[Attendee]) -> list[str]:
    """Every thread's tree vs get_state_history, and every ticket vs what its clients saw."""
    problems: list[str] = []
    source = open_storage(backend.source_target())
    auditor = TicketClient(backend.api.url, tenant="audit", actor="audit")
    graph = build_agent(auditor, backend.saver)
    try:
        for attendee in attendees:
            for thread_id in attendee.threads:
                try:
                    problems += check_thread(graph, source, thread_id)
                except Exception as exc:
                    problems.append(f"{thread_id}: {type(exc).__name__}: {exc}")
            client = TicketClient(backend.api.url, tenant=attendee.tenant, actor="audit")
            try:
                problems += check_ticket(client, attendee.writes)
            finally:
                client.close()
    finally:
        auditor.close()
        source.close()
    return problems


# -- the run --------------------------------------------------------------------------------


class _Progress:
    """One self-rewriting status line on stderr."""

    def __init__(self, label: str, total: int, attendees: list[Attendee], enabled: bool) -> None:
        self.label, self.total, self.attendees, self.enabled = label, total, attendees, enabled
        self.done = 0
        self.started = time.perf_counter()
        self._lock = threading.Lock()

    def tick(self) -> None:
        with self._lock:
            self.done += 1
            if self.enabled:
                errors = sum(len(a.errors) for a in self.attendees)
                print(
                    f"\r  load, {self.label}: {self.done}/{self.total} paths, {errors} errors, "
                    f"{time.perf_counter() - self.started:.0f} s",
                    end="", file=sys.stderr, flush=True,
                )

    def finish(self) -> None:
        if self.enabled:
            print(file=sys.stderr, flush=True)


def _walk_all(attendees: list[Attendee], rounds: int, label: str, progress: bool) -> float:
    """Run every attendee in its own thread, started together; return the wall time."""
    ticker = _Progress(label, len(attendees) * rounds, attendees, progress)
    gate = threading.Barrier(len(attendees) + 1)

    def body(attendee: Attendee) -> None:
        gate.wait()
        attendee.run(rounds, ticker.tick)

    threads = [
        threading.Thread(target=body, args=(a,), name=f"attendee-{a.room}") for a in attendees
    ]
    for thread in threads:
        thread.start()
    gate.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    ticker.finish()
    return time.perf_counter() - started


def _figures(attendees: list[Attendee]) -> dict[str, dict]:
    merged: dict[str, list[float]] = defaultdict(list)
    for attendee in attendees:
        for action, times in attendee.timings.items():
            merged[action].extend(times)
    return {
        action: {
            "p50_ms": statistics.median(merged[action]) * 1000,
            "p95_ms": percentile(merged[action], 95) * 1000,
            "count": len(merged[action]),
        }
        for action in ACTIONS
        if merged[action]
    }


def _ratio(ours: float | None, base: float | None) -> float | str:
    return round(ours / base, 2) if ours and base else "n/a"


def run(
    attendees: int = 30,
    rounds: int = 5,
    alone_rounds: int = 20,
    backend: str = "sqlite",
    restart: str = "graph",
    progress: bool = True,
) -> dict:
    """Time the workshop path for ``attendees`` at once vs one attendee alone; audit the result.

    Args:
        attendees: concurrent attendees, each in its own thread, tenant and threads.
        rounds: paths each attendee walks (one new thread per round).
        alone_rounds: paths the lone attendee walks first, as the baseline.
        backend: ``sqlite``, or ``postgres`` (needs ``PLAYGROUND_TEST_DATABASE_URL``).
        restart: ``graph`` (new client and graph on the shared saver) or ``shared`` (the UI's
            restart: the shared saver is closed and reopened for everybody).
        progress: print a status line on stderr.

    Returns:
        ``rows`` for bench/__main__.py, plus per-action figures, errors and the consistency
        verdict with its problems.
    """
    if restart not in ("graph", "shared"):
        raise ValueError(f"unknown restart {restart!r}: choose graph or shared")
    run_id = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        store = Backend(Path(tmp), backend)
        if progress:
            print(f"  load: {store.label}; restart={restart}", file=sys.stderr, flush=True)
        alone = Attendee(f"{run_id}-alone", store, restart)
        crowd = [Attendee(f"{run_id}-a{i:03d}", store, restart) for i in range(attendees)]
        everybody = [alone, *crowd]
        try:
            alone_s = _walk_all([alone], alone_rounds, "1 attendee alone", progress)
            crowd_s = _walk_all(crowd, rounds, f"{attendees} attendees", progress)
            problems = check_consistency(store, everybody)
        finally:
            store.close([t for a in everybody for t in a.threads])
    ours, base = _figures(crowd), _figures([alone])
    errors = [e for a in crowd for e in a.errors]
    consistency = "ok" if not problems else f"FAILED: {len(problems)} problems, {problems[0]}"
    actions = {
        action: {
            "crowd": ours.get(action),
            "alone": base.get(action),
            "p50_ratio": _ratio(ours.get(action, {}).get("p50_ms"),
                                base.get(action, {}).get("p50_ms")),
            "p95_ratio": _ratio(ours.get(action, {}).get("p95_ms"),
                                base.get(action, {}).get("p95_ms")),
        }
        for action in ACTIONS
    }
    suffix = "" if backend == "sqlite" else f", {backend}"
    rows = []
    for action in ACTIONS:
        mine, theirs = ours.get(action), base.get(action)
        rows.append({
            "name": f"load: {action} p95, {attendees} attendees{suffix}",
            "ours": _ms(mine),
            "baseline_value": _ms(theirs),
            "baseline": "1 attendee alone, same backend, measured first",
            "ratio": actions[action]["p95_ratio"],
            "goal": "report",
        })
    rows.append({
        "name": f"load: errors, {attendees} attendees x {rounds} rounds{suffix}",
        "ours": str(len(errors)),
        "baseline_value": str(len(alone.errors)),
        "baseline": "errors of 1 attendee alone",
        "ratio": "n/a",
        "goal": "0",
    })
    rows.append({
        "name": f"load: consistency{suffix}",
        "ours": consistency,
        "baseline_value": "ok",
        "baseline": "engine tree == get_state_history; ticket version == 1 + accepted writes",
        "ratio": "n/a",
        "goal": "ok",
    })
    return {
        "rows": rows,
        "backend": store.label,
        "restart": restart,
        "attendees": attendees,
        "rounds": rounds,
        "alone_rounds": alone_rounds,
        "wall_s": {"alone": round(alone_s, 2), "crowd": round(crowd_s, 2)},
        "actions": actions,
        "errors": errors,
        "alone_errors": alone.errors,
        "consistency": consistency,
        "problems": problems,
    }


def _ms(figures: dict | None) -> str:
    if not figures:
        return "no samples"
    return f"{figures['p95_ms']:.0f} ms (p50 {figures['p50_ms']:.0f} ms, n={figures['count']})"


def _print_report(result: dict) -> None:
    print(f"backend: {result['backend']}; restart={result['restart']}")
    print(
        f"{result['attendees']} attendees x {result['rounds']} rounds in "
        f"{result['wall_s']['crowd']} s; 1 alone x {result['alone_rounds']} rounds in "
        f"{result['wall_s']['alone']} s"
    )
    print(f"{'action':<16}{'p50 crowd':>11}{'p50 alone':>11}{'x':>7}"
          f"{'p95 crowd':>11}{'p95 alone':>11}{'x':>7}{'n':>6}")
    for action, figures in result["actions"].items():
        crowd, alone = figures["crowd"] or {}, figures["alone"] or {}
        print(
            f"{action:<16}{crowd.get('p50_ms', 0):>9.1f}ms{alone.get('p50_ms', 0):>9.1f}ms"
            f"{figures['p50_ratio']!s:>7}{crowd.get('p95_ms', 0):>9.1f}ms"
            f"{alone.get('p95_ms', 0):>9.1f}ms{figures['p95_ratio']!s:>7}"
            f"{crowd.get('count', 0):>6}"
        )
    print(f"errors: {len(result['errors'])} (alone: {len(result['alone_errors'])})")
    for error in (result["alone_errors"] + result["errors"])[:10]:
        print(f"  {error}")
    print(f"consistency: {result['consistency']}")
    for problem in result["problems"][:10]:
        print(f"  {problem}")


def main(argv: list[str] | None = None) -> int:
    """Run the load benchmark from the command line; exit 1 on errors or inconsistency."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--attendees", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--alone-rounds", type=int, default=20)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--restart", choices=("graph", "shared"), default="graph",
                        help="graph: new client and graph per attendee (default); shared: close "
                        "and reopen the server-wide saver, as the UI's Restart process does "
                        "(on SQLite this can crash the process)")
    args = parser.parse_args(argv)
    result = run(args.attendees, args.rounds, args.alone_rounds, args.backend, args.restart)
    _print_report(result)
    return 0 if not result["errors"] and not result["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
