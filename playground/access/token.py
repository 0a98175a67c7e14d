"""The room's access token: made once, kept across restarts, shared by replicas.

A server that listens beyond loopback lets in only a browser that opened its room URL, which
carries the token (``?token=...``). The gate then gives that browser a cookie the page cannot
read, whose value is derived from the token (:func:`cookie_value`), so every replica given the
same token accepts it and a restart changes nothing. The token lives in
``.playground/access-token`` (mode 0600) unless ``PLAYGROUND_ACCESS_TOKEN`` gives it, and
changes only when asked (``playground run --new-token``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

TOKEN_ENV = "PLAYGROUND_ACCESS_TOKEN"
TOKEN_FILE = Path(".playground") / "access-token"
# A token someone sets must be worth guessing no better than the one made here.
MIN_TOKEN_CHARS = 16
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]+$")  # it travels in a URL, unescaped


class TokenError(ValueError):
    """The token could not be read or kept; the message says what to do."""


def new_token() -> str:
    """A fresh access token (URL-safe, 128 bits of randomness)."""
    return secrets.token_urlsafe(16)


def room_token(path: Path = TOKEN_FILE, renew: bool = False) -> str:
    """The token this server (and every replica of its room) asks for.

    ``PLAYGROUND_ACCESS_TOKEN`` when it is set; otherwise the one kept in ``path``, made on
    the first start and made anew only with ``renew`` (``--new-token``).

    Raises:
        TokenError: the variable's token is too short or not URL-safe, or the file cannot be
            read or written.
    """
    given = os.environ.get(TOKEN_ENV, "").strip()
    if given:
        _check_shape(given, f"${TOKEN_ENV}")
        return given
    try:
        if not renew and path.exists():
            kept = path.read_text(encoding="ascii").strip()
            _check_shape(kept, str(path))
            return kept
        token = new_token()
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written under another name and moved into place: a replica starting in the same
        # moment reads the old token or the new, never half of one. 0600 from the start.
        part = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(token + "\n")
        os.replace(part, path)
        return token
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenError(f"the access token in {path} could not be kept ({exc}): set "
                         f"{TOKEN_ENV}, or run from a folder you can write") from None


def _check_shape(token: str, where: str) -> None:
    if len(token) < MIN_TOKEN_CHARS or not _TOKEN_SHAPE.match(token):
        raise TokenError(f"the access token in {where} must be at least {MIN_TOKEN_CHARS} "
                         "letters, digits, '-' or '_' (delete the file, or run with "
                         "--new-token, for a fresh one)")


def derived(secret: str, purpose: str) -> str:
    """A value for ``purpose`` only the holder of ``secret`` can make (HMAC-SHA256, hex)."""
    return hmac.new(secret.encode(), purpose.encode(), hashlib.sha256).hexdigest()


def cookie_value(token: str) -> str:
    """What the access cookie holds: derived from the token (so replicas agree), and never
    the token itself (so the cookie cannot be turned back into a room URL)."""
    return derived(token, "playground access cookie v1")


def fingerprint(token: str) -> str:
    """A short name for the token, safe to store and show (the facilitator's mark is kept
    under it, so a new token starts without one)."""
    return derived(token, "playground room fingerprint v1")[:16]


def same(given: str | None, expected: str) -> bool:
    """Whether ``given`` is ``expected``, compared in constant time."""
    return bool(given) and hmac.compare_digest(str(given).encode(), expected.encode())


def cookie_name(host_header: str | None, prefix: str = "playground_access") -> str:
    """The cookie's name for the address the browser asked for (its ``Host`` header).

    Browsers keep cookies per host, not per port, so two servers on one machine would
    overwrite each other's cookie: the name carries the port the browser connected to
    (80 when the address names none), which behind the workshop's nginx is nginx's, the
    same whichever replica answers.
    """
    port = "80"
    if host_header:
        tail = host_header.rsplit("]", 1)[-1]  # an IPv6 literal holds colons of its own
        if ":" in tail and tail.rsplit(":", 1)[1].isdigit():
            port = tail.rsplit(":", 1)[1]
    return f"{prefix}_{port}"


REQUIRED_ENV = "PLAYGROUND_ACCESS_REQUIRED"  # set by `playground run` when the gate is on


def required_token() -> str | None:
    """The token this server's gate asks for, or None when it lets everyone in (a server on
    loopback only, or one started with ``--no-token``)."""
    if not os.environ.get(REQUIRED_ENV):
        return None
    return os.environ.get(TOKEN_ENV, "").strip() or None


def room_fingerprint() -> str:
    """The fingerprint of the token this server was given ("" when it has none): what the
    facilitator's mark is kept under."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    return fingerprint(token) if token else ""
