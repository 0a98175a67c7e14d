"""One connect deadline over every host of a Postgres URL, in the CLI: libpq applies
``connect_timeout`` to each host in turn, so a URL naming four silent hosts used to wait four
timeouts. The hosts here are sockets on loopback that accept and never answer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest


class SilentHosts:
    """Listening sockets on 127.0.0.1 that accept connections and never say a word."""

    def __init__(self, count: int) -> None:
        self.sockets = []
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sock.listen(8)
            self.sockets.append(sock)
        self.tried = [0] * count
        self._held: list[socket.socket] = []
        self._threads = [threading.Thread(target=self._accept, args=(i,), daemon=True)
                         for i in range(count)]
        for thread in self._threads:
            thread.start()

    def _accept(self, index: int) -> None:
        while True:
            try:
                conn, _ = self.sockets[index].accept()
            except OSError:
                return
            self.tried[index] += 1
            self._held.append(conn)  # kept open and silent until the test ends

    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{sock.getsockname()[1]}" for sock in self.sockets)
        return f"postgresql://someone@{hosts}/app"

    def close(self) -> None:
        for sock in [*self.sockets, *self._held]:
            sock.close()


@pytest.fixture
def silent_hosts() -> Iterator[SilentHosts]:
    hosts = SilentHosts(4)
    try:
        yield hosts
    finally:
        hosts.close()


def test_four_silent_hosts_share_one_connect_deadline_and_the_command_says_so(silent_hosts):
    result = subprocess.run(
        [sys.executable, "-m", "playground.cli", "threads", silent_hosts.url()],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PLAYGROUND_CONNECT_TIMEOUT": "2"})

    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert "cannot connect" in line and "someone@" in line
    # The first host took the whole deadline, so no other host was tried: before, each of the
    # four was given the full timeout in turn.
    assert silent_hosts.tried == [1, 0, 0, 0]
