"""Crash windows of the ticket agent: kill -9, a dead API, a locked checkpoint file.

Each test drives the agent in child processes (``crash_driver`` SIGKILLs itself at a named
window; the ``playground`` CLI resumes), against the real ticket API over a socket and real
SQLite files. The resume always runs in a fresh process: all it shares with the one that died is
the checkpoint file and the API.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.agent.nodes import idempotency_key
from playground.agent.turns import thread_config
from playground.places.settings import SQLITE_TIMEOUT_ENV

REPO = Path(__file__).resolve().parents[3]
REQUEST = "raise t7 to high"
PAUSED = 'read t7 at "v1", proposed {"priority": "high"}, waiting for the user'
WRITTEN = 'resumed with ticket t7: priority is high at "v2"'
PROCESS_TIMEOUT_S = 120
SERVER_START_TIMEOUT_S = 30
LOCK_TIMEOUT_S = "1"


def child_env(**extra: str) -> dict[str, str]:
    """The test's environment for a child, without a lock timeout unless one is given."""
    env = {key: value for key, value in os.environ.items() if key != SQLITE_TIMEOUT_ENV}
    env.update(extra)
    return env


def run_module(module: str, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=PROCESS_TIMEOUT_S,
        env=env or child_env(),
    )


def playground(*args: str, env: dict[str, str] | None = None):
    """The ``playground`` CLI in a fresh process."""
    return run_module("playground.cli", *args, env=env)


def agent_args(thread: str, checkpoints: Path, api_url: str, tenant: str) -> list[str]:
    return ["--thread", thread, "--checkpoints", str(checkpoints), "--api-url", api_url,
            "--tenant", tenant]


def crash(command: str, window: str, witness: Path, args: list[str]) -> dict:
    """Run ``crash_driver`` until it kills itself at ``window``; return what it recorded."""
    done = run_module(
        "tests.playground.agent.crash_driver", command, "--window", window,
        "--witness", str(witness), *args,
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr)
    records = [json.loads(line) for line in witness.read_text().splitlines()]
    assert [record["window"] for record in records] == [window]
    return records[0]


def saved_checkpoints(path: Path, thread: str) -> list[CheckpointTuple]:
    """The thread's checkpoints as a new connection sees them, newest first."""
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        return list(SqliteSaver(conn).list(thread_config(thread)))
    finally:
        conn.close()


def thread_state(path: Path, thread: str, client: TicketClient) -> tuple[dict, tuple[str, ...]]:
    """(values, next) of the thread, read by a new graph on a new connection."""
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        snapshot = build_agent(client, SqliteSaver(conn)).get_state(thread_config(thread))
        return dict(snapshot.values), tuple(snapshot.next)
    finally:
        conn.close()


def checkpoint_rows(path: Path, thread: str) -> set[tuple]:
    """Every stored byte of the thread's checkpoints and writes."""
    conn = sqlite3.connect(path)
    try:
        checkpoints = conn.execute(
            "SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints"
            " WHERE thread_id = ?", (thread,),
        ).fetchall()
        writes = conn.execute(
            "SELECT checkpoint_id, task_id, idx, channel, value FROM writes WHERE thread_id = ?",
            (thread,),
        ).fetchall()
    finally:
        conn.close()
    return {("checkpoint", *row) for row in checkpoints} | {("write", *row) for row in writes}


def integrity(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()


@contextmanager
def another_writer(path: Path, mode: str) -> Iterator[None]:
    """Hold SQLite's write lock on ``path`` from another connection until the block ends."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=10)
    try:
        conn.execute(f"BEGIN {mode}")
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


class ApiProcess:
    """The standalone ticket API (``python -m ticket_api.server``) on a tickets file."""

    def __init__(self, db: Path, log: Path) -> None:
        with log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ticket_api.server", "--port", "0", "--db", str(db),
                 "--log-level", "warning"],
                cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env=child_env(),
            )
        self.log = log
        self.url = self._wait_until_serving()

    def _wait_until_serving(self) -> str:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"ticket API exited during startup: {self.log.read_text()}")
            found = re.search(r"serving (http://\S+)", self.log.read_text())
            if found:
                try:
                    httpx.get(f"{found[1]}/tickets", headers={"X-Tenant": "probe"}, timeout=2)
                    return found[1]
                except httpx.TransportError:
                    pass  # printed before uvicorn accepts: try again
            time.sleep(0.05)
        pytest.fail(
            f"ticket API not serving within {SERVER_START_TIMEOUT_S} s: {self.log.read_text()}"
        )

    def stop(self) -> None:
        """SIGTERM (the server closes its store), SIGKILL if it does not exit in time."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)


@pytest.fixture
def api_processes() -> Iterator[list[ApiProcess]]:
    """Standalone APIs the test starts; whatever is still running is stopped afterwards."""
    started: list[ApiProcess] = []
    yield started
    for api in started:
        api.stop()


@pytest.fixture
def dead_api_url() -> Iterator[str]:
    # A port bound but never listening refuses connections, and no other process can take it
    # while the test runs.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def read_checkpoints(saved: list[CheckpointTuple]) -> list[CheckpointTuple]:
    """The checkpoints saved after the read node ran."""
    return [t for t in saved if "read" in t.checkpoint["versions_seen"]]


@pytest.mark.parametrize("retry", [["resume"], ["turn", REQUEST]], ids=["resume", "turn-again"])
def test_kill_after_read_reply_saves_nothing_of_it_and_the_retry_reads_again_and_pauses(
    retry, api_url, tenant, client, checkpoints, tmp_path
):
    args = agent_args("a", checkpoints, api_url, tenant)

    died = crash("turn", "after-read", tmp_path / "witness.jsonl", args)

    assert (died["status"], died["etag"], died["settled"]) == (200, '"v1"', True)
    saved = saved_checkpoints(checkpoints, "a")
    assert saved[0].metadata["step"] == 0
    # Nothing of the read reached the file: no checkpoint after it, no pending write of it.
    assert read_checkpoints(saved) == []
    assert [w for t in saved for w in t.pending_writes or [] if w[1] == "etag"] == []
    assert integrity(checkpoints) == [("ok",)]

    again = playground(retry[0], *args, *retry[1:])

    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == PAUSED
    values, waiting = thread_state(checkpoints, "a", client)
    assert waiting == ("write",)
    assert values["etag"] == '"v1"'
    # The read ran again, in the new process: now checkpoints record it.
    assert read_checkpoints(saved_checkpoints(checkpoints, "a"))
    ticket = client.get_ticket("t7")
    assert (ticket.etag, ticket.body["priority"]) == ('"v1"', "normal")
    assert client.history("t7") == []


def test_kill_after_read_writes_before_its_checkpoint_resume_finishes_turn_and_pauses(
    api_url, tenant, client, checkpoints, tmp_path
):
    args = agent_args("a", checkpoints, api_url, tenant)

    died = crash("turn", "after-read-writes", tmp_path / "witness.jsonl", args)

    assert (died["step"], died["settled"]) == (1, True)
    saved = saved_checkpoints(checkpoints, "a")
    assert [t.metadata["step"] for t in saved] == [0, -1]
    assert read_checkpoints(saved) == []
    # The read's result survives only as a pending write of step 0.
    assert ("etag", '"v1"') in [(w[1], w[2]) for w in saved[0].pending_writes]
    assert integrity(checkpoints) == [("ok",)]

    resumed = playground("resume", *args)

    # Not "nothing to resume": LangGraph applies the saved writes and runs plan, then pauses.
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == PAUSED
    values, waiting = thread_state(checkpoints, "a", client)
    assert waiting == ("write",)
    assert (values["etag"], values["changes"]) == ('"v1"', {"priority": "high"})
    ticket = client.get_ticket("t7")
    assert (ticket.etag, ticket.body["priority"]) == ('"v1"', "normal")
    assert client.history("t7") == []


def test_kill_after_accepted_patch_replays_with_same_key_and_writes_once(
    api_url, tenant, client, checkpoints, tmp_path
):
    args = agent_args("a", checkpoints, api_url, tenant)
    first = playground("turn", *args, REQUEST)
    assert first.stdout.strip() == PAUSED, first.stderr
    paused = saved_checkpoints(checkpoints, "a")

    died = crash("resume", "after-patch", tmp_path / "witness.jsonl", args)

    assert (died["status"], died["etag"], died["if_match"]) == (200, '"v2"', '"v1"')
    # The key is the one derived from the paused checkpoint, the one any resume starts from.
    paused_id = paused[0].config["configurable"]["checkpoint_id"]
    expected_key = idempotency_key({"configurable": {"thread_id": "a",
                                                      "checkpoint_map": {"": paused_id}}})
    assert died["idempotency_key"] == expected_key
    # The API has the write; the checkpoint file does not know it happened.
    assert len(client.history("t7")) == 1
    assert [t.config for t in saved_checkpoints(checkpoints, "a")] == [t.config for t in paused]
    assert thread_state(checkpoints, "a", client)[1] == ("write",)

    resumed = playground("resume", *args)

    # Same key, same body: the API answers with the recorded 200. A new key would have been
    # checked against the ticket's current version and refused with 412 (state holds "v1").
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == WRITTEN
    history = client.history("t7")
    assert [(entry["version"], entry["changes"]) for entry in history] == [
        (2, {"priority": "high"})
    ]
    values, waiting = thread_state(checkpoints, "a", client)
    assert waiting == ()
    assert (values["etag"], values["outcome"]) == ('"v2"', 'priority is high at "v2"')
    assert integrity(checkpoints) == [("ok",)]


def test_turn_while_api_is_down_says_unreachable_exits_1_and_a_later_turn_reads(
    api_url, dead_api_url, tenant, client, checkpoints
):
    down = playground("turn", *agent_args("a", checkpoints, dead_api_url, tenant), REQUEST)

    assert down.returncode == 1, down.stderr
    line = down.stdout.strip()
    assert line.startswith(f"read failed (not read: ticket API unreachable at {dead_api_url}")
    assert line.endswith('proposed {"priority": "high"}, waiting for the user')
    assert "Traceback" not in down.stderr
    values, waiting = thread_state(checkpoints, "a", client)
    assert waiting == ("write",)
    assert values["etag"] is None  # no version, so a resume could never write

    up = playground("turn", *agent_args("a", checkpoints, api_url, tenant), REQUEST)

    assert up.returncode == 0, up.stderr
    assert up.stdout.strip() == PAUSED
    assert client.history("t7") == []


def test_resume_while_api_is_down_keeps_thread_paused_and_writes_after_api_restarts_on_same_db(
    tenant, checkpoints, tmp_path, api_processes
):
    tickets_db = tmp_path / "tickets.sqlite"
    api_processes.append(ApiProcess(tickets_db, tmp_path / "api-1.log"))
    first_url = api_processes[0].url
    turn = playground("turn", *agent_args("a", checkpoints, first_url, tenant), REQUEST)
    assert turn.stdout.strip() == PAUSED, turn.stderr
    api_processes[0].stop()

    down = playground("resume", *agent_args("a", checkpoints, first_url, tenant))

    assert down.returncode == 1, down.stderr
    line = down.stdout.strip()
    assert line.startswith(f"ticket API unreachable at {first_url}")
    assert line.endswith("the thread is still paused at ('write',), resume when it is back")
    assert "Traceback" not in down.stderr
    offline = TicketClient(first_url, tenant=tenant)
    try:
        values, waiting = thread_state(checkpoints, "a", offline)
    finally:
        offline.close()
    assert waiting == ("write",)
    assert values["etag"] == '"v1"'

    # Back on the same tickets file; the thread holds no URL, so a new port is fine.
    api_processes.append(ApiProcess(tickets_db, tmp_path / "api-2.log"))
    second_url = api_processes[1].url
    resumed = playground("resume", *agent_args("a", checkpoints, second_url, tenant))

    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == WRITTEN
    client = TicketClient(second_url, tenant=tenant)
    try:
        assert [entry["version"] for entry in client.history("t7")] == [2]
        assert client.get_ticket("t7").body["priority"] == "high"
    finally:
        client.close()


def locked_message(command: str, checkpoints: Path) -> str:
    return (
        f"playground {command}: the checkpoint file {checkpoints} is locked by another writer "
        f"(waited {LOCK_TIMEOUT_S} s), so the turn did not finish: run the same command again "
        "when that writer is done"
    )


def test_resume_on_exclusively_locked_checkpoint_file_exits_1_cleanly_and_retry_writes_once(
    api_url, tenant, client, checkpoints
):
    args = agent_args("a", checkpoints, api_url, tenant)
    turn = playground("turn", *args, REQUEST)
    assert turn.stdout.strip() == PAUSED, turn.stderr
    before = checkpoint_rows(checkpoints, "a")
    short_wait = child_env(**{SQLITE_TIMEOUT_ENV: LOCK_TIMEOUT_S})

    # The lock is held until the child has exited, so it outlasts the child's busy timeout.
    with another_writer(checkpoints, "EXCLUSIVE"):
        locked = playground("resume", *args, env=short_wait)

    assert locked.returncode == 1
    assert locked.stdout == ""
    assert locked.stderr.strip() == locked_message("resume", checkpoints)
    assert integrity(checkpoints) == [("ok",)]
    assert checkpoint_rows(checkpoints, "a") == before
    assert thread_state(checkpoints, "a", client)[1] == ("write",)
    # The PATCH went out before the saver met the lock: the retry must replay it, not 412.
    assert len(client.history("t7")) == 1

    retry = playground("resume", *args, env=short_wait)

    assert retry.returncode == 0, retry.stderr
    assert retry.stdout.strip() == WRITTEN
    assert len(client.history("t7")) == 1
    assert before < checkpoint_rows(checkpoints, "a")
    assert integrity(checkpoints) == [("ok",)]


def test_turn_on_checkpoint_file_held_by_immediate_writer_exits_1_saves_nothing_then_succeeds(
    api_url, tenant, client, checkpoints
):
    earlier = playground("turn", *agent_args("a", checkpoints, api_url, tenant), REQUEST)
    assert earlier.stdout.strip() == PAUSED, earlier.stderr
    earlier_rows = checkpoint_rows(checkpoints, "a")
    args = agent_args("b", checkpoints, api_url, tenant)
    short_wait = child_env(**{SQLITE_TIMEOUT_ENV: LOCK_TIMEOUT_S})

    with another_writer(checkpoints, "IMMEDIATE"):
        locked = playground("turn", *args, "close t5", env=short_wait)

    assert locked.returncode == 1
    assert locked.stdout == ""
    assert locked.stderr.strip() == locked_message("turn", checkpoints)
    assert integrity(checkpoints) == [("ok",)]
    assert checkpoint_rows(checkpoints, "b") == set()
    assert checkpoint_rows(checkpoints, "a") == earlier_rows

    retry = playground("turn", *args, "close t5", env=short_wait)

    assert retry.returncode == 0, retry.stderr
    assert retry.stdout.strip() == (
        'read t5 at "v1", proposed {"status": "closed"}, waiting for the user'
    )
    assert checkpoint_rows(checkpoints, "a") == earlier_rows
    assert integrity(checkpoints) == [("ok",)]
    assert client.history("t5") == []
