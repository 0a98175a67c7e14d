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

from bench import api_throughput, turn_overhead

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


def main() -> int:
    benches = [("turn overhead", turn_overhead.run), ("API throughput", api_throughput.run)]
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
                f"({line['baseline']}) | {line['ratio']}x | {line['goal']} |"
            )
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
