"""Starting and stopping: the embedded server and the standalone ``ticket-api`` command."""

from __future__ import annotations

import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from ticket_api.server import bind_socket, main, start_embedded


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_health(url: str, process: subprocess.Popen[str], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"ticket-api exited with {process.returncode}: {out}\n{err}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"ticket-api did not answer /health at {url} within {timeout} s")


@contextmanager
def cli(port: int, db: Path, command: list[str] | None = None,
        stop: signal.Signals = signal.SIGTERM) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Run the ticket API as a child process (``python -m ticket_api.server`` by default)."""
    process = subprocess.Popen(
        [*(command or [sys.executable, "-m", "ticket_api.server"]),
         "--port", str(port), "--db", str(db), "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, process)
        yield url, process
    finally:
        if process.poll() is None:
            process.send_signal(stop)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_cli_write_survives_a_restart_on_the_same_file(tmp_path: Path) -> None:
    db = tmp_path / "nested" / "tickets.sqlite"  # the folder does not exist yet
    port = free_port()
    with cli(port, db) as (url, process):
        written = httpx.patch(f"{url}/tickets/t7", json={"priority": "high"},
                              headers={"If-Match": '"v1"', "X-Actor": "cli-test"})
        assert written.status_code == 200
        assert written.headers["etag"] == '"v2"'
        with sqlite3.connect(db) as raw:
            # The file database runs in WAL mode (the setting persists in the file).
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert Path(f"{db}-wal").exists()
    assert process.returncode == 0
    out, _ = process.communicate()
    assert f"serving http://127.0.0.1:{port}" in out
    assert out.rstrip().endswith("ticket-api: stopped")

    with cli(port, db) as (url, _):
        ticket = httpx.get(f"{url}/tickets/t7")
        assert ticket.headers["etag"] == '"v2"'
        assert ticket.json()["priority"] == "high"
        entries = httpx.get(f"{url}/tickets/t7/history").json()["entries"]
        assert [(e["version"], e["actor"]) for e in entries] == [(2, "cli-test")]


def test_console_script_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "ticket-api"
    if not script.exists():
        pytest.skip("the ticket-api console script is not installed in this environment")
    with cli(free_port(), tmp_path / "t.sqlite", [str(script)], stop=signal.SIGINT) as (url, p):
        assert httpx.get(f"{url}/tickets").status_code == 200
    assert p.returncode == 0
    out, err = p.communicate()
    assert out.rstrip().endswith("ticket-api: stopped")
    assert "Traceback" not in err


def test_cli_reports_a_busy_port_instead_of_crashing(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with bind_socket("127.0.0.1", 0) as busy:
        port = busy.getsockname()[1]
        status = main(["--port", str(port), "--db", str(tmp_path / "t.sqlite")])
    assert status == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_embedded_server_on_a_file_persists_and_stops_cleanly(tmp_path: Path) -> None:
    db = str(tmp_path / "embedded.sqlite")
    with start_embedded(db) as server:
        assert server.store.journal_mode() == "wal"
        response = httpx.patch(f"{server.url}/tickets/t1", json={"status": "closed"},
                               headers={"If-Match": '"v1"'})
        assert response.status_code == 200
        url = server.url
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/health", timeout=2)
    server.stop()  # a second stop is harmless
    with start_embedded(db) as again:
        assert httpx.get(f"{again.url}/tickets/t1").json()["status"] == "closed"


def test_embedded_servers_get_distinct_ports_and_separate_memory_stores() -> None:
    with start_embedded() as one, start_embedded() as two:
        assert one.url != two.url
        written = httpx.patch(f"{one.url}/tickets/t2", json={"priority": "low"},
                              headers={"If-Match": '"v1"'})
        assert written.status_code == 200
        assert httpx.get(f"{two.url}/tickets/t2").headers["etag"] == '"v1"'
