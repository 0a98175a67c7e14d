"""A stand-in Agent Server for the cases no real server gives on demand.

The standard library's HTTP server on a loopback port serves one thread of three checkpoints
(``threads.search`` and ``get_history``) and differs from ``langgraph dev`` the way
``server.quirks`` says; each quirk is one seen on a real server:

- ``no-select``: ``threads.search`` with ``select`` answers 422 (Aegra 0.11);
- ``bare-before-only``: ``get_history`` with ``before`` as a config answers 500;
- ``busy``: the next ``server.busy_left`` requests answer 429 with ``Retry-After: 0``;
- ``no-metadata``: ``threads.search`` with a ``metadata`` filter answers 422;
- ``refuse``: every request answers 422 with a validation error.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

THREAD = "6f1c0a57-0000-4000-8000-000000000001"


def _entry(number: int) -> dict:
    """History entry ``number`` (1 = the oldest) of the stand-in's one thread."""
    def config(n: int) -> dict:
        return {"thread_id": THREAD, "checkpoint_ns": "", "checkpoint_id": f"cp-{n:04d}"}

    return {"checkpoint": config(number),
            "parent_checkpoint": config(number - 1) if number > 1 else None,
            "values": {"count": number},
            # the first checkpoint fans out to four ``tick`` tasks at once (a Send each)
            "next": {1: ["tick"] * 4, 2: ["tick"], 3: []}[number],
            "tasks": [{"id": f"task-{number}-{n}", "name": "tick"}
                      for n in range({1: 4, 2: 1, 3: 0}[number])],
            "metadata": {"source": "loop", "step": number - 1},
            "created_at": f"2026-12-03T10:00:0{number}+00:00"}


class StandIn(BaseHTTPRequestHandler):
    """Answers threads.search and get_history for one thread, with ``server.quirks``."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def _answer(self, status: int, body: object, headers: dict | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        server = self.server
        asked = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0))
                           or b"{}")
        server.asked.append((self.path, asked))
        if "refuse" in server.quirks:
            return self._answer(422, {"detail": [{"msg": "Value error, unknown field"}]})
        if "busy" in server.quirks and server.busy_left:
            server.busy_left -= 1
            return self._answer(429, {"detail": "Too many requests"}, {"Retry-After": "0"})
        if self.path == "/threads/search":
            if "no-select" in server.quirks and "select" in asked:
                return self._answer(422, {"detail": [
                    {"msg": "Value error, select projection is not supported"}]})
            if "no-metadata" in server.quirks and "metadata" in asked:
                return self._answer(422, {"detail": [
                    {"msg": "Value error, metadata filter is not supported"}]})
            found = [{"thread_id": THREAD, "metadata": {"user": "acme"}, "status": "idle",
                      "updated_at": "2026-12-03T10:00:03+00:00"}]
            return self._answer(200, found[asked.get("offset", 0):])
        if self.path == f"/threads/{THREAD}/history":
            before = asked.get("before")
            if "bare-before-only" in server.quirks and isinstance(before, dict) \
                    and "configurable" in before:
                return self._answer(500, {"detail": "Internal Server Error"})
            if isinstance(before, dict):
                before = (before.get("configurable") or before).get("checkpoint_id")
            newest = int(before[3:]) - 1 if before else 3
            limit = asked.get("limit", 10)
            return self._answer(200, [_entry(n) for n in range(newest, 0, -1)][:limit])
        return self._answer(404, {"detail": "Not Found"})

    do_GET = do_POST


@contextmanager
def stand_in_server() -> Iterator[ThreadingHTTPServer]:
    """The stand-in, serving until the block ends; set ``quirks`` (and ``busy_left``) on it.
    ``asked`` records each request's (path, body)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    server.daemon_threads = True
    server.asked, server.quirks, server.busy_left = [], set(), 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()


def url_of(server: ThreadingHTTPServer) -> str:
    """The stand-in's URL."""
    return f"http://127.0.0.1:{server.server_address[1]}"


