"""Child process of the crash tests: runs one agent turn and SIGKILLs itself at a named window.

The agent (graph, nodes, turns) and the saver ``open_saver`` returns are the real ones; the
kill is injected at a seam the tests are not about:

* ``after-read``: the client's GET has returned and the read node has not, so nothing of the read
  is saved; the checkpoint the read runs from (step 0) is on disk.
* ``after-read-writes``: the saver has stored the read's writes as pending writes of step 0 and
  dies instead of storing the checkpoint of the step that ran the read.
* ``after-patch``: the API has accepted the PATCH and the write node has not returned, so the
  checkpoint file holds nothing of the write.

Before dying the driver appends one JSON line to ``--witness`` (the window, what the API said, the
Idempotency-Key sent), so a test can tell a kill at the window from a crash anywhere else.
Exit status: killed by SIGKILL at the window; 3 when the turn ended without reaching it.

Run it from the repository root: ``python -m tests.playground.agent.crash_driver ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from playground.agent.client import ApiResult, TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import resume, start_turn, thread_config
from playground.savers import open_saver

WINDOWS = ("after-read", "after-read-writes", "after-patch")
NOT_REACHED = 3
SETTLE_TIMEOUT_S = 10.0


def die(witness: Path, window: str, **details: object) -> None:
    """Record the window reached, then SIGKILL this process: no cleanup, no flush, no atexit."""
    with witness.open("a", encoding="utf-8") as file:
        file.write(json.dumps({"window": window, **details}) + "\n")
        file.flush()
        os.fsync(file.fileno())
    os.kill(os.getpid(), signal.SIGKILL)


def step_saved(saver: SqliteSaver, thread_id: str, step: int) -> Callable[[], bool]:
    """A check that waits (bounded) for the thread's checkpoint of ``step`` to be on disk.

    LangGraph stores checkpoints from a background thread (durability "async"), so a node can
    run before the checkpoint it started from is stored. Waiting for it pins the window.
    """

    def wait() -> bool:
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while time.monotonic() < deadline:
            # Materialized: the saver holds its lock while a list() iterator is open.
            saved = list(saver.list(thread_config(thread_id)))
            if any(t.metadata.get("step") == step for t in saved):
                return True
            time.sleep(0.01)
        return False

    return wait


class DyingClient(TicketClient):
    """The real client, which kills the process once the API has answered at its window."""

    def __init__(
        self, *args: object, window: str, witness: Path, settled: Callable[[], bool],
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.window = window
        self.witness = witness
        self.settled = settled

    def get_ticket(self, ticket_id: str) -> ApiResult:
        result = super().get_ticket(ticket_id)
        if self.window == "after-read":
            die(self.witness, self.window, status=result.status, etag=result.etag,
                settled=self.settled())
        return result

    def patch_ticket(
        self,
        ticket_id: str,
        changes: dict,
        if_match: str | None,
        idempotency_key: str | None = None,
    ) -> ApiResult:
        result = super().patch_ticket(ticket_id, changes, if_match, idempotency_key)
        if self.window == "after-patch":
            die(self.witness, self.window, status=result.status, etag=result.etag,
                idempotency_key=idempotency_key, if_match=if_match)
        return result


def arm_saver(saver: SqliteSaver, window: str, witness: Path) -> None:
    """For ``after-read-writes``, make ``saver.put`` die instead of storing the read's checkpoint.

    It first waits (bounded) until the read's writes are stored: LangGraph saves them from
    another background thread, in parallel with this put. The method is replaced on this one
    instance, so the saver keeps the connection, timeout and setup ``open_saver`` gave it,
    exactly as the CLI has them.
    """
    if window != "after-read-writes":
        return
    real_put = saver.put

    def read_writes_stored(parent_config: dict) -> bool:
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while time.monotonic() < deadline:
            parent = saver.get_tuple(parent_config)
            if parent and any(w[1] == "etag" for w in parent.pending_writes or []):
                return True
            time.sleep(0.01)
        return False

    def put(config, checkpoint, metadata, new_versions):
        # The first checkpoint whose versions_seen names "read" is the one of the step that ran
        # it; ``config`` addresses its parent, the step the read's writes belong to.
        if "read" in checkpoint["versions_seen"]:
            die(witness, window, step=metadata.get("step"), settled=read_writes_stored(config))
        return real_put(config, checkpoint, metadata, new_versions)

    saver.put = put  # type: ignore[method-assign]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["turn", "resume"])
    parser.add_argument("--window", choices=WINDOWS, required=True)
    parser.add_argument("--witness", type=Path, required=True)
    parser.add_argument("--thread", required=True)
    parser.add_argument("--checkpoints", required=True)
    parser.add_argument("--api-url", required=True)
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--request", default="raise t7 to high")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with open_saver(args.checkpoints) as saver:
        # The read runs from step 0, whose checkpoint LangGraph may still be storing.
        settled = step_saved(saver, args.thread, 0)
        arm_saver(saver, args.window, args.witness)
        # The actor the CLI uses, so the API's history cannot tell the two processes apart.
        client = DyingClient(
            args.api_url, tenant=args.tenant, actor=f"agent:{args.thread}",
            window=args.window, witness=args.witness, settled=settled,
        )
        try:
            graph = build_agent(client, saver)
            if args.command == "turn":
                result = start_turn(graph, args.thread, args.request)
            else:
                result = resume(graph, args.thread)
        finally:
            client.close()
    print(f"window {args.window} not reached: {result.line}", file=sys.stderr)
    return NOT_REACHED


if __name__ == "__main__":
    sys.exit(main())
