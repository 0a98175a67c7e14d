"""What a URL typed into a page may reach, and what the page says when it may not or fails.

A page (Inspect) lets whoever reaches it type a Postgres URL or an Agent Server's URL, and the
server then connects there. Served beyond loopback (``playground run --host 0.0.0.0``, or behind
the workshop's proxy: :func:`playground.access.peers.serves_beyond_loopback`), that would make
the server everyone's way into the network it runs in, and into its own checkpoints. So, for
every kind a page may type (each kind's ``check_typed`` calls :func:`check_reach`):

- **The server's own place is never opened from a page**: its Postgres database
  (:data:`OWN_DATABASE_ENVS`) on any server, and beyond loopback its Agent Server
  (``playground run --server``; on loopback the person who started it may still inspect it).
- **Beyond loopback, only an origin the person who started the server allowed opens**: those
  in :data:`ALLOWED_ENV` (``playground run --allow-url URL`` fills it). Loopback is a host like
  any other there: the connection is the server's, so a loopback URL would reach the server's
  own machine, not the visitor's.
- **On loopback only, each kind opens what it always did**: any Postgres host with the options
  a page may give, Agent Servers on loopback and the allowed ones.

What is said tells nothing about the target beyond loopback: every refusal is :data:`REFUSED`,
whatever the URL and whatever the reason, and every failure of an allowed target (a refused or
closed port, a silent host, a wrong password, something that is not a database, an HTTP error)
is :data:`FAILED` with the place's safe label (:func:`failure_said`), so a page cannot tell an
open port from a closed one. On loopback the detailed words stay: the developer debugging their
own database needs them.

Nothing here connects, nor asks DNS: a URL is refused before anything leaves the server.
"""

from __future__ import annotations

import ipaddress
import os
import socket

from playground.access.peers import public_address, serves_beyond_loopback
from playground.places.urls import UrlRefused, redact_url
from playground.timetravel.limits import clip

ALLOWED_ENV = "PLAYGROUND_ALLOWED_SERVERS"  # origins a page may open, comma-separated URLs
# Where the server keeps its own data in Postgres: the checkpoints replicas share, and the
# ticket API's database when it is one.
OWN_DATABASE_ENVS = ("PLAYGROUND_DATABASE_URL", "PLAYGROUND_TICKETS_DB")

# Beyond loopback, every refusal of a typed URL, whatever the URL and the reason: so a refusal
# says nothing about what lies at the address.
REFUSED = ("This server opens only the databases and Agent Servers that the person who "
           "started it allowed (playground run --allow-url URL); ask them to add this one.")
# Beyond loopback, every failure of an allowed typed URL, whatever failed: an open port, a
# closed one and a silent host read the same.
FAILED = ("{label} did not answer as a checkpoint database or an Agent Server: it may be down, "
          "refuse this login, or be something else.")

LOOPBACK = "localhost"  # how every loopback spelling compares


def allowed_urls() -> list[str]:
    """The URLs the person who started the server allowed a page to open
    (:data:`ALLOWED_ENV`), each stripped; any kind's, each kind keeps its own."""
    return [item.strip() for item in os.environ.get(ALLOWED_ENV, "").split(",")
            if item.strip()]


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """A numeric host as the address it names, or None for a name.

    Spelt as the system's resolver reads it, without asking DNS: ``127.1``, ``2130706433`` and
    ``0x7f.0.0.1`` are 127.0.0.1 to libpq and httpx alike (``inet_aton``), and an IPv4 address
    mapped into IPv6 is the IPv4 one.
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, ValueError):
            return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def host_key(host: str | None) -> str:
    """A host as origins are compared: lower case, without brackets or a final dot, a numeric
    address in its one spelling, and every loopback name or address as ``localhost``."""
    host = (host or "").strip().strip("[]").rstrip(".").lower()
    address = _address(host)
    if host == LOOPBACK or (address is not None and address.is_loopback):
        return LOOPBACK
    return str(address) if address is not None else host


def this_machine(host: str | None) -> bool:
    """Whether a host names the machine the server runs on, in a spelling known without DNS:
    loopback, the unspecified address (a connection to 0.0.0.0 lands here), a ``.localhost``
    name, this machine's own name, or the address its default route leaves from. A socket
    path or an empty host (libpq's local socket) is this machine too."""
    if not host or host.startswith("/"):
        return True
    key = host_key(host)
    address = _address(key)
    return (key == LOOPBACK or key.endswith(".localhost")
            or (address is not None and address.is_unspecified)
            or key == socket.gethostname().lower()
            or key == host_key(public_address()))


def same_host(a: str | None, b: str | None) -> bool:
    """Whether two hosts name one machine: the same host however spelt, or both this one.
    (Only for finding the server's own place: refusing more is the safe side there.)"""
    return host_key(a) == host_key(b) or (this_machine(a) and this_machine(b))


def check_reach(*, own: bool, allowed: bool, own_on_loopback: str | None,
                loopback: str | None) -> None:
    """Refuse a typed target a page may not reach (the module's docstring says the rule).

    Args:
        own: the target is the server's own place.
        allowed: its origin is one the person who started the server allowed.
        own_on_loopback: on a server on loopback only, why its own place is refused; None when
            its owner may open it there (an Agent Server ``--server`` named).
        loopback: on a server on loopback only, why a target not allowed is refused; None
            when it opens (any Postgres host, a loopback Agent Server).

    Raises:
        UrlRefused: beyond loopback :data:`REFUSED`, whatever the reason; on loopback the
            kind's own words.
    """
    if serves_beyond_loopback():
        if own or not allowed:
            raise UrlRefused(REFUSED)
        return
    if own:
        if own_on_loopback:
            raise UrlRefused(own_on_loopback)
        return
    if not allowed and loopback:
        raise UrlRefused(loopback)


def failure_said(exc: BaseException, label: str) -> str:
    """What a page says when a target typed into it failed to open or read (plain text: the
    page escapes it).

    Beyond loopback :data:`FAILED`, the same whatever failed; on loopback the error's own line
    (it names the place; when it does not, the label leads). The label goes through the one
    redactor, so no password is said either way.
    """
    label = clip(redact_url(label), 300)
    if serves_beyond_loopback():
        return FAILED.format(label=label)
    said = redact_url(str(exc).strip()) or type(exc).__name__
    return said if said.startswith(f"{label}: ") else f"{label}: {said}"
