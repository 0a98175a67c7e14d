"""What the timeline costs on top of the tree, and how fast its chart draws.

- **The timeline of the 10,000-checkpoint thread** (bench/engine_scale.py's ticket thread on
  SQLite), against the tree alone. Each round opens the file afresh and reads the tree alone
  (``load_tree``, as ``playground history`` does); then opens it afresh again and reads it as a
  page that shows the timeline does: the tree with each checkpoint's time in the same pass
  (``load_tree(..., times=True)``), then the timeline of its head's branch (``timeline``).
  The timeline's cost is the second minus the first (best of 9 each); goal <= 1.2x the tree's.
  The whole of the second against the first is reported beside it: read that way, 1.2x would
  leave the timeline a fifth of a tree read for what a tree read never touches (every write
  row's owner and every blob's head).
- **The chart of a 1,000-step branch in Chromium**: History opened on such a thread; the chart's
  own drawing, from its element mounting (its rows arrived) to its last bar (goal <= 1 s), and
  the whole page's time from opening it to that bar (reported: the tree and the inspector
  share the page and the browser's one thread).
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
ROUNDS = 9


def _tree_alone(path: Path) -> float:
    """Seconds to read the tree from a freshly opened file, as ``playground history`` does."""
    storage = open_storage(path)
    started = time.perf_counter()
    load_tree(storage, "big")
    return time.perf_counter() - started


def _tree_and_timeline(path: Path) -> tuple[float, float, int]:
    """Seconds to read the tree with its times from a freshly opened file, as a page showing
    the timeline does, then its timeline; and the timeline's steps."""
    storage = open_storage(path)
    started = time.perf_counter()
    tree = load_tree(storage, "big", times=True)
    read = time.perf_counter()
    steps = len(timeline(storage, tree).steps)
    return read - started, time.perf_counter() - read, steps


CHART_TURNS = 200  # 1,000 checkpoints on one branch
CHART = ".tl"  # the timeline drawing's root (frontend/drawings/src/timeline.js)
BAR = ".tl-mark"  # one step's bar (or an instant's tick)
# Set in the page before it loads: when the chart's element first appears (its data has reached
# the browser and its component mounted) and when its last bar is drawn.
_WATCH = """(() => {
  window.__chart = {};
  new MutationObserver(() => {
    const chart = document.querySelector('%(chart)s');
    if (!chart) return;
    window.__chart.mounted ??= performance.now();
    if (chart.querySelectorAll('%(bar)s').length >= %(bars)d)
      window.__chart.drawn ??= performance.now();
  }).observe(document, {subtree: true, childList: true});
})()"""


def chart_seconds(rounds: int = 3) -> tuple[float, float] | None:
    """On History opened on a thread of 1,000 checkpoints in Chromium, the best of ``rounds``:
    the chart's own drawing (from its element mounting, its data arrived, to its last bar
    drawn) and the whole page's (from opening History, the page's run included); None without
    Chromium."""
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
    bars = CHART_TURNS * 4 - 1  # every step's bar (the first checkpoint is no step)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        make_thread(home / "checkpoints.sqlite", CHART_TURNS)
        draw = page = None
        spec = f"{Path(__file__).parent / 'engine_scale.py'}:graph"
        with playground_server(home, "--graph", spec) as url, \
                sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(rounds):
                tab = Tab(browser.new_page(viewport={"width": 1400, "height": 1600}), url)
                tab.open()  # the session and its room first, as a user arrives
                tab.page.add_init_script(_WATCH % {"chart": CHART, "bar": BAR, "bars": bars})
                started = time.perf_counter()
                tab.page.goto(f"{url}/history?thread=/big&room={tab.room}")
                tab.page.locator(CHART).locator(BAR).nth(bars - 1).wait_for(timeout=60_000)
                took = time.perf_counter() - started
                tab.page.wait_for_function("window.__chart.drawn !== undefined")
                marks = tab.page.evaluate("window.__chart")
                drawing = (marks["drawn"] - marks["mounted"]) / 1000
                draw = drawing if draw is None else min(draw, drawing)
                page = took if page is None else min(page, took)
                tab.page.close()
            browser.close()
        return draw, page


def run() -> dict:
    """The timeline's row, then the chart's."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.sqlite"
        print("  a 10,000-checkpoint thread ...", file=sys.stderr)
        make_thread(path, TURNS)
        _tree_and_timeline(path)  # the file in the page cache, as for every round after
        alone, paged = [], []
        for _ in range(ROUNDS):
            alone.append(_tree_alone(path))
            paged.append(_tree_and_timeline(path))
    tree = min(alone)
    timed = min(r[0] for r in paged)
    both = min(r[0] + r[1] for r in paged)
    line = both - tree  # what the timeline adds to opening the thread
    steps = paged[0][2]
    print("  the chart of 1,000 steps in Chromium ...", file=sys.stderr)
    chart = chart_seconds()
    draw, page = chart if chart else (None, None)
    return {"rows": [{
        "name": f"the timeline of the 10,000-checkpoint thread ({steps:,} steps): what it adds "
                f"to opening the thread (the times in the tree's pass, {(timed - tree) * 1000:.0f}"
                " ms, and the timeline)",
        "ours": f"{line * 1000:.0f} ms", "baseline_value": f"{tree * 1000:.0f} ms",
        "baseline": "the tree alone (load_tree), same file, same rounds",
        "ratio": round(line / tree, 3), "goal": "<= 1.2x"}, {
        "name": "opening that thread with its timeline, whole (the tree with its times, then "
                "the timeline)",
        "ours": f"{both * 1000:.0f} ms", "baseline_value": f"{tree * 1000:.0f} ms",
        "baseline": "the tree alone, same rounds", "ratio": round(both / tree, 3),
        "goal": "report"}, {
        "name": "the timeline chart of a 1,000-step branch drawn in Chromium, from its data "
                "arriving (the chart's element mounted) to its last bar",
        "ours": "not run" if draw is None else f"{draw * 1000:.0f} ms",
        "baseline_value": "1000 ms", "baseline": "the goal's bound",
        "ratio": "n/a" if draw is None else round(draw / 1.0, 3), "goal": "<= 1 s"}, {
        "name": "History opened on that thread to the chart's last bar (the page's run, the "
                "tree and the inspector included)",
        "ours": "not run" if page is None else f"{page * 1000:.0f} ms",
        "baseline_value": "-", "baseline": "reported, the whole page", "ratio": "n/a",
        "goal": "report"}]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
