"""The eight-process demo: every turn runs in a fresh Python process.

The processes share nothing but the SQLite checkpoint file and the ticket API, which is how a
real deployment resumes a conversation after a restart or on another machine.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from playground.agent.client import TicketClient

REQUEST = "raise t7 to high"
COLLEAGUE_CHANGE = {"priority": "urgent"}

# (heading, command, thread, schema); a None command is the colleague's edit.
STEPS: tuple[tuple[str, str | None, str, str], ...] = (
    ("turn 1, process {n}", "turn", "a", "etag"),
    ("turn 2, process {n}", "resume", "a", "etag"),
    ("turn 1, process {n}", "turn", "b", "etag"),
    ("  someone else edits t7 between the turns", None, "", ""),
    ("turn 2, process {n}", "resume", "b", "etag"),
    ("turn 1, process {n}", "turn", "c", "etag"),
    ("turn 1, process {n}", "turn", "d", "etag"),
    ("turn 2 of c, process {n}, graph with etag renamed to version", "resume", "c", "version"),
    ("turn 2 of d, process {n}, the rename as add-then-remove", "resume", "d", "both"),
)


def colleague_edit(api_url: str, tenant: str, ticket_id: str = "t7") -> str:
    """Change a ticket as another person would, through the API with a fresh ETag.

    Returns:
        The ETag the ticket has after the colleague's write.
    """
    client = TicketClient(api_url, tenant=tenant, actor="colleague")
    try:
        current = client.get_ticket(ticket_id)
        result = client.patch_ticket(ticket_id, COLLEAGUE_CHANGE, current.etag)
        if result.status != 200:
            raise RuntimeError(f"the colleague's edit failed: {result.status} {result.error}")
        return result.etag or ""
    finally:
        client.close()


def run_demo(
    api_url: str, checkpoints: Path, tenant: str, emit: Callable[[str], None] = print
) -> int:
    """Run the demo's steps, printing each process's line; return how many processes failed.

    A 412 or a stranded thread is the lesson, not a failure: only a crashed process counts.
    """
    client = TicketClient(api_url, tenant=tenant)
    client.reset()
    client.close()
    crashed, process = 0, 0
    for heading, command, thread, schema in STEPS:
        if command is None:
            emit(heading)
            colleague_edit(api_url, tenant)
            continue
        process += 1
        emit(heading.format(n=process))
        argv = [
            sys.executable, "-m", "playground.cli", command,
            "--thread", thread, "--schema", schema,
            "--checkpoints", str(checkpoints), "--api-url", api_url, "--tenant", tenant,
        ]
        if command == "turn":
            argv.append(REQUEST)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        for line in done.stdout.splitlines():
            emit(f"  {line}")
        if done.returncode not in (0, 1):
            crashed += 1
            emit(f"  process {process} crashed: {done.stderr.strip().splitlines()[-1:]}")
    return crashed
