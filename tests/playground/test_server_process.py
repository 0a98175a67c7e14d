"""`playground run` as a process: what stopping it leaves behind."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from playground.server_process import start_playground


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
    _, server = start_playground(tmp_path)
    try:
        children = _children(server.pid)
        assert len(children) == 2  # Streamlit and the ticket API

        server.send_signal(signal.SIGTERM)  # only the server, as `kill PID` sends it
        assert server.wait(timeout=30) == 0
        deadline = time.monotonic() + 30
        while any(_alive(child) for child in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [child for child in children if _alive(child)] == []
    finally:
        # The whole group: it also holds any child the server failed to stop.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
