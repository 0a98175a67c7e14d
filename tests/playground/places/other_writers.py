"""The checkpoint files LangGraph.js and older LangGraph releases write, as tests meet them.

The committed files (tests/fixtures/) were made by the real libraries: a Node project with
@langchain/langgraph and both JS savers (tests/fixtures/langgraphjs/make_fixtures.mjs), and an
old langgraph-checkpoint-sqlite in a throwaway venv (tests/fixtures/make_older_python.py).
Tests read copies, never the committed files: opening a WAL file leaves -shm/-wal beside it.
Where Node and the project's node_modules are here (``bash .ci/run`` installs them), tests
also run LangGraph.js itself: to rebuild the files, and to read a file back after the
playground touched it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
JS_PROJECT = FIXTURES / "langgraphjs"
JS_FILE = JS_PROJECT / "langgraphjs.sqlite"
OLDER_PYTHON_FILE = FIXTURES / "older_python.sqlite"
JS_QUESTION = "Approve a refund of 40 EUR on order A17?"


def node_ready() -> bool:
    """True when Node and the fixture project's packages are installed (`npm ci`)."""
    return shutil.which("node") is not None and (JS_PROJECT / "node_modules").is_dir()


# A test of the slow kind `node` (`make check` leaves it out), skipped, saying why, where Node
# is missing: NODE_MARKS for a module's pytestmark, needs_node for one test.
NODE_MARKS = [pytest.mark.node, pytest.mark.skipif(
    not node_ready(), reason="Node or the fixture project's node_modules is missing (bash "
    ".ci/run installs both)")]


def needs_node(test):
    """Mark ``test`` as needing Node (:data:`NODE_MARKS`)."""
    for mark in NODE_MARKS:
        test = mark(test)
    return test


def copy_of(fixture: Path, folder: Path, name: str | None = None) -> Path:
    """A copy of a committed fixture in ``folder`` (the committed file stays untouched)."""
    target = folder / (name or fixture.name)
    shutil.copyfile(fixture, target)
    return target


def run_node(script: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["node", script, *args], cwd=JS_PROJECT, capture_output=True,
                          text=True, timeout=timeout)


def read_back(target: str | Path) -> dict[str, dict]:
    """What LangGraph.js itself reads of each thread: checkpoints, branches, head, next."""
    result = run_node("read_back.mjs", str(target))
    assert result.returncode == 0, result.stderr
    return {line["thread"]: line for line in map(json.loads, result.stdout.splitlines())}
