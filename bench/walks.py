"""Two user actions as walks through the code, before and after the door: how many times each
switches from one of the playground's modules to another, how many calls cross between
modules, and how many times it opens the database.

- History's "Edit this state and fork" on the ticket agent's paused thread (an edited field,
  Fork with edit), through Streamlit's AppTest as the page runs it;
- Inspect's Open on the bundled sample database, the same way (an upload takes the same path
  after its copy is saved).

A hop is a call from a function of one playground module into a function of another, on the
thread that runs the page, outside the graph's own run (what LangGraph does once the fork runs
is the same on both sides). The fork's walk counts from the page's fork callback until it
returns; Inspect's counts the whole click, since the second open was the page body's. Each
side runs in a process of its own with its code on ``PYTHONPATH``: the tree now, and
:data:`BEFORE_DOOR` in a temporary git worktree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE_DOOR = "05f0841"

WALK = r"""
import json, os, sqlite3, sys, tempfile, threading
from pathlib import Path
from streamlit.testing.v1 import AppTest

root = Path(sys.argv[1]).resolve()
package = str(root / "playground")
tmp = Path(tempfile.mkdtemp())
os.environ.update(PLAYGROUND_CHECKPOINTS=str(tmp / "c.sqlite"),
                  PLAYGROUND_TICKETS_DB=str(tmp / "t.sqlite"),
                  PLAYGROUND_INSPECT_DIR=str(tmp / "inspect"))
(tmp / "inspect").mkdir()
APP = root / "playground" / "ui" / "app.py"


def module(frame):
    name = frame.f_code.co_filename
    return name[len(package):] if name.startswith(package) else None


class Walk:
    def __init__(self, within=None):
        self.hops, self.path, self.opens = 0, [], 0
        self.within = within  # (module, function): count only while it runs
        self.active = within is None

    def profile(self, frame, event, arg):
        if (self.within is not None and event in ("call", "return")
                and (module(frame), frame.f_code.co_name) == self.within):
            self.active = event == "call"
            if event == "call":
                self.path.append(self.within[0])
            return
        if event != "call" or not self.active:
            return
        callee = module(frame)
        caller = module(frame.f_back) if frame.f_back else None
        if callee is None or caller is None or callee == caller:
            return
        if callee.endswith(("event_loop.py", "runtime/loop.py")):
            return  # the graph's run itself: the same on both sides
        self.hops += 1
        if not self.path or self.path[-1] != callee:
            self.path.append(callee)


def traced(action, within=None):
    walk = Walk(within)
    real_connect = sqlite3.connect

    def connect(*args, **kwargs):
        walk.opens += 1
        return real_connect(*args, **kwargs)

    sqlite3.connect = connect
    threading.setprofile(walk.profile)
    try:
        action()
    finally:
        threading.setprofile(None)
        sqlite3.connect = real_connect
    return walk


def button(at, label):
    return next(b for b in at.button if b.label == label)


at = AppTest.from_file(str(APP), default_timeout=120).run()
at.switch_page("views/agent.py").run()
button(at, "Run turn").click().run()
at.switch_page("views/history.py").run()
field = next(t for t in at.text_input if t.label.startswith("changes"))
field.input('{"priority": "low"}').run()  # the typing commits before the click
fork = traced(lambda: button(at, "Fork with edit").click().run(),
              within=("/ui/views/history.py", "_fork"))
shown = " ".join(str(e.value) for kind in ("success", "markdown", "info", "error", "caption")
                 for e in getattr(at, kind))
assert "Forked \\#4" in shown, shown[-2000:]  # escaped markdown

at = AppTest.from_file(str(APP), default_timeout=120).run()
at.switch_page("views/inspect.py").run()
files = at.selectbox(key="inspect-file")
files.select_index(files.options.index("samples/sample-app.sqlite")).run()
inspect = traced(lambda: at.button(key="inspect-open-file").click().run())
assert not at.exception and at.dataframe
print(json.dumps({"fork": [fork.hops, fork.opens, fork.path],
                  "inspect": [inspect.hops, inspect.opens, inspect.path]}))
"""


def _walk(root: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    result = subprocess.run([sys.executable, "-c", WALK, str(root)], cwd=root, env=env,
                            capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def run() -> dict:
    """The two walks before and after the door, as rows (hops and opens, lower is better)."""
    with tempfile.TemporaryDirectory() as tmp:
        before_root = Path(tmp) / "before"
        try:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach",
                            str(before_root), BEFORE_DOOR], capture_output=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return {"rows": [{"name": "walks before and after the door", "ours": "not run",
                              "baseline_value": "-", "baseline": f"commit {BEFORE_DOOR} is not "
                              "in this clone", "ratio": "n/a", "goal": "report"}]}
        try:
            before, after = _walk(before_root), _walk(ROOT)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(before_root)], capture_output=True)
    rows = []
    for key, what in (("fork", "History: Edit this state and fork"),
                      ("inspect", "Inspect: open the sample database")):
        for index, unit in ((2, "module switches along the walk"),
                            (0, "calls from one module into another"), (1, "database opens")):
            ours, base = after[key][index], before[key][index]
            if index == 2:  # the walk's modules in order: its switches are one fewer
                ours, base = len(ours) - 1, len(base) - 1
            rows.append({"name": f"{what}, {unit}", "ours": str(ours),
                         "baseline_value": str(base),
                         "baseline": f"the same action before the door ({BEFORE_DOOR})",
                         "ratio": round(ours / base, 2) if base else "n/a", "goal": "report"})
    return {"rows": rows, "paths": {"before": before, "after": after}}


if __name__ == "__main__":
    found = run()
    for row in found["rows"]:
        print(row)
    for side, walks in found.get("paths", {}).items():
        for key, (_hops, _opens, path) in walks.items():
            print(f"{side} {key}: {' -> '.join(path)}")
