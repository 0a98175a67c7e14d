"""Start and stop the ticket API: embedded in a thread, or as the ``ticket-api`` command."""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType, TracebackType

import uvicorn

from ticket_api.app import create_app
from ticket_api.ticket_store import StoreBase
from ticket_api.ticket_store_postgres import (
    PostgresUnavailable,
    is_postgres_url,
    redact_url,
)
from ticket_api.ticket_store_sqlite import MEMORY, open_store

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8700
DEFAULT_DB = ".playground/tickets.sqlite"
STARTUP_TIMEOUT_S = 10.0



class EmbeddedServer:
    """A running API on a loopback port, served by uvicorn in a daemon thread.

    Attributes:
        url: Base URL, e.g. ``http://127.0.0.1:54321``.
        store: The store behind the API (tests may inspect it directly).
    """

    def __init__(self, server: uvicorn.Server, thread: threading.Thread, store: StoreBase,
                 url: str) -> None:
        self.url = url
        self.store = store
        self._server = server
        self._thread = thread
        self._stopped = False

    def stop(self, timeout: float = 10.0) -> None:
        """Ask uvicorn to exit, wait for its thread, then close the store. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        self._server.should_exit = True
        self._thread.join(timeout)
        self.store.close()

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind a listening TCP socket; port 0 lets the OS pick a free port.

    Args:
        host: Interface name or address (IPv4 or IPv6).
        port: Port number, or 0 for any free one.

    Returns:
        The listening socket, ready to pass to ``uvicorn.Server.run(sockets=[...])``.
    """
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP,
    )[0]
    # proto must be IPPROTO_TCP, not 0: asyncio only sets TCP_NODELAY on accepted sockets
    # whose proto says TCP, and without it Nagle + delayed ACK add ~40 ms to every response
    # that uvicorn writes in two parts (headers, then body).
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def start_embedded(db_path: str | None = None, host: str = DEFAULT_HOST) -> EmbeddedServer:
    """Serve the API on a free loopback port from a daemon thread.

    The socket is bound before uvicorn starts, so the URL is known and no other process can
    take the port between choosing and binding it.

    Args:
        db_path: SQLite file, or a ``postgresql://`` URL (several servers, in this process
            or others, may share one database); None keeps everything in memory.
        host: Interface to bind; keep the loopback default unless you mean to share it.

    Returns:
        The running server; call ``stop()`` or use it as a context manager.

    Raises:
        PostgresUnavailable: If a Postgres URL cannot be used (the password is redacted).
        RuntimeError: If uvicorn does not report started within ``STARTUP_TIMEOUT_S``.
    """
    store = open_store(db_path)
    sock = bind_socket(host, 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(store), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name=f"ticket-api:{port}", daemon=True,
    )
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            thread.join(2.0)
            sock.close()
            store.close()
            reason = "exited during startup" if not thread.is_alive() else (
                f"did not start within {STARTUP_TIMEOUT_S:.0f} s")
            raise RuntimeError(f"ticket API on {host}:{port} {reason}; see the uvicorn log")
        time.sleep(0.01)
    return EmbeddedServer(server, thread, store, f"http://{host}:{port}")


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="ticket-api", description="Serve the bundled ticket REST API.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"interface to bind (default {DEFAULT_HOST}, loopback only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on, 0 for any free port (default {DEFAULT_PORT})")
    parser.add_argument("--db", default=DEFAULT_DB,
                        help=f"SQLite file, created if missing (default {DEFAULT_DB}); "
                        "':memory:' keeps nothing; a postgresql://user:password@host/db URL "
                        "stores tickets in PostgreSQL, shared by every server using it")
    parser.add_argument("--log-level", default="info",
                        choices=["critical", "error", "warning", "info", "debug"])
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ticket-api`` command until interrupted (Ctrl+C or SIGTERM).

    Args:
        argv: Arguments without the program name; None reads ``sys.argv``.

    Returns:
        The process exit status.
    """
    args = _parse_args(argv)
    postgres = is_postgres_url(args.db)
    if args.db != MEMORY and not postgres:
        Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as exc:
        print(f"ticket-api: cannot listen on {args.host}:{args.port}: {exc}; "
              "pick another --port (0 = any free port)", file=sys.stderr)
        return 1
    port = sock.getsockname()[1]
    try:
        store = open_store(args.db)
    except PostgresUnavailable as exc:
        sock.close()
        print(f"ticket-api: {exc}", file=sys.stderr)
        return 1
    shown_db = redact_url(args.db) if postgres else args.db  # never print a password
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        print(f"ticket-api: serving http://{args.host}:{port} (db {shown_db}, docs at /docs)",
              flush=True)
        config = uvicorn.Config(create_app(store), log_level=args.log_level, lifespan="off")
        # In the main thread uvicorn handles SIGINT/SIGTERM itself: it drains connections,
        # then raises the signal again for the previous handler, which lands below.
        uvicorn.Server(config).run(sockets=[sock])
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()
        store.close()
    print("ticket-api: stopped", flush=True)
    return 0


class _Stopped(Exception):
    """SIGTERM arrived: leave the server loop and close the store."""


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    # Without this, the default SIGTERM action kills the process before the store closes.
    raise _Stopped


if __name__ == "__main__":
    sys.exit(main())
