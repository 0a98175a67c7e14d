"""What the hostile-input guards cost an honest database: the same reads before and after them.

The guards (a read deadline, row and value limits, cycle detection, depth limits) must not slow
the honest path. The baseline is the engine as it was just before them (commit
:data:`BEFORE_GUARDS`, checked out into a temporary git worktree), run on the same files in the
same ``make bench`` run. Each side runs in a process of its own, its code on ``PYTHONPATH``:

- the tree and the sizes of the 10,000-checkpoint ticket thread (best of 7);
- decoding every checkpoint blob of that thread and of a 60-turn support chat (best of 5);
- ``playground history --json`` on the big thread, the whole process (best of 3).

Goal: each within 1.05x. Then the two deadlines alone, on the current code: the SQLite
progress handler (the tree with the handler set, against the same read with it removed) and the
Postgres ``statement_timeout`` (a tree read with it, against the same read with it off).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.worktree import check_out, drop

ROOT = Path(__file__).resolve().parents[1]
BEFORE_GUARDS = "a24dd0b"  # the last commit before the guards of hostile reads

MEASURE = r"""
import json, sqlite3, subprocess, sys, time
from playground.timetravel.decode import decode_checkpoint
from playground.timetravel.sizes import size_report
from playground.timetravel.tree import load_tree
try:
    from playground.places.door import open_storage
except ImportError:  # the baseline commit, before the storage seam
    from playground.timetravel.source import open_source as open_storage

big, chat, chat_thread = sys.argv[1], sys.argv[2], sys.argv[3]

def best(fn, repeat):
    times = []
    for _ in range(repeat):
        started = time.perf_counter(); fn(); times.append(time.perf_counter() - started)
    return min(times) * 1000

def blobs(path, thread):
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT type, checkpoint FROM checkpoints WHERE thread_id = ?",
                        (thread,)).fetchall()
    conn.close()
    return rows

source = open_storage(big)
found = {
    "tree": best(lambda: load_tree(source, "big"), 7),
    "sizes": best(lambda: size_report("big", source.records("big")), 7),
}
source.close()
for name, path, thread in (("decode_ticket", big, "big"), ("decode_chat", chat, chat_thread)):
    rows = blobs(path, thread)
    found[name] = best(lambda: [decode_checkpoint(t, b) for t, b in rows], 5)
found["history_json"] = best(lambda: subprocess.run(
    [sys.executable, "-m", "playground.cli", "history", big, "--thread", "big", "--json"],
    capture_output=True, check=True), 3)
print(json.dumps(found))
"""

ROWS = [
    ("tree", "checkpoint tree of the 10,000-checkpoint thread"),
    ("sizes", "sizes of the 10,000-checkpoint thread"),
    ("decode_ticket", "decode every blob of the 10,000-checkpoint ticket thread"),
    ("decode_chat", "decode every blob of a 60-turn support chat"),
    ("history_json", "playground history --json on the 10,000-checkpoint thread, whole process"),
]


def _measure(code_root: Path, big: Path, chat: Path, chat_thread: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    result = subprocess.run([sys.executable, "-c", MEASURE, str(big), str(chat), chat_thread],
                            cwd=code_root, env=env, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def _deadline_rows(big: Path) -> list[dict]:
    """The SQLite progress handler and the Postgres statement_timeout, each on and off."""
    import time

    from playground.places.door import open_storage
    from playground.timetravel.tree import load_tree

    def best(fn, repeat=7):
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
        return min(times) * 1000

    with_handler = open_storage(big)
    without = open_storage(big)
    without.conn.set_progress_handler(None, 0)
    on, off = best(lambda: load_tree(with_handler, "big")), best(lambda: load_tree(without, "big"))
    with_handler.close()
    without.close()
    rows = [{"name": "the SQLite read deadline (progress handler) on the 10,000-checkpoint tree",
             "ours": f"{on:.1f} ms", "baseline_value": f"{off:.1f} ms",
             "baseline": "the same read with the handler removed", "ratio": round(on / off, 3),
             "goal": "report"}]
    url = os.environ.get("PLAYGROUND_TEST_DATABASE_URL") or os.environ.get(
        "PLAYGROUND_DATABASE_URL")
    if not url:
        rows.append({"name": "the Postgres read deadline (statement_timeout)", "ours": "not run",
                     "baseline_value": "-", "baseline": "set PLAYGROUND_DATABASE_URL="
                     "postgresql://... to run it", "ratio": "n/a", "goal": "report"})
        return rows
    try:
        database = _postgres_thread(url, turns=200)
    except Exception as exc:  # the server went away: say so in the row
        rows.append({"name": "the Postgres statement_timeout", "ours": "not run",
                     "baseline_value": "-", "baseline": str(exc)[:100], "ratio": "n/a",
                     "goal": "report"})
        return rows
    try:
        timed = open_storage(database)
        untimed = open_storage(database)
        untimed.conn.execute("SET statement_timeout = 0")
        on = best(lambda: load_tree(timed, "big"), 5)
        off = best(lambda: load_tree(untimed, "big"), 5)
        timed.close()
        untimed.close()
    finally:
        _drop_database(url, database)
    rows.append({"name": "the Postgres read deadline (statement_timeout) on a 1,000-checkpoint "
                 "tree", "ours": f"{on:.1f} ms", "baseline_value": f"{off:.1f} ms",
                 "baseline": "the same read with statement_timeout off",
                 "ratio": round(on / off, 3), "goal": "report"})
    return rows


def _postgres_thread(url: str, turns: int) -> str:
    """A new database on ``url``'s server holding thread 'big' (5 checkpoints a turn)."""
    import uuid

    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    from bench.engine_scale import _graph
    from playground.places.postgres.connections import setup_postgres_tables
    from playground.places.settings import postgres_options

    name = f"bench_guards_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    database = url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(database, **postgres_options()) as conn:
        setup_postgres_tables(conn)
        graph = _graph(PostgresSaver(conn))
        config = {"configurable": {"thread_id": "big"}}
        for _ in range(turns):
            graph.invoke({"ticket_id": "t7"}, config)
            graph.invoke(None, config)
    return database


def _drop_database(url: str, database: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database.rsplit("/", 1)[1]}" WITH (FORCE)')


def run() -> dict:
    """The honest reads before and after the guards, then the deadlines alone."""
    from bench.decode_cost import _chat_thread
    from bench.engine_scale import make_thread

    with tempfile.TemporaryDirectory() as tmp:
        big, chat = Path(tmp) / "big.sqlite", Path(tmp) / "chat.sqlite"
        make_thread(big, 2000)
        _chat_thread(chat, 60)
        chat_thread = "chat"
        before_root = check_out(BEFORE_GUARDS, Path(tmp) / "before")
        rows = []
        if before_root is None:
            rows.append({"name": "the guards on honest reads", "ours": "not run",
                         "baseline_value": "-", "baseline": f"commit {BEFORE_GUARDS} is not in "
                         "this clone (a shallow one?)", "ratio": "n/a", "goal": "<= 1.05x"})
        else:
            try:
                after = _measure(ROOT, big, chat, chat_thread)
                before = _measure(before_root, big, chat, chat_thread)
            finally:
                drop(before_root)
            for key, name in ROWS:
                rows.append({"name": f"{name}, with the guards", "ours": f"{after[key]:.1f} ms",
                             "baseline_value": f"{before[key]:.1f} ms",
                             "baseline": f"the same read before them ({BEFORE_GUARDS})",
                             "ratio": round(after[key] / before[key], 3), "goal": "<= 1.05x"})
        rows += _deadline_rows(big)
    return {"rows": rows}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
