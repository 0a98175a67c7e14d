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
    api_throughput,
    decode_cost,
    engine_scale,
    graph_run,
    load,
    not_run,
    page_rerun,
    postgres_vs_sqlite,
    room,
    turn_overhead,
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


def _ratio(value: object) -> str:
    return f"{value}x" if isinstance(value, int | float) else str(value)


def main() -> int:
    benches = [
        ("turn overhead", turn_overhead.run),
        ("API throughput", _api_rows),
        ("engine on 10,000 checkpoints", engine_scale.run),
        ("safe decoder vs JsonPlusSerializer", decode_cost.run),
        ("History page rerun", page_rerun.run),
        ("your graph through the playground", graph_run.run),
        ("a room in Streamlit's protocol", room.run),
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
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
