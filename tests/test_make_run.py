"""`make run` on a fresh clone installs only what running needs, says so in one line, and
prints only the address to open: the test tools (pytest, Playwright, ruff, schemathesis) come
with `make test` and `make check` alone.

It installs from the package registry into a new venv (about a minute), so it runs in `make
test`, not in the fast lane (marker ``install``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from playground.server_process import free_port, spawn, stop_process

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.install
# What a clone holds that `make run` needs: the tracked files of these (the working tree's, so
# an uncommitted Makefile is what is tested).
CLONED = ("Makefile", "pyproject.toml", "README.md", "LICENSE", "playground", "ticket_api")
TEST_TOOLS = ("pytest", "playwright", "ruff", "schemathesis", "xdist")


def _clone(into: Path) -> Path:
    tracked = subprocess.run(["git", "ls-files", *CLONED], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    for name in tracked:
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, into / name)
    return into


def test_make_run_on_a_fresh_clone_installs_no_test_tool_and_prints_only_the_address(tmp_path):
    clone = _clone(tmp_path / "clone")
    port = free_port()
    # as a fresh shell has it: the machine's python3, no venv of ours active
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(part for part in env.get("PATH", "").split(os.pathsep)
                                  if not part.startswith(str(ROOT / ".venv")))
    make = spawn(["make", "-s", "run", f"PORT={port}"], env, tmp_path / "make.log", cwd=clone)
    try:
        said = ""
        deadline = time.monotonic() + 600
        while "playground on http://" not in said and make.poll() is None:
            assert time.monotonic() < deadline, f"make run printed no address:\n{said}"
            time.sleep(0.5)
            said = (tmp_path / "make.log").read_text()
    finally:
        stop_process(make)

    assert said.splitlines() == [
        "make: installing the playground into .venv (the first time only; about a minute)",
        f"playground on http://127.0.0.1:{port} (Ctrl+C stops it)"], said
    installed = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-m", "pip", "list",
                                "--format=freeze"], capture_output=True, text=True,
                               check=True).stdout.lower()
    assert "streamlit==" in installed and "langgraph==" in installed
    assert [tool for tool in TEST_TOOLS if f"\n{tool}" in f"\n{installed}"
            or f"-{tool}==" in installed] == []
    assert not (clone / ".venv" / "bin" / "pytest").exists()
