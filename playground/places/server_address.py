"""Which Agent Servers the playground may reach, and how it names them and their threads.

A URL typed into a page (Inspect) is checked by :func:`check_allowed`, under the rule every
typed kind shares (:mod:`playground.places.typed_targets`): on a server on loopback only it
opens when it is loopback, the one ``playground run --server`` named, or listed in
``PLAYGROUND_ALLOWED_SERVERS`` (comma-separated origins); on a server beyond loopback only when
it is listed there, and never the ``--server`` one (the server's own). A page is not a way to
probe the network the playground runs in. The key goes only to the ``--server`` one
(:func:`carries_key`).

Kept apart from :mod:`playground.places.server_client` (httpx and langgraph-sdk, a third of a
second to import) so the door, the CLI and Inspect can recognise and check a server URL without
loading the client every command would otherwise pay for.
"""

from __future__ import annotations

import ipaddress
import os
import uuid
from urllib.parse import urlsplit

from playground.places.typed_targets import ALLOWED_ENV, allowed_urls, check_reach, host_key
from playground.places.urls import UrlRefused
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.limits import _number, clip

SERVER_SCHEMES = ("http://", "https://")
KEY_ENV = "LANGSMITH_API_KEY"  # where the key is read from unless --api-key-env names another
KEY_ENV_SETTING = "PLAYGROUND_SERVER_KEY_ENV"  # how `playground run` passes --api-key-env on
HEADERS_ENV = "PLAYGROUND_SERVER_HEADERS"  # custom auth headers, a JSON object
SERVER_ENV = "PLAYGROUND_SERVER_URL"  # the server `playground run --server` named
# ALLOWED_ENV, the origins a page may open (`playground run --allow-url` fills it), is
# typed_targets' (every typed kind reads it) and importable from here too.
MAX_RESPONSE_ENV = "PLAYGROUND_MAX_RESPONSE_MB"


# Where a thread the playground made keeps its playground name, on the server.
NAME_KEY = "playground_thread"
_NAMES = uuid.UUID("6f1d3c8e-2b57-4e1a-9c0d-5a7e2f4b8c91")


def is_uuid(text: object) -> bool:
    """Whether ``text`` is a UUID (what a server takes as a thread id)."""
    try:
        uuid.UUID(str(text))
    except ValueError:
        return False
    return isinstance(text, str)


def server_thread_id(thread_id: str) -> str:
    """The server's id of a playground thread (a server takes UUIDs only): itself when it is a
    UUID, else the same UUID every time for the same name (``room/thread-1``)."""
    return thread_id if is_uuid(thread_id) else str(uuid.uuid5(_NAMES, thread_id))


class ServerError(CheckpointDbError):
    """An Agent Server that is down, slow, refuses, or answers what is not its API; one line.

    Attributes:
        status: the HTTP status the server answered, when it answered one.
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    @property
    def lasting(self) -> bool:
        """Whether the server will answer the same again: a refusal (4xx), not a timeout
        (408), a rate limit (429), a server error (5xx) or no answer at all."""
        return self.status is not None and 400 <= self.status < 500 \
            and self.status not in (408, 429)


class ResponseTooLarge(ServerError):
    """A response past ``PLAYGROUND_MAX_RESPONSE_MB``: stopped where it went past."""


def is_server_url(target: object) -> bool:
    """An ``http://`` or ``https://`` URL."""
    return isinstance(target, str) and target.lower().startswith(SERVER_SCHEMES)


def origin_of(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a URL, the default port filled in.

    Raises:
        UrlRefused: not an http(s) URL with a host.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise UrlRefused("not a server URL: give http://host:port") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise UrlRefused("not a server URL: give http://host:port")
    return scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80)


def server_label(url: str) -> str:
    """The server as a person reads it: scheme, host, port and path, never a user or password
    written into the URL, nor its query."""
    scheme, host, port = origin_of(url)
    path = urlsplit(url.strip()).path.rstrip("/")
    shown = f"[{host}]" if ":" in host else host
    return clip(f"{scheme}://{shown}:{port}{path}", 300)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _origin_key(url: str) -> tuple[str, str, int]:
    """A URL's origin as origins compare: its host in one spelling
    (:func:`~playground.places.typed_targets.host_key`: ``127.0.0.1``, ``127.1`` and ``[::1]``
    are ``localhost``)."""
    scheme, host, port = origin_of(url)
    return scheme, host_key(host), port


def _same_origin(url: str, origin: tuple[str, str, int]) -> bool:
    """Whether a configured URL (one that may be malformed: then it matches nothing) has
    ``origin``."""
    try:
        return _origin_key(url) == origin
    except UrlRefused:
        return False


def check_allowed(url: str) -> None:
    """Refuse a URL typed into a page unless the person who started the server allowed it.

    On a server on loopback only: loopback, ``playground run --server``'s, or one in
    ``PLAYGROUND_ALLOWED_SERVERS``. On a server beyond loopback: only one in
    ``PLAYGROUND_ALLOWED_SERVERS``, never ``--server``'s (the server's own), and loopback no
    more than any other host (:func:`playground.places.typed_targets.check_reach`).

    Raises:
        UrlRefused: not a server URL, or one a page may not open here (beyond loopback, in the
            one sentence every refusal says).
    """
    origin = _origin_key(url)
    own = os.environ.get(SERVER_ENV, "").strip()
    check_reach(
        own=bool(own) and _same_origin(own, origin),
        allowed=any(_same_origin(entry, origin) for entry in allowed_urls()
                    if is_server_url(entry)),
        own_on_loopback=None,  # the person who started it may inspect their own server
        loopback=None if _is_loopback(origin[1]) else (
            f"{origin[1]} is not a server this playground may open from a page: loopback is, "
            "and what the person who started it allowed (`playground run --server URL` or "
            f"`--allow-url URL`, or {ALLOWED_ENV})"))


def carries_key(url: str, typed: bool) -> bool:
    """Whether the key and the custom headers go to a server.

    A server the person named themselves (a command's target, ``playground run --server``)
    gets them. A URL typed into a page gets them only when it is the ``--server`` one (which
    only a server on loopback lets a page open): a server that is merely allowed, or any
    loopback port, gets no key, so a page cannot hand the key to a listener of its choosing.
    """
    if not typed:
        return True
    own = os.environ.get(SERVER_ENV, "").strip()
    return bool(own) and _same_origin(own, _origin_key(url))


def max_response_bytes() -> int:
    """``PLAYGROUND_MAX_RESPONSE_MB`` (64) in bytes."""
    return int(_number(MAX_RESPONSE_ENV, 64.0) * 1024 * 1024)
