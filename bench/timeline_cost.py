"""What the timeline costs on top of the tree, and how fast its chart draws.

- **The timeline of the 10,000-checkpoint thread** (bench/engine_scale.py's ticket thread on
  SQLite): ``load_tree`` then ``timeline`` on a fresh read, against ``load_tree`` alone, the two
  sides in turns, best of 5. Goal <= 1.2x.
- **The chart of a 1,000-step branch in Chromium**: History opened on such a thread, the time
  from opening it to every bar drawn (the page's whole run included). Goal <= 1 s.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from bench.engine_scale import make_thread
from playground.places.door import open_storage
from playground.timetravel.timeline import timeline
from playground.timetravel.tree import load_tree

TURNS = 2_000  # 10,000 checkpoints
ROUNDS = 5


def _tree(path: Path) -> None:
    load_tree(open_storage(path), "big")


def _tree_and_timeline(path: Path) -> int:
    storage = open_storage(path)
    return len(timeline(storage, load_tree(storage, "big")).steps)


CHART_TURNS = 200  # 1,000 checkpoints on one branch


def chart_seconds(rounds: int = 3) -> float | None:
    """Best time from opening History to every bar of the timeline chart drawn in Chromium, on
    a thread of 1,000 checkpoints (the page's whole run included); None without Chromium."""
    from playwright.sync_api import sync_playwright

    from playground.testing.browser import (
        ARGS,
        CHROMIUM,
        Tab,
        chromium_missing,
        playground_server,
    )

    if chromium_missing():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        make_thread(home / "checkpoints.sqlite", CHART_TURNS)
        best = None
        spec = f"{Path(__file__).parent / 'engine_scale.py'}:graph"
        with playground_server(home, "--graph", spec) as url, \
                sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(rounds):
                tab = Tab(browser.new_page(viewport={"width": 1400, "height": 1600}), url)
                tab.open()  # the session and its room first, as a user arrives
                started = time.perf_counter()
                tab.page.goto(f"{url}/history?thread=/big&room={tab.room}")
                marks = tab.page.locator(
                    '[data-testid="stVegaLiteChart"] path[role="graphics-symbol"]')
                marks.nth(CHART_TURNS * 4 - 2).wait_for(timeout=60_000)  # every step's bar
                took = time.perf_counter() - started
                best = took if best is None else min(best, took)
                tab.page.close()
            browser.close()
        return best


def run() -> dict:
    """The timeline's row, then the chart's."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite"
        print("  a 10,000-checkpoint thread ...", file=sys.stderr)
        make_thread(path, TURNS)
        steps = _tree_and_timeline(path)
        tree_s, both_s = [], []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            _tree(path)
            tree_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            _tree_and_timeline(path)
            both_s.append(time.perf_counter() - started)
    tree, both = min(tree_s), min(both_s)
    print("  the chart of 1,000 steps in Chromium ...", file=sys.stderr)
    chart = chart_seconds()
    return {"rows": [{
        "name": f"the tree and the timeline of the 10,000-checkpoint thread ({steps:,} steps)",
        "ours": f"{both * 1000:.0f} ms", "baseline_value": f"{tree * 1000:.0f} ms",
        "baseline": "the tree alone, same file, same run", "ratio": round(both / tree, 3),
        "goal": "<= 1.2x"}, {
        "name": "History opened on a 1,000-checkpoint thread to every bar of its timeline "
                "chart drawn in Chromium (the page's run included)",
        "ours": "not run" if chart is None else f"{chart * 1000:.0f} ms",
        "baseline_value": "1000 ms", "baseline": "the goal's bound",
        "ratio": "n/a" if chart is None else round(chart / 1.0, 3), "goal": "<= 1 s"}]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
