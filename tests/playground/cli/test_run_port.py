"""`make run` and `playground run` when their port is taken: one line, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from playground.server_process import free_port, spawn, stop_process

ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def _taken(port: int):
    """A server of someone else's listening on ``port`` (or the port already taken)."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("127.0.0.1", port))
        holder.listen()
    except OSError:
        pass  # taken already, by another process: the same for the playground
    try:
        yield
    finally:
        holder.close()


def test_run_on_a_taken_port_says_which_and_how_to_choose_in_one_line():
    port = free_port()
    with _taken(port):
        shown = subprocess.run([sys.executable, "-m", "playground.cli", "run", "--port",
                                str(port)], capture_output=True, text=True, timeout=120)

    assert shown.returncode == 2
    assert shown.stderr.strip() == (
        f"playground run: port {port} is taken (another server listens there): choose another "
        "with `make run PORT=8600` or `playground run --port 8600`")
    assert "Traceback" not in shown.stdout + shown.stderr


@pytest.mark.skipif(not (ROOT / ".venv" / ".installed-run").exists(),
                    reason="make run needs the project's .venv (make creates it)")
def test_make_run_with_8501_taken_serves_on_the_next_free_port_and_says_so(tmp_path):
    env = {**os.environ, "PLAYGROUND_CHECKPOINTS": str(tmp_path / "checkpoints.sqlite"),
           "PLAYGROUND_TICKETS_DB": str(tmp_path / "tickets.sqlite")}
    with _taken(8501):
        process = spawn(["make", "-s", "run"], env, tmp_path / "make.log", cwd=ROOT)
        try:
            said = ""
            for _ in range(600):  # until it says where it serves (Streamlit starts after)
                said = (tmp_path / "make.log").read_text()
                if "playground on http://" in said or process.poll() is not None:
                    break
                time.sleep(0.1)
        finally:
            stop_process(process)

    lines = said.splitlines()
    taken = next(line for line in lines if line.startswith("port 8501 is taken"))
    port = int(taken.split("takes ")[1].split()[0])
    assert port != 8501 and "make run PORT=8600" in taken
    assert f"playground on http://127.0.0.1:{port} (Ctrl+C stops it)" in lines
    assert "Traceback" not in said and "Error" not in said


def test_a_facilitator_key_variable_that_is_not_set_is_one_line_before_anything_starts(
        tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NO_SUCH_WORKSHOP_KEY"}
    result = subprocess.run(
        [sys.executable, "-m", "playground.cli", "run", "--port", str(free_port()),
         "--checkpoints", str(tmp_path / "c.sqlite"), "--facilitator-key-env",
         "NO_SUCH_WORKSHOP_KEY"],
        capture_output=True, text=True, timeout=60, env=env)

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "playground run: --facilitator-key-env NO_SUCH_WORKSHOP_KEY: that environment variable "
        "is not set (put the facilitator's key in it)"]
    assert not (tmp_path / "c.sqlite").exists()
