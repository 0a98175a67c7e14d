"""`playground run` as a process: what stopping it leaves behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.playground.ui.browser import free_port, wait_until_up


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_sigterm_stops_streamlit_and_the_ticket_api_with_the_server(tmp_path):
    port = free_port()
    env = dict(os.environ, PLAYGROUND_CHECKPOINTS=str(tmp_path / "checkpoints.sqlite"),
               PLAYGROUND_TICKETS_DB=str(tmp_path / "tickets.sqlite"))
    server = subprocess.Popen(
        [sys.executable, "-m", "playground.cli", "run", "--port", str(port)], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_until_up(f"http://127.0.0.1:{port}/_stcore/health", server)
        children = _children(server.pid)
        assert len(children) == 2  # Streamlit and the ticket API

        server.send_signal(signal.SIGTERM)  # only the server, as `kill PID` sends it
        assert server.wait(timeout=30) == 0
        deadline = time.monotonic() + 30
        while any(_alive(child) for child in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [child for child in children if _alive(child)] == []
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
