"""Ticket GET throughput: our API vs a bare Starlette route serving the same bytes.

Both servers run under uvicorn in a daemon thread of this process, on their own loopback
ports, and are measured in the same run with the same clients, so the ratio cancels out most
of the machine. The bare route does no routing logic, validation, tenant lookup or storage:
it is the floor cost of uvicorn + Starlette + httpx for a 7 kB JSON response.

Run: ``.venv/bin/python bench/api_throughput.py [requests]``.
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ticket_api.server import bind_socket, start_embedded

TICKET_PATH = "/tickets/t7"
CONCURRENT_THREADS = 8
WARMUP_REQUESTS = 100


def bare_app(body: bytes, etag: str) -> Starlette:
    """A Starlette app with one route returning fixed bytes and ETag (the floor to beat)."""

    async def ticket(request: Request) -> Response:
        return Response(body, media_type="application/json", headers={"ETag": etag})

    return Starlette(routes=[Route(TICKET_PATH, ticket)])


@contextmanager
def serve_in_thread(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn from a daemon thread, the way the API is embedded."""
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("bare Starlette server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


def _get_loop(client: httpx.Client, count: int, expected: bytes) -> None:
    for _ in range(count):
        response = client.get(TICKET_PATH)
        if response.status_code != 200 or response.content != expected:
            raise RuntimeError(f"unexpected response {response.status_code} during the bench")


def sequential_rps(base_url: str, requests: int, expected: bytes) -> float:
    """Requests per second for one keep-alive client sending GETs back to back."""
    with httpx.Client(base_url=base_url, headers={"X-Tenant": "bench"}) as client:
        _get_loop(client, WARMUP_REQUESTS, expected)
        start = time.perf_counter()
        _get_loop(client, requests, expected)
        return requests / (time.perf_counter() - start)


def concurrent_rps(base_url: str, requests: int, expected: bytes,
                   threads: int = CONCURRENT_THREADS) -> float:
    """Requests per second for ``threads`` keep-alive clients, ``requests`` GETs in total."""
    per_thread = max(1, requests // threads)
    clients = [httpx.Client(base_url=base_url, headers={"X-Tenant": "bench"})
               for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)
    errors: list[BaseException] = []

    def work(client: httpx.Client) -> None:
        try:
            _get_loop(client, WARMUP_REQUESTS // threads + 1, expected)
            barrier.wait()
            _get_loop(client, per_thread, expected)
        except BaseException as exc:  # reported below, not swallowed
            errors.append(exc)
            barrier.abort()

    workers = [threading.Thread(target=work, args=(c,)) for c in clients]
    for worker in workers:
        worker.start()
    with suppress(threading.BrokenBarrierError):  # a failed worker aborted it: see errors
        barrier.wait()
    start = time.perf_counter()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - start
    for client in clients:
        client.close()
    if errors:
        raise RuntimeError(f"bench client failed: {errors[0]!r}")
    return per_thread * threads / elapsed


def machine() -> dict[str, Any]:
    """Describe where the figures were taken."""
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "uvicorn": uvicorn.__version__,
    }


def _compare(measure: Callable[[str, int, bytes], float], ours: str, bare: str,
             requests: int, expected: bytes, rounds: int = 4) -> dict[str, float]:
    # Alternate short rounds instead of measuring one server after the other, so a change
    # in machine load during the run affects both sides alike.
    per_round = max(1, requests // rounds)
    ours_time = bare_time = 0.0
    for _ in range(rounds):
        ours_time += per_round / measure(ours, per_round, expected)
        bare_time += per_round / measure(bare, per_round, expected)
    ours_rps = per_round * rounds / ours_time
    bare_rps = per_round * rounds / bare_time
    return {"ours_rps": round(ours_rps, 1), "bare_rps": round(bare_rps, 1),
            "ratio": round(ours_rps / bare_rps, 3)}


def run(requests: int = 2000) -> dict[str, Any]:
    """Measure GET /tickets/t7 throughput of the API and of a bare Starlette route.

    Args:
        requests: GETs per measurement (sequential, and again split over the threads).

    Returns:
        ``{"machine", "requests", "threads", "body_bytes", "sequential", "concurrent"}``;
        each of the last two holds ``ours_rps``, ``bare_rps`` and ``ratio`` (ours / bare).
    """
    with start_embedded() as api:
        with httpx.Client(base_url=api.url, headers={"X-Tenant": "bench"}) as client:
            first = client.get(TICKET_PATH)
            first.raise_for_status()
        body, etag = first.content, first.headers["etag"]
        with serve_in_thread(bare_app(body, etag)) as bare_url:
            sequential = _compare(sequential_rps, api.url, bare_url, requests, body)
            concurrent = _compare(concurrent_rps, api.url, bare_url, requests, body)
    return {
        "machine": machine(),
        "requests": requests,
        "threads": CONCURRENT_THREADS,
        "body_bytes": len(body),
        "sequential": sequential,
        "concurrent": concurrent,
    }


def _print_report(result: dict[str, Any]) -> None:
    m = result["machine"]
    print(f"machine: {m['platform']}, {m['processor']}, {m['cpu_count']} CPUs, "
          f"Python {m['python']}, uvicorn {m['uvicorn']}")
    print(f"GET {TICKET_PATH} ({result['body_bytes']} B), {result['requests']} requests, "
          "keep-alive httpx clients in the same process")
    for label, key in (("1 client, sequential", "sequential"),
                       (f"{result['threads']} client threads", "concurrent")):
        row = result[key]
        print(f"  {label:22} ours {row['ours_rps']:8.0f} req/s   bare Starlette "
              f"{row['bare_rps']:8.0f} req/s   ratio {row['ratio']:.2f}x (goal >= 0.5x)")


if __name__ == "__main__":
    _print_report(run(int(sys.argv[1]) if len(sys.argv) > 1 else 2000))
