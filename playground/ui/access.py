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
# The facilitator's board: its key (from the variable `--facilitator-key-env` names) and the
# address the server listens on, both given to the Streamlit process by `playground run`.
FACILITATOR_KEY_ENV = "PLAYGROUND_FACILITATOR_KEY"
BIND_HOST_ENV = "PLAYGROUND_BIND_HOST"
BEHIND_PROXY_ENV = "PLAYGROUND_BEHIND_PROXY"  # set by deploy/workshop.py for its replicas
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


def facilitator_key() -> str | None:
    """The facilitator's key this server was started with, or None."""
    return os.environ.get(FACILITATOR_KEY_ENV) or None


def peer_address() -> str | None:
    """The TCP peer of this session's browser connection, or None when it cannot be told.

    Not ``st.context.ip_address``: that one answers None for loopback, the same as for "no
    idea", and a check that lets a person in must never read "no idea" as "this machine". The
    peer comes from the connection itself, which no header can change.
    """
    try:
        from streamlit import runtime
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx()
        client = runtime.get_instance().get_client(ctx.session_id) if ctx else None
        context = getattr(client, "client_context", None)
        peer = getattr(context, "remote_ip", None)
    except Exception:
        return None
    return peer if isinstance(peer, str) else None


def local_request(ip_address: str | None, headers: object) -> bool:
    """Whether a request may only come from the person who started the server: the server
    listens on loopback only and is not behind a proxy it was told of, the request comes from
    loopback, and no proxy passed it on. (A proxy in front, such as the workshop's nginx,
    forwards everyone's requests from loopback: the workshop tells its replicas so
    (``PLAYGROUND_BEHIND_PROXY``), and the proxy says so in ``X-Forwarded-For`` as well.)"""
    if os.environ.get(BEHIND_PROXY_ENV) or not is_loopback(
            os.environ.get(BIND_HOST_ENV, "127.0.0.1")):
        return False
    if not ip_address or not is_loopback(ip_address):
        return False
    forwarded = headers.get("X-Forwarded-For") if hasattr(headers, "get") else None
    return not forwarded
