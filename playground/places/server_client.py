"""The HTTP client of an Agent Server (``langgraph dev``, a self-hosted server, a deployment).

``langgraph-sdk``'s own client classes speak the documented API; this module hands them an
``httpx.Client`` that keeps the playground's promises about untrusted data:

- **Bounded.** Every response is counted as it arrives and stopped past
  ``PLAYGROUND_MAX_RESPONSE_MB`` (64); a read that is not a streamed run stops after
  ``PLAYGROUND_READ_TIMEOUT`` seconds in all, and a connection after
  ``PLAYGROUND_CONNECT_TIMEOUT``. JSON nested past what orjson parses (1,024 levels) is an error,
  not a crash. No retries: a server that does not answer is one line, at once.
- **The key stays with its server.** The key comes from an environment variable
  (``LANGSMITH_API_KEY`` unless ``--api-key-env`` names another), goes out as ``x-api-key``, and
  only to the server's own scheme, host and port: redirects are not followed, and a request the
  SDK would send anywhere else (a stream's ``Location`` to reconnect to) is refused before it
  leaves. The key is never part of a label, a message or a log line. A client made for a URL
  typed into a page carries no key nor custom header unless that URL is the server ``playground
  run --server`` named (``credentials``: :func:`~playground.places.server_address.carries_key`).
- **Allowed servers only, from a page.** Which URLs a page may open is
  :func:`playground.places.server_address.check_allowed`'s to say, before any client is made.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
from langgraph_sdk.client import SyncLangGraphClient
from langgraph_sdk.errors import LangGraphError

from playground.places.server_address import (
    HEADERS_ENV,
    KEY_ENV,
    KEY_ENV_SETTING,
    MAX_RESPONSE_ENV,
    ResponseTooLarge,
    ServerError,
    max_response_bytes,
    origin_of,
    server_label,
)
from playground.timetravel.limits import clip, limits


class _Counted(httpx.SyncByteStream):
    """A response body counted as it arrives: stopped past the size cap or the deadline."""

    def __init__(self, inner: httpx.SyncByteStream, cap: int, deadline: float | None,
                 label: str) -> None:
        self._inner, self._cap, self._deadline, self._label = inner, cap, deadline, label

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self._inner:
            seen += len(chunk)
            if seen > self._cap:
                raise ResponseTooLarge(f"{self._label}: an answer larger than "
                                       f"{self._cap // (1024 * 1024)} MB ({MAX_RESPONSE_ENV}): "
                                       "stopped")
            if self._deadline is not None and time.monotonic() > self._deadline:
                raise ServerError(f"{self._label}: the server took longer than "
                                  f"{limits().read_seconds:g} s to answer: stopped")
            yield chunk

    def close(self) -> None:
        self._inner.close()


BUSY_RETRIES = 2
BUSY_PAUSE_MAX_S = 2.0


def _busy_pause(response: httpx.Response) -> float | None:
    """How long to wait before sending again a request the server said it was too busy to
    take (429, 503), or None for any other answer. Only those two say the request was not
    taken, so sending it again cannot do a write twice."""
    if response.status_code not in (429, 503):
        return None
    try:
        asked = float(response.headers.get("retry-after", "0.5"))
    except ValueError:  # an HTTP date, or nonsense: a short pause
        asked = 0.5
    return min(max(asked, 0.0), BUSY_PAUSE_MAX_S)


class _OwnOriginOnly(httpx.BaseTransport):
    """Sends only to the server's own origin, bounds every answer, and asks a busy server
    again: up to :data:`BUSY_RETRIES` times, after the pause its ``Retry-After`` asks for (at
    most :data:`BUSY_PAUSE_MAX_S`); past that the answer stands, and is said as one to try
    again in a moment."""

    def __init__(self, origin: tuple[str, str, int], label: str) -> None:
        self._origin, self._label = origin, label
        self._inner = httpx.HTTPTransport(retries=0)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        if (url.scheme, url.host.lower(), port) != self._origin:
            raise ServerError(f"{self._label}: the server pointed at another host "
                              f"({clip(url.host, 100)}); nothing was sent there")
        # A streamed run may take as long as the graph does (each wait for a chunk is still
        # bounded by the read timeout); every other answer has one deadline in all.
        streamed = request.headers.get("accept") == "text/event-stream"
        deadline = None if streamed else time.monotonic() + limits().read_seconds
        response = self._inner.handle_request(request)
        for _ in range(BUSY_RETRIES):
            pause = _busy_pause(response)
            if pause is None:
                break
            response.close()
            time.sleep(pause)
            response = self._inner.handle_request(request)
        if 300 <= response.status_code < 400:
            response.close()
            raise ServerError(f"{self._label}: the server answered with a redirect "
                              f"({response.status_code}); redirects are not followed")
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_Counted(response.stream, max_response_bytes(), deadline,
                                              self._label),
                              extensions=response.extensions, request=request)

    def close(self) -> None:
        self._inner.close()


def _headers(key_env: str | None) -> dict[str, str]:
    """The key (``x-api-key``) and custom headers, from the environment only."""
    headers: dict[str, str] = {}
    raw = os.environ.get(HEADERS_ENV, "").strip()
    if raw:
        try:
            extra = json.loads(raw)
        except ValueError:
            extra = None
        if not isinstance(extra, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in extra.items()):
            raise ValueError(f"{HEADERS_ENV} must be a JSON object of header names to text")
        headers.update(extra)
    key = os.environ.get(key_env or os.environ.get(KEY_ENV_SETTING) or KEY_ENV, "").strip()
    if key:
        headers["x-api-key"] = key
    return headers


class ServerClient:
    """A bounded client of one Agent Server: ``sdk`` is langgraph-sdk's own sync client.

    Args:
        url: the server's URL (``http://127.0.0.1:2024``).
        key_env: the environment variable holding its key (default ``LANGSMITH_API_KEY``, or
            what ``playground run --api-key-env`` named).
        credentials: send the key and ``PLAYGROUND_SERVER_HEADERS``; False for a server a
            page typed that is not ``--server``'s (it gets neither).
    """

    def __init__(self, url: str, key_env: str | None = None, credentials: bool = True
                 ) -> None:
        origin = origin_of(url)
        self.label = server_label(url)
        parts = urlsplit(url.strip())
        base = f"{origin[0]}://{parts.netloc.rpartition('@')[2]}{parts.path.rstrip('/')}"
        bounds = limits()
        self.http = httpx.Client(
            base_url=base, transport=_OwnOriginOnly(origin, self.label),
            follow_redirects=False, headers=_headers(key_env) if credentials else {},
            timeout=httpx.Timeout(connect=bounds.connect_seconds, read=bounds.read_seconds,
                                  write=bounds.read_seconds, pool=bounds.connect_seconds))
        self.sdk = SyncLangGraphClient(self.http)
        # Request options this server refused (``threads.search``'s ``select``, say): kept
        # here, where every read of the place sees them, so each is refused once.
        self.refused_options: set[str] = set()

    def call(self, what, *args, **kwargs):
        """``what(*args, **kwargs)`` (an SDK call, or ``list`` over a pager), any error it
        raises turned into one :class:`ServerError` naming this server (never the key)."""
        try:
            return what(*args, **kwargs)
        except (ServerError, *server_errors()) as exc:
            raise explain(exc, self.label) from None

    def history_pages(self, thread_id: str, page: int, cap: int, checkpoint_ns: str = ""
                      ) -> Iterator[list]:
        """``threads.get_history`` page by page (newest first), each page's ``before`` the last
        checkpoint of the one before, until a short page or ``cap`` entries.

        ``before`` goes as a config (``{"configurable": {"checkpoint_id": ...}}``), the form
        ``langgraph dev`` 0.16 reads; its in-memory runtime answers 500 to the bare checkpoint the
        SDK's types suggest (and LangGraph's own RemoteGraph sends). A server that refuses the
        config form gets the bare one. A subgraph's namespace (``checkpoint_ns``) lists its own
        checkpoints.
        """
        where = {"checkpoint": {"checkpoint_ns": checkpoint_ns}} if checkpoint_ns else {}
        before: dict | None = None
        bare = False
        seen = 0
        while seen < cap:
            try:
                found = self.sdk.threads.get_history(thread_id, limit=page, before=before,
                                                     **where)
            except (ServerError, *server_errors()) as exc:
                status = getattr(getattr(exc, "response", None), "status_code", None)
                if before is None or bare or status not in (400, 422, 500):
                    raise
                bare, before = True, before["configurable"]
                continue
            if not isinstance(found, list):
                raise ServerError(f"{self.label}: get_history did not answer a list")
            yield found
            seen += len(found)
            last = found[-1] if found else None
            checkpoint = last.get("checkpoint") if isinstance(last, dict) else None
            last_id = checkpoint.get("checkpoint_id") if isinstance(checkpoint, dict) else None
            if len(found) < page or not isinstance(last_id, str):
                return
            before = {"checkpoint_id": last_id} if bare else {"configurable": {
                "checkpoint_id": last_id}}

    def close(self) -> None:
        """Close its connections."""
        self.http.close()


def server_errors() -> tuple[type[Exception], ...]:
    """What a call to a server can raise besides :class:`ServerError`."""
    return (LangGraphError, httpx.HTTPError, ValueError)


def _reason(body: Any) -> str | None:
    """What a server's error body says, in the shapes servers use: ``{"detail": "..."}``
    (langgraph-api), ``{"detail": [{"msg": ...}]}`` (a FastAPI validation error), and
    ``{"error": ..., "message": "..."}`` (other Agent Protocol servers)."""
    if not isinstance(body, dict):
        return None
    detail = body.get("detail")
    if isinstance(detail, str):
        return detail
    if isinstance(detail, list) and detail and isinstance(detail[0], dict) \
            and isinstance(detail[0].get("msg"), str):
        return detail[0]["msg"]
    message = body.get("message")
    return message if isinstance(message, str) else None


# What to do about a refusal the server will repeat, by its status.
_REFUSAL_HINT = ("asking again will not change it: this server may lack what was asked (the "
                 "servers tried are listed in docs/servers.md)")
_REFUSAL_HINTS = {
    404: "it does not know that thread, checkpoint or assistant: check the id",
    409: "a run is going on on this thread: wait for it to end, or stop it",
}


def explain(exc: BaseException, label: str) -> ServerError:
    """Any error of a call to the server as one line that names the server, never the key."""
    if isinstance(exc, ServerError):
        return exc
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(exc, httpx.TimeoutException):
        return ServerError(f"{label}: the server did not answer within its deadline "
                           f"(PLAYGROUND_READ_TIMEOUT / PLAYGROUND_CONNECT_TIMEOUT)")
    if isinstance(exc, httpx.ConnectError):
        return ServerError(f"{label}: no Agent Server answers there (is langgraph dev "
                           "running?)")
    if status is not None:
        said = _reason(getattr(exc, "body", None))
        detail = f": {clip(said, 300)}" if said else ""
        if status in (401, 403):
            return ServerError(f"{label}: the server refused the key ({status}): set it in "
                               f"{KEY_ENV} or name its variable with --api-key-env", status)
        if status in (408, 429) or status >= 500:
            return ServerError(f"{label}: the server could not answer just now ({status}"
                               f"{detail}); try again in a moment", status)
        return ServerError(f"{label}: the server refused the request ({status}{detail}); "
                           f"{_REFUSAL_HINTS.get(status, _REFUSAL_HINT)}", status)
    if isinstance(exc, ValueError):  # orjson: not JSON, or nested past its limit
        return ServerError(f"{label}: the server answered something that is not its API's "
                           f"JSON ({clip(str(exc), 200)})")
    return ServerError(f"{label}: {type(exc).__name__}: {clip(str(exc), 300)}")
