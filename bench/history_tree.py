"""History in Chromium with the git-graph tree, against History as it was with the Graphviz tree.

The baseline is the History page of :data:`BEFORE_TREE` (the last commit before the history tree,
whose tree is Graphviz's layout drawn by d3-graphviz, folded past 200 nodes), checked out into a
temporary git worktree and served by the same Python, on the same thread files, in the same run.

Each round opens History on the thread in a new tab of one browser profile (its cache warm from a
first visit that is not counted, as a person's is) and measures, from the navigation's start
(``performance.now()`` of the new document), the moment the tree's last visible row is drawn:

- the git graph: the label of the last row in view (``#979 plan`` on 1,000 checkpoints), its
  text set in the page by the tree's drawing;
- the Graphviz tree: its bottom node, the head (``#1000 write``), a ``<text>`` d3-graphviz adds.

Goals (issue 28): History on 1,000 checkpoints at most 0.5x the Graphviz page and at most 1.2 s;
on 10,000, drawn whole, at most 2x the 1,000 figure.

A third figure is the floor under both: a Streamlit page holding a title and one custom
component that writes one word, measured the same way (navigation to the word set), served by
the same Streamlit. No page of this app can draw sooner than that.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from bench.engine_scale import make_thread
from bench.worktree import check_out, drop

ROOT = Path(__file__).resolve().parents[1]
BEFORE_TREE = "5c43441"  # the last commit whose History draws the Graphviz tree
ROUNDS = 3
SMALL, LARGE = 200, 2_000  # turns of five checkpoints: 1,000 and 10,000
# Set before the page loads: the first moment a text starting with the target is drawn, as SVG
# text (a node added to the page) or on a canvas.
_WATCH = """(() => {
  const target = %(target)s;
  window.__drawn = undefined;
  const hit = () => { window.__drawn ??= performance.now(); };
  const fill = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    if (typeof text === 'string' && text.startsWith(target)) hit();
    return fill.call(this, text, ...rest);
  };
  const starts = (node) => (node.textContent || '').startsWith(target);
  new MutationObserver((changes) => {
    if (window.__drawn !== undefined) return;
    for (const change of changes) for (const node of change.addedNodes) {
      // an SVG <text> (the Graphviz tree), or the git graph's row label (text set in a span)
      if (node.nodeType === 3 && node.parentElement?.classList.contains('ht-name')
          && starts(node)) return hit();
      const texts = node.nodeType === 1 ? [node, ...node.querySelectorAll('text, .ht-name')] : [];
      if (texts.some(t => (t.tagName === 'text' || t.classList?.contains('ht-name'))
                          && starts(t))) return hit();
    }
  }).observe(document, {subtree: true, childList: true});
})()"""


def _seconds(browser, home: Path, target: str, code: Path | None) -> float:
    """Best of ROUNDS: History opened on thread ``big`` to the first drawing of ``target``,
    on the playground at ``code`` (a worktree), or this one."""
    import json

    from playground.testing.browser import Tab, playground_server

    spec = f"{ROOT / 'bench' / 'engine_scale.py'}:graph"
    env = {"PYTHONPATH": str(code)} if code else None
    best = None
    # The server runs `python -m playground.cli` in this process's directory, whose own
    # playground package comes first on sys.path: in the worktree's directory, the worktree's
    # code is the one served (PYTHONPATH alone would serve this checkout's on both sides).
    with contextlib.chdir(code or ROOT), playground_server(home, "--graph", spec, env=env) as url:
        # One browser profile, as a person's: the page's scripts come from its cache after
        # the first visit, which is not counted (nor is the server's first read of the thread).
        context = browser.new_context(viewport={"width": 1440, "height": 1600})
        context.add_init_script(_WATCH % {"target": json.dumps(target)})
        for round_ in range(ROUNDS + 1):
            tab = Tab(context.new_page(), url)
            tab.open()  # the session and its room first, as a user arrives
            tab.page.goto(f"{url}/history?thread=/big&room={tab.room}")
            tab.page.wait_for_function("window.__drawn !== undefined", timeout=120_000)
            took = tab.page.evaluate("window.__drawn") / 1000
            if round_:
                best = took if best is None else min(best, took)
            tab.page.close()
        context.close()
    return best


_FLOOR_APP = """
import streamlit as st

st.title("floor")
st.components.v2.component(
    "floor", js="export default function (c) { c.parentElement.textContent = 'drawn'; }",
    isolate_styles=False,  # in the page's DOM, as the history tree is
)(key="floor")
"""


def _floor_seconds(browser, home: Path) -> float:
    """Best of ROUNDS: a bare Streamlit page to its one component's word, the same way."""
    from playground.server_process import free_port, spawn, stop_process, wait_until_up

    app = home / "floor.py"
    app.write_text(_FLOOR_APP, encoding="utf-8")
    port = free_port()
    process = spawn([sys.executable, "-m", "streamlit", "run", str(app), "--server.headless",
                     "true", "--server.port", str(port), "--browser.gatherUsageStats", "false"],
                    env=dict(os.environ), log=home / "floor.log")
    url = f"http://127.0.0.1:{port}"
    best = None
    try:
        wait_until_up(url, process, "streamlit")
        context = browser.new_context(viewport={"width": 1440, "height": 1600})
        context.add_init_script("""new MutationObserver(() => {
          if (window.__drawn === undefined && document.body?.innerText.includes('drawn'))
            window.__drawn = performance.now();
        }).observe(document, {subtree: true, childList: true, characterData: true})""")
        for round_ in range(ROUNDS + 1):
            page = context.new_page()
            page.goto(url)
            page.wait_for_function("window.__drawn !== undefined", timeout=60_000)
            took = page.evaluate("window.__drawn") / 1000
            if round_:
                best = took if best is None else min(best, took)
            page.close()
        context.close()
    finally:
        stop_process(process)
    return best


def _bottom_row(checkpoints: int) -> str:
    """The label of the last row in view when History opens on the head (newest at the top,
    :data:`~playground.ui.components.history_tree.VISIBLE` rows in view)."""
    from playground.ui.components.history_tree import VISIBLE

    nodes = ("new input", "input", "read", "plan", "write")  # a turn's five checkpoints
    bottom = max(1, checkpoints - VISIBLE + 1)
    return f"#{bottom} {nodes[(bottom - 1) % 5]}"


def run() -> dict:
    """History on 1,000 and 10,000 checkpoints, git graph against Graphviz."""
    from playwright.sync_api import sync_playwright

    from playground.testing.browser import ARGS, CHROMIUM, chromium_missing

    name = "History opened on a 1,000-checkpoint thread, to the tree's last visible row drawn"
    if chromium_missing():
        return {"rows": [{"name": name, "ours": "not run", "baseline_value": "-",
                          "baseline": "Debian chromium is not installed", "ratio": "n/a",
                          "goal": "<= 0.5x and <= 1.2 s"}]}
    with tempfile.TemporaryDirectory() as tmp:
        before = check_out(BEFORE_TREE, Path(tmp) / "before")
        try:
            homes = {}
            for turns in (SMALL, LARGE):
                home = Path(tmp) / f"t{turns}"
                home.mkdir()
                print(f"  a {turns * 5:,}-checkpoint thread ...", file=sys.stderr)
                make_thread(home / "checkpoints.sqlite", turns)
                homes[turns] = home
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                found = {}
                for turns, home in homes.items():
                    n = turns * 5
                    print(f"  History on {n:,} checkpoints in Chromium ...", file=sys.stderr)
                    found[("ours", n)] = _seconds(browser, home, _bottom_row(n), None)
                    if before is not None:
                        found[("graphviz", n)] = _seconds(browser, home, f"#{n} ", before)
                print("  the floor: a bare Streamlit page with one component ...", file=sys.stderr)
                floor = _floor_seconds(browser, Path(tmp))
                browser.close()
        finally:
            if before is not None:
                drop(before)
    small, large = found[("ours", 1_000)], found[("ours", 10_000)]
    old_small = found.get(("graphviz", 1_000))
    old_large = found.get(("graphviz", 10_000))
    baseline = f"History at {BEFORE_TREE} (the Graphviz tree), same thread, same run"
    return {"rows": [{
        "name": name, "ours": f"{small * 1000:.0f} ms",
        "baseline_value": "not run" if old_small is None else f"{old_small * 1000:.0f} ms",
        "baseline": baseline if old_small else f"commit {BEFORE_TREE} is not in this clone",
        "ratio": "n/a" if old_small is None else round(small / old_small, 3),
        "goal": "<= 0.5x and <= 1.2 s"}, {
        "name": "History opened on a 10,000-checkpoint thread, drawn whole, to the tree's last "
                "visible row drawn",
        "ours": f"{large * 1000:.0f} ms", "baseline_value": f"{small * 1000:.0f} ms",
        "baseline": "ours on 1,000 checkpoints, same run", "ratio": round(large / small, 3),
        "goal": "<= 2x"}, {
        "name": "the Graphviz page on 10,000 checkpoints (folded to 200 nodes), for reference",
        "ours": f"{large * 1000:.0f} ms",
        "baseline_value": "not run" if old_large is None else f"{old_large * 1000:.0f} ms",
        "baseline": baseline if old_large else "not run",
        "ratio": "n/a" if old_large is None else round(large / old_large, 3),
        "goal": "report"}, {
        "name": "the floor: a bare Streamlit page (a title, one custom component writing one "
                "word), to the word drawn",
        "ours": f"{floor * 1000:.0f} ms",
        "baseline_value": "not run" if old_small is None else f"{old_small * 1000:.0f} ms",
        "baseline": "History at 5c43441 on 1,000 checkpoints, same run",
        "ratio": "n/a" if old_small is None else round(floor / old_small, 3),
        "goal": "report (History cannot draw before it)"}]}


if __name__ == "__main__":
    for row in run()["rows"]:
        print(row)
