"""Run every benchmark and write bench/RESULTS.md with the machine, the baselines and the ratios.

Each benchmark measures the playground and its baseline in the same run, on this machine, so the
ratio is what to compare across machines, not the absolute times.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from pathlib import Path

from bench import (
    agent_server,
    api_throughput,
    board_refresh,
    branches_rerun,
    clone,
    decode_cost,
    delta_channel,
    element_cost,
    engine_scale,
    error_groups,
    graph_run,
    guards,
    history_tree,
    load,
    many_threads,
    mcp_server,
    memory_page,
    not_run,
    other_writers,
    page_rerun,
    postgres_vs_sqlite,
    room,
    room_gate,
    storage_seam,
    timeline_cost,
    token_latency,
    turn_overhead,
    walks,
)

RESULTS = Path(__file__).parent / "RESULTS.md"


def machine() -> str:
    """One line naming the machine the figures come from."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), "
        f"Python {platform.python_version()}"
    )


def _api_rows() -> dict:
    """Reshape the API benchmark's result into table rows."""
    result = api_throughput.run()
    rows = []
    for mode, label in (("sequential", "1 client"), ("concurrent", f"{result['threads']} clients")):
        figures = result[mode]
        rows.append({
            "name": f"GET /tickets/t7 ({result['body_bytes']:,} B), {label}",
            "ours": f"{figures['ours_rps']:.0f} req/s",
            "baseline_value": f"{figures['bare_rps']:.0f} req/s",
            "baseline": "bare Starlette route, same bytes, same uvicorn",
            "ratio": round(figures["ratio"], 2),
            "goal": ">= 0.5x",
        })
    return {"rows": rows}


def _load_on_postgres() -> dict:
    """The load benchmark with PostgresSaver checkpoints, when a server is configured."""
    if not os.environ.get(load.DATABASE_URL_ENV):
        why = f"set {load.DATABASE_URL_ENV}=postgresql://... to run it"
        return not_run("load on Postgres", why)
    return load.run(backend="postgres")


BOUNDS = """## What bounds a room

The room rows come from `bench/room.py`: tabs speaking Streamlit's websocket protocol, all
clicking at once (or, in the rows "clicks over 10 s", each a seeded moment drawn evenly from the
10 s after the cue, as a room's people press a button), timed from the message to the run's
`script_finished`. Their "server CPU"
is the CPU the playground's processes (the Streamlit server, its ticket API, the replicas)
spent per action.

One server: every session's script runs in a thread of one Python process, so a burst of N
clicks shares one interpreter lock and cannot finish before about N x (the Streamlit process's
CPU per action) of one core; the ticket API, a process of its own, uses the other core. That is
the bound of the 30-session rows, and p50 sits close to p95 because the runs of a burst share
the lock until they all end. The CPU of an action has three parts:
- Streamlit's own cost of a script run and of each element it sends (the "Streamlit run" and
  "one element" rows: a fixed few milliseconds per run, about 0.1 ms per element, a third of it on
  the event loop that sends the element). A click inside an `st.fragment` reruns and resends
  only that fragment: the Agent panel, the Conflicts lab (its race is a fragment of its own) and
  the History explorer are fragments, so the sidebar, the navigation and the page's header are
  not redrawn by a click. Profiled with py-spy on one session walking History (Previous,
  Replay, Fork), Streamlit's event loop handling each run's messages (one callback per element,
  then the websocket frame) was 38% of the server's CPU, and the page's runs (its code and
  the Streamlit calls it makes) and callbacks 41%.
- LangGraph's own run (`invoke`, `update_state`, `get_state`: the turn-overhead row's bare
  LangGraph side), a few milliseconds per turn.
- The ticket API calls (about 0.3 ms of client CPU each with urllib3; httpx took 0.77 ms).

Run turn costs the Streamlit process about 20-25 ms, a Conflicts click 25-35 ms, Replay and
Fork with edit 30-42 ms (Fork is update_state plus a run plus reading the new branch back, then
the explorer with its form of one input per state key): 30 x 35 ms is about 1.05 s, which is
where Fork's p95 lands. The rows vary by 10-25% between runs on this machine.

Replicas split the lock, but on this 2-core machine the replicas, the API, PostgreSQL, nginx and
the load driver share the same two cores: 100 sessions x 25-45 ms of CPU per action over 2
cores is 1.3-2.3 s before any waiting, so the 100-session rows are bound by the machine's CPU,
not by one process. The database is not the bound: 0 errors, and the pool is never exhausted
(each page borrows a connection per query).
"""


def _ratio(value: object) -> str:
    return f"{value}x" if isinstance(value, int | float) else str(value)


def main() -> int:
    benches = [
        ("turn overhead", turn_overhead.run),
        ("API throughput", _api_rows),
        ("engine on 10,000 checkpoints", engine_scale.run),
        ("safe decoder vs JsonPlusSerializer", decode_cost.run),
        ("a 1,000-turn chat on DeltaChannel, against LangGraph's get_state", delta_channel.run),
        ("the guards of hostile reads on honest ones", guards.run),
        ("one storage seam instead of twins, and one door", storage_seam.run),
        ("LangGraph.js files against Python's", other_writers.run),
        ("an Agent Server's threads and runs, against langgraph-sdk alone", agent_server.run),
        ("where the time and tokens went: the timeline and its chart", timeline_cost.run),
        ("the history tree in Chromium, against the Graphviz tree", history_tree.run),
        ("100,000 threads: the first page and the failed ones", many_threads.run),
        ("100,000 threads: the failed ones grouped by error", error_groups.run),
        ("playground mcp against the engine calls its tools wrap", mcp_server.run),
        ("two actions as walks through the code, before and after the door", walks.run),
        ("History page rerun", page_rerun.run),
        ("your graph through the playground", graph_run.run),
        ("compare two branches; a re-run from its recording", branches_rerun.run),
        ("clone a 10,000-checkpoint thread, against playground export", clone.run),
        ("Memory page on 10,000 items", memory_page.run),
        ("first token on the page", token_latency.run),
        ("what a Streamlit run costs", element_cost.run),
        ("a room in Streamlit's protocol", room.run),
        ("the room's gate on every request", room_gate.run),
        ("the facilitator's board: one refresh, server-side", board_refresh.run),
        ("30 attendees at once (engine only)", load.run),
        ("30 attendees at once, Postgres", _load_on_postgres),
        ("Postgres vs SQLite", postgres_vs_sqlite.run),
    ]
    rows = []
    for index, (name, run) in enumerate(benches, 1):
        print(f"[{index}/{len(benches)}] {name} ...", file=sys.stderr, flush=True)
        rows.append(run())
    lines = [
        "# Benchmark results",
        "",
        f"Run {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {machine()}.",
        "Each row measures the playground and its baseline in the same run.",
        "",
        "| benchmark | ours | baseline | ratio | goal |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        for line in row.get("rows", [row]):
            lines.append(
                f"| {line['name']} | {line['ours']} | {line['baseline_value']} "
                f"({line['baseline']}) | {_ratio(line['ratio'])} | {line['goal']} |"
            )
    lines += ["", BOUNDS]
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
