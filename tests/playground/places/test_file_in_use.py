"""A checkpoint file another process keeps writing (the user's app, running beside the
playground): every read succeeds, in the engine, the CLI and a page. A read that meets the
writer's lock or a moment of a half-written page is tried again within its deadline."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from contextlib import closing

import pytest

from playground.places.door import open_place
from playground.timetravel.tree import load_tree

WRITER = textwrap.dedent('''
    import sqlite3, sys, time
    from typing import TypedDict
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    class State(TypedDict, total=False):
        count: int
        note: str

    def step(state: State) -> dict:
        return {"count": state.get("count", 0) + 1, "note": "x" * 2000}

    def check(state: State) -> dict:
        return {}

    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_node("check", check)
    builder.add_edge(START, "step")
    builder.add_edge("step", "check")
    conn = sqlite3.connect(sys.argv[1], check_same_thread=False)
    graph = builder.compile(checkpointer=SqliteSaver(conn))
    print("ready", flush=True)
    stop = time.monotonic() + float(sys.argv[2])
    turn = 0
    while time.monotonic() < stop:
        graph.invoke({"count": turn}, {"configurable": {"thread_id": f"t{turn % 3}"}})
        turn += 1
    print(turn, flush=True)
''')


@pytest.fixture
def busy_file(tmp_path):
    """A file a stock SqliteSaver in another process writes to, turn after turn."""
    path = tmp_path / "app.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "120"],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline().strip() == "ready"
    deadline = time.monotonic() + 60
    while not path.exists() or path.stat().st_size < 50_000:  # a few turns in
        assert time.monotonic() < deadline, "the writer wrote nothing"
        time.sleep(0.05)
    try:
        yield path
    finally:
        writer.kill()
        writer.wait()


def test_a_hundred_engine_reads_of_a_file_being_written_all_succeed(busy_file):
    failures, turns_seen = [], set()
    for _ in range(100):
        try:
            with closing(open_place(busy_file).reads()) as reads:
                threads = reads.threads()
                tree = load_tree(reads, threads[0].thread_id, all_details=True)
                reads.values(threads[0].thread_id, tree.head)
                turns_seen.add(sum(t.checkpoints for t in threads))
        except Exception as exc:  # any error a page or command would show
            failures.append(f"{type(exc).__name__}: {exc}")
    assert failures == []
    assert len(turns_seen) > 1  # the file did change under the reads


def test_cli_reads_of_a_file_being_written_all_succeed(busy_file):
    results = [subprocess.run([sys.executable, "-m", "playground.cli", command, str(busy_file),
                               *extra], capture_output=True, text=True, timeout=120)
               for command, extra in [("threads", ())] * 5 + [("history", ("--thread", "t0"))] * 5]

    assert [(r.returncode, r.stderr) for r in results] == [(0, "")] * 10


def test_a_read_that_fails_for_a_moment_is_tried_again(tmp_path, monkeypatch):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "a.sqlite"
    with closing(sqlite3.connect(path)) as conn:
        SqliteSaver(conn).setup()
    failures = iter([sqlite3.OperationalError("disk I/O error"),
                     sqlite3.OperationalError("database is locked")])

    def flaky() -> str:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return "read"

    with closing(open_place(path).reads()) as reads:
        assert reads._retrying(flaky) == "read"
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            reads._retrying(lambda: reads.conn.execute("SELECT * FROM missing_table"))


def test_a_read_that_keeps_failing_stops_at_its_deadline(tmp_path, monkeypatch):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from playground.timetravel.limits import reset_limits

    monkeypatch.setenv("PLAYGROUND_READ_TIMEOUT", "0.3")
    reset_limits()
    path = tmp_path / "a.sqlite"
    with closing(sqlite3.connect(path)) as conn:
        SqliteSaver(conn).setup()
    calls = []

    def locked() -> None:
        calls.append(1)
        raise sqlite3.OperationalError("database is locked")

    try:
        with closing(open_place(path).reads()) as reads, pytest.raises(
                sqlite3.OperationalError, match="locked"):
            reads._retrying(locked)
    finally:
        monkeypatch.delenv("PLAYGROUND_READ_TIMEOUT")
        reset_limits()
    assert len(calls) > 1
