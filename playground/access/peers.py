"""Who is on this machine, and the address other machines reach it by.

A connection whose TCP peer is loopback comes from this machine: nothing on the network can
open one. That is how the person who started the server is told apart from the room, with two
exceptions that make a loopback peer mean nothing: a proxy on this machine (the workshop's
nginx forwards everyone from loopback; it says so with ``X-Forwarded-For``, and the workshop
tells its replicas with ``PLAYGROUND_BEHIND_PROXY``), and a page that makes the server itself
connect somewhere (a server beyond loopback refuses a loopback URL typed into a page:
:mod:`playground.places.typed_targets`).
"""

from __future__ import annotations

import ipaddress
import os
import socket

BEHIND_PROXY_ENV = "PLAYGROUND_BEHIND_PROXY"  # set by deploy/workshop.py for its replicas
BIND_HOST_ENV = "PLAYGROUND_BIND_HOST"  # the address `playground run` listens on


def is_loopback(host: str | None) -> bool:
    """True for an address (or ``localhost``) only this machine can reach, IPv4 mapped into
    IPv6 included (``::ffff:127.0.0.1``, as a dual-stack socket reports a local peer)."""
    if not host:
        return False
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def serves_beyond_loopback() -> bool:
    """Whether this server can be reached from other machines: it listens beyond loopback, or
    a proxy in front of it does (the workshop's replicas)."""
    return bool(os.environ.get(BEHIND_PROXY_ENV)) or not is_loopback(
        os.environ.get(BIND_HOST_ENV, "127.0.0.1"))


def local_peer(peer: str | None, forwarded: bool) -> bool:
    """Whether a connection comes from the person who started the server: its TCP peer is
    loopback, no proxy passed it on (``forwarded``: it carries ``X-Forwarded-For``), and the
    server was not told a proxy stands in front of it. A peer that cannot be told is not."""
    return (is_loopback(peer) and not forwarded
            and not os.environ.get(BEHIND_PROXY_ENV))


def public_address() -> str | None:
    """The address this machine's default route leaves from: what the other machines of its
    network reach it by. None when it has no route but loopback.

    A UDP socket "connected" to an outside address sends nothing; the kernel only picks the
    route and the source address it would use (Streamlit finds its Network URL the same way).
    """
    for family, outside in ((socket.AF_INET, ("198.51.100.1", 9)),
                            (socket.AF_INET6, ("2001:db8::1", 9))):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as probe:
                probe.connect(outside)
                address = probe.getsockname()[0]
        except OSError:
            continue
        if not is_loopback(address):
            return address
    return None


def shown_host(bind_host: str, public_host: str | None = None) -> str:
    """The host a URL of this server names for other machines: ``public_host`` when the
    person chose one (``--public-host``), the address it listens on when that is one address,
    else the address of the default route; loopback when there is none. An IPv6 address comes
    in brackets, ready for a URL."""
    host = public_host or (bind_host if bind_host not in ("0.0.0.0", "::", "") else
                           public_address() or "127.0.0.1")
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
