"""What a hostile or broken server gets: a bounded, one-line outcome, and never the key.

A stand-in HTTP server (the standard library's, on a loopback port) answers as no honest Agent
Server would: it hangs, nests JSON ten megabytes deep, redirects to another host, answers more
than the size cap. These are the answers under test, so nothing real could give them.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from playground.places.door import open_place
from playground.places.urls import UrlRefused

KEY = "lsv2-secret-key-never-shown-0123456789"


class Hostile(BaseHTTPRequestHandler):
    """Answers every request the way ``server.mode`` says; records the headers it got."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        self.server.seen.append(dict(self.headers))
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        mode = self.server.mode
        if mode == "hang":
            time.sleep(30)
            return
        if mode == "redirect":
            self.send_response(307)
            self.send_header("Location", "http://192.0.2.1:9/threads/search")
            self.end_headers()
            return
        if mode in ("message", "validation"):
            self.send_response(400 if mode == "message" else 422)
            body = (b'{"error": "bad_request", "message": "Cannot resume: not interrupted"}'
                    if mode == "message" else b'{"detail": [{"msg": "Value error, no input"}]}')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        body = {"nested": b"[" * 10_000_000 + b"]" * 10_000_000,
                "huge": b'["' + b"x" * 3_000_000 + b'"]',
                "empty": b"[]"}[mode]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST


@pytest.fixture
def hostile() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    server.seen, server.mode = [], "empty"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def _threads(server, *args: str, **env) -> subprocess.CompletedProcess:
    url = f"http://127.0.0.1:{server.server_address[1]}"
    return subprocess.run([sys.executable, "-m", "playground.cli", "threads", url, *args],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", **env})


def test_a_server_that_hangs_is_stopped_at_the_read_deadline_in_one_line(hostile):
    hostile.mode = "hang"
    started = time.monotonic()
    shown = _threads(hostile, PLAYGROUND_READ_TIMEOUT="1")
    assert shown.returncode == 2
    assert "did not answer within its deadline" in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1
    assert time.monotonic() - started < 25  # the server's 30 s were not waited out


def test_ten_megabytes_of_nesting_is_one_line_not_a_crash(hostile):
    hostile.mode = "nested"
    shown = _threads(hostile)
    assert shown.returncode == 2
    assert "not its API's JSON" in shown.stderr
    assert "Traceback" not in shown.stderr


def test_an_answer_past_the_size_cap_is_stopped(hostile):
    hostile.mode = "huge"
    shown = _threads(hostile, PLAYGROUND_MAX_RESPONSE_MB="1")
    assert shown.returncode == 2
    assert "an answer larger than 1 MB" in shown.stderr


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(hostile):
    hostile.mode = "redirect"
    shown = _threads(hostile, LANGSMITH_API_KEY=KEY)
    assert shown.returncode == 2
    assert "redirects are not followed" in shown.stderr
    assert len(hostile.seen) == 1  # one request, to the server itself


def test_the_key_is_sent_as_x_api_key_and_never_printed(hostile):
    shown = _threads(hostile, "--api-key-env", "MY_KEY", MY_KEY=KEY)
    assert shown.returncode == 0, shown.stderr
    assert hostile.seen[0].get("x-api-key") == KEY
    assert KEY not in shown.stdout + shown.stderr


def test_a_typed_url_opens_only_loopback_or_an_allowed_server(monkeypatch):
    open_place("http://127.0.0.1:2024", typed=True)
    open_place("http://localhost:2024", typed=True)
    for url in ("http://10.0.0.5:2024", "http://169.254.169.254/", "https://example.com"):
        with pytest.raises(UrlRefused, match="not a server this playground may open"):
            open_place(url, typed=True)
    monkeypatch.setenv("PLAYGROUND_ALLOWED_SERVERS", "https://example.com")
    open_place("https://example.com", typed=True)
    monkeypatch.setenv("PLAYGROUND_SERVER_URL", "http://10.0.0.5:2024")
    open_place("http://10.0.0.5:2024/", typed=True)


def test_a_servers_refusal_is_said_with_its_reason_in_the_shapes_servers_use(hostile):
    hostile.mode = "message"  # {"error", "message"}: other Agent Protocol servers
    shown = _threads(hostile)
    assert shown.returncode == 2
    assert "the server refused the request (400: Cannot resume: not interrupted); asking " \
        "again will not change it" in shown.stderr
    hostile.mode = "validation"  # a FastAPI validation error
    shown = _threads(hostile)
    assert "the server refused the request (422: Value error, no input)" in shown.stderr
