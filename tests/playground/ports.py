"""Real sockets on this machine for the tests of what a typed URL reaches: a port that was
free and is closed again, a listener that answers like another service, one that never
answers."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# What an open port of something else answers: an SSH server's banner.
SSH_BANNER = b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n"


def free_port() -> int:
    """A loopback port bound and closed again: nothing listens on it (a closed port)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def listener(answer: bytes | None) -> Iterator[tuple[int, list]]:
    """A real listening socket on a free loopback port: each connection gets ``answer`` and is
    closed, or with None is held open and never answered. Yields (port, connections seen)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    seen: list = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            seen.append(conn)
            if answer is not None:
                try:
                    conn.sendall(answer)
                finally:
                    conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in seen:
            conn.close()
        server.close()
