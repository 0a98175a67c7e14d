"""Who may use a playground served beyond this machine: a key in the room's URL.

``playground run --host 0.0.0.0`` serves every room, the Inspect folder and the server's
database connections to the whole network. So a server that listens beyond loopback gets a
random access token (``PLAYGROUND_ACCESS_TOKEN``), printed in the room's URL as Jupyter prints
its own: a browser that opens the URL is signed in for its session; a page opened without it
shows only a sign-in line. ``--no-token`` opts out, with a warning.
"""

from __future__ import annotations

import hmac
import os
import secrets

TOKEN_ENV = "PLAYGROUND_ACCESS_TOKEN"
SIGNED_IN_KEY = "access-signed-in"
_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def is_loopback(host: str) -> bool:
    """True for an address only this machine can reach."""
    return host in _LOOPBACK or host.startswith("127.")


def new_token() -> str:
    """A fresh access token (URL-safe, 128 bits of randomness)."""
    return secrets.token_urlsafe(16)


def required_token() -> str | None:
    """The token this server asks for, or None when it serves loopback only."""
    return os.environ.get(TOKEN_ENV) or None


def token_matches(given: str | None, token: str) -> bool:
    """Whether ``given`` is the token (compared in constant time)."""
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())
