"""Who a page is talking to: a browser of the room, the person who started the server, the
facilitator.

The room's gate (:mod:`playground.ui.gate`) refuses a request without the room's cookie before
Streamlit makes a session. A page checks again from its session's own handshake (its cookies,
its TCP peer), so a server started some other way (a bare ``streamlit run app.py``, AppTest)
still shows a room only to the room. The rules are :mod:`playground.access`'s.
"""

from __future__ import annotations

import os

import streamlit as st

from playground.access.facilitator import BOARD_COOKIE, FACILITATOR_KEY_ENV, signed_in
from playground.access.peers import local_peer
from playground.access.token import cookie_name, cookie_value, required_token, same


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


def _handshake() -> tuple[dict, dict]:
    """This session's request headers and cookies (empty without a browser behind it)."""
    try:
        return dict(st.context.headers), dict(st.context.cookies)
    except (AttributeError, RuntimeError):
        return {}, {}


def servers_own_person() -> bool:
    """Whether this session's browser runs on the server's machine and no proxy passed it on
    (:func:`playground.access.peers.local_peer`)."""
    headers, _ = _handshake()
    forwarded = any(name.lower() == "x-forwarded-for" for name in headers)
    return local_peer(peer_address(), forwarded)


def in_the_room() -> bool:
    """Whether this session may see the room: the server asks for no token, or the browser
    holds the room's cookie, or it is the server's own person."""
    token = required_token()
    if token is None:
        return True
    headers, cookies = _handshake()
    name = cookie_name(headers.get("Host") or headers.get("host"))
    return same(cookies.get(name), cookie_value(token)) or servers_own_person()


def facilitator_key() -> str | None:
    """The facilitator's key this server was started with, or None."""
    return os.environ.get(FACILITATOR_KEY_ENV) or None


def board_open() -> bool:
    """Whether this session may see the board: the server's own person, or a browser that
    signed in with the facilitator's key (its board cookie)."""
    if servers_own_person():
        return True
    headers, cookies = _handshake()
    name = cookie_name(headers.get("Host") or headers.get("host"), BOARD_COOKIE)
    return signed_in(cookies.get(name), facilitator_key())
