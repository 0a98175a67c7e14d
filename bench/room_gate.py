"""What the room's gate costs each request: the playground's ASGI middleware in front of an app,
against the same app bare, under the same uvicorn, in the same run.

The app is a bare Starlette route returning the ticket API benchmark's 7 kB body
(:func:`bench.api_throughput.bare_app`). The gated side asks for the room's cookie on every
request, as it does for an attendee's browser: the process is told a proxy stands in front
(``PLAYGROUND_BEHIND_PROXY``), so the loopback client is not taken for the server's own person
and every request goes through the cookie's check. Both sides are served from a daemon thread of
this process on loopback, measured alternately, best of a few rounds.

Run: ``.venv/bin/python -m bench.room_gate``.
"""

from __future__ import annotations

import os
import time

import httpx

from bench.api_throughput import TICKET_PATH, bare_app, serve_in_thread
from playground.access.peers import BEHIND_PROXY_ENV
from playground.access.token import cookie_name, cookie_value
from playground.ui.gate import RoomGate

TOKEN = "bench-room-token-0123456789"
REQUESTS = 2000
ROUNDS = 3
BODY = b'{"id": "t7", "history": "' + b"x" * 7100 + b'"}'


def _rps(url: str, cookie: str) -> float:
    """Requests per second of one keep-alive client asking back to back, sending ``cookie``
    as a plain header (httpx's cookie jar costs the client more than the gate costs the
    server)."""
    with httpx.Client(base_url=url, headers={"Cookie": cookie}) as client:
        for _ in range(100):
            client.get(TICKET_PATH)
        started = time.perf_counter()
        for _ in range(REQUESTS):
            answer = client.get(TICKET_PATH)
            if answer.status_code != 200:
                raise RuntimeError(f"the gate answered {answer.status_code} during the bench")
        return REQUESTS / (time.perf_counter() - started)


def run() -> dict:
    """The gated route's requests per second against the bare route's, one client."""
    previous = os.environ.get(BEHIND_PROXY_ENV)
    os.environ[BEHIND_PROXY_ENV] = "1"
    try:
        bare = bare_app(BODY, '"v1"')
        gated = RoomGate(bare_app(BODY, '"v1"'), token=TOKEN, board_key="")
        with serve_in_thread(bare) as bare_url, serve_in_thread(gated) as gated_url:
            port = gated_url.rsplit(":", 1)[1]
            cookie = f"{cookie_name(f'127.0.0.1:{port}')}={cookie_value(TOKEN)}"
            ours, base = 0.0, 0.0
            for _ in range(ROUNDS):  # alternated, so a busy moment falls on both sides
                base = max(base, _rps(bare_url, cookie))  # the same bytes sent to both
                ours = max(ours, _rps(gated_url, cookie))
    finally:
        if previous is None:
            os.environ.pop(BEHIND_PROXY_ENV, None)
        else:
            os.environ[BEHIND_PROXY_ENV] = previous
    return {"name": f"a request through the room's gate ({len(BODY):,} B, the cookie checked), "
                    "1 client",
            "ours": f"{ours:.0f} req/s", "baseline_value": f"{base:.0f} req/s",
            "baseline": "the same bare Starlette route without the gate, same uvicorn",
            "ratio": round(ours / base, 3), "goal": ">= 0.9x"}


if __name__ == "__main__":
    print(run())
