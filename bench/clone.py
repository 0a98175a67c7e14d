"""Clone of a 10,000-checkpoint thread against ``playground export`` of the same thread.

The thread is engine_scale's (read -> plan -> pause -> write, 2,000 turns of five checkpoints),
written by the real savers: SqliteSaver into a file, PostgresSaver into a fresh database. In the
same run each is exported as ``playground export`` does it (open the place, read the tree, export
every row, the JSON text) and cloned into a new SQLite file as ``playground clone`` does it (open
both places, copy the rows: byte for byte from SQLite, carried across kinds from Postgres).
Both sides are timed in this process, best of three; the whole commands once more as processes.
Goal: a clone costs at most 3x the export of the same thread.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

from bench import fresh_databases, not_run
from bench.engine_scale import _graph, make_thread
from playground.places.door import open_storage
from playground.timetravel.clone import clone_thread
from playground.timetravel.transfer import dumps_export, export_thread
from playground.timetravel.tree import load_tree

THREAD = "big"


def _postgres_thread(url: str, turns: int) -> None:
    """The same thread written by PostgresSaver (engine_scale's graph, ``turns`` turns)."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    from playground.places.postgres.connections import setup_postgres_tables
    from playground.places.settings import postgres_options

    with psycopg.connect(url, **postgres_options()) as conn:
        setup_postgres_tables(conn)
        graph = _graph(PostgresSaver(conn))
        config = {"configurable": {"thread_id": THREAD}}
        for turn in range(turns):
            graph.invoke({"ticket_id": "t7"}, config)
            graph.invoke(None, config)
            if turn % 200 == 0:
                print(f"\r  writing the Postgres thread: {turn}/{turns} turns", end="",
                      file=sys.stderr, flush=True)
    print(file=sys.stderr)


def _export(source: str) -> int:
    """What ``playground export`` does, its text thrown away; the text's length."""
    with closing(open_storage(source)) as storage:
        load_tree(storage, THREAD)
        return len(dumps_export(export_thread(storage, THREAD)))


def _clone(source: str, target: Path) -> int:
    """What ``playground clone`` does into a new file; checkpoints copied."""
    target.unlink(missing_ok=True)
    with closing(open_storage(source)) as reads, \
            closing(open_storage(str(target), writable=True, create=True)) as writes:
        return clone_thread(reads, writes, THREAD).checkpoints


def _best(work, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def _process_s(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def _rows(kind: str, source: str, folder: Path) -> list[dict]:
    target = folder / f"clone-of-{kind}.sqlite"
    count = _clone(source, target)
    export_s = _best(lambda: _export(source))
    clone_s = _best(lambda: _clone(source, target))
    cli = [sys.executable, "-m", "playground.cli"]
    export_cli_s = _process_s([*cli, "export", source, "--thread", THREAD])
    target.unlink()
    clone_cli_s = _process_s([*cli, "clone", source, "--thread", THREAD, "--to", str(target)])
    how = "byte for byte" if kind == "SQLite" else "carried across kinds"
    return [
        {"name": f"clone of a {count:,}-checkpoint thread from {kind} into a SQLite file "
                 f"({how})",
         "ours": f"{clone_s * 1000:.0f} ms", "baseline_value": f"{export_s * 1000:.0f} ms",
         "baseline": "playground export of the same thread, in process",
         "ratio": round(clone_s / export_s, 2), "goal": "<= 3x"},
        {"name": f"playground clone from {kind}, whole process",
         "ours": f"{clone_cli_s * 1000:.0f} ms", "baseline_value": f"{export_cli_s * 1000:.0f} ms",
         "baseline": "playground export of the same thread, whole process",
         "ratio": round(clone_cli_s / export_cli_s, 2), "goal": "<= 3x"},
    ]


def run(turns: int = 2000) -> dict:
    """Time clone against export from SQLite and from Postgres; ratio = clone / export."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "big.sqlite"
        make_thread(path, turns, lambda done, total: print(
            f"\r  writing the SQLite thread: {done}/{total} turns", end="", file=sys.stderr,
            flush=True), thread_id=THREAD)
        print(file=sys.stderr)
        with closing(sqlite3.connect(path)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows += _rows("SQLite", str(path), folder)
        urls = fresh_databases(("bench_clone_source",))
        if urls is None:
            rows += not_run("clone from Postgres", "no Postgres server answers")["rows"]
        else:
            _postgres_thread(urls[0], turns)
            rows += _rows("Postgres", urls[0], folder)
    return {"rows": rows}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
