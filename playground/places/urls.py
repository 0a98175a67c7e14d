"""Database URLs: which are Postgres, how one is shown without its password, and what a URL
typed into a browser may ask the server to connect to.

The one redactor for every place a URL is shown or logged (the pages, the CLI, the ticket
API): it hides a password in the authority, however many ``@`` it holds, and one given as
``?password=``.

A URL typed into Inspect comes from whoever reaches the page, and libpq does much with a URL:
it looks a password up in the server's pgpass file by ``host`` while connecting to
``hostaddr`` (sending the server's stored password to another machine), reads services and
client certificates from the server's files and ``PG*`` environment, and tries every host of a
list in turn. :func:`typed_connection` accepts only host, port, user, password and dbname, plus
``sslmode`` and ``connect_timeout`` up to the cap, and connects with nothing of the server's:
no pgpass, no environment password, no client certificate.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from playground.places.settings import read_options

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

# Greedy up to the last "@" of the authority, so a password holding a raw "@" is all hidden.
_PASSWORD_IN_NETLOC = re.compile(r"(://[^:/@?#]*:)[^/?#]*@")
_PASSWORD_IN_QUERY = re.compile(r"(?i)([?&]password=)[^&#]*")
_TYPED_OPTIONS = {"sslmode", "connect_timeout"}
_SSLMODES = {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}
# The server's libpq environment that would mix its own settings into a typed URL and that a
# keyword cannot switch off (an empty keyword means "not given" to libpq).
_SERVER_ENV = ("PGHOSTADDR", "PGSERVICE", "PGSERVICEFILE")
# Stands for "no password" so libpq does not take PGPASSWORD from the server's environment;
# a server that trusts the client never asks for it.
_NO_PASSWORD = "playground-no-password"
_NO_FILE = "/nonexistent/playground-no-file"


class UrlRefused(ValueError):
    """A typed URL the server will not connect to; the message says why, without secrets."""


def is_postgres_url(target: object) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL, False for a file path."""
    return str(target).startswith(POSTGRES_SCHEMES)


def redact_url(url: str) -> str:
    """A database URL with its password replaced by ``***``, safe to print, show or log."""
    return _PASSWORD_IN_QUERY.sub(r"\1***", _PASSWORD_IN_NETLOC.sub(r"\1***@", url))


def typed_connection(url: str, *, connect_cap: float, statement_timeout: float
                     ) -> dict[str, Any]:
    """The keyword arguments ``psycopg.connect`` gets for a URL typed into a page.

    Args:
        url: the URL as typed.
        connect_cap: the most seconds the connection may take (a larger ``connect_timeout``
            is refused).
        statement_timeout: seconds after which the server stops any one statement.

    Raises:
        UrlRefused: not a Postgres URL, several hosts, an option other than sslmode and
            connect_timeout (``hostaddr``, ``passfile``, ``service``...), or a server whose
            environment would add its own settings.
    """
    url = url.strip()
    if not is_postgres_url(url):
        raise UrlRefused("a Postgres URL starts with postgresql://")
    parts = urlsplit(url)
    if parts.fragment:
        raise UrlRefused("a Postgres URL has no #fragment")
    hosts = parts.netloc.rpartition("@")[2]
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if "," in hosts or not host or host.lower().startswith(("%2f", "/")):
        raise UrlRefused("name one host (host or host:port): several hosts, an empty host, a "
                         "socket path or a port that is not a number are not accepted here")
    user = unquote(parts.username or "")
    password = None if parts.password is None else unquote(parts.password)
    options: dict[str, str] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key not in _TYPED_OPTIONS:
            raise UrlRefused(f"{key!r} is not accepted in a URL typed here: give host, port, "
                             "user, password and database, and only sslmode or "
                             "connect_timeout after ?")
        options[key] = value
    if options.get("sslmode", "prefer") not in _SSLMODES:
        raise UrlRefused(f"sslmode must be one of {', '.join(sorted(_SSLMODES))}")
    timeout = options.get("connect_timeout")
    if timeout is not None and not (timeout.isdigit() and 0 < int(timeout) <= connect_cap):
        raise UrlRefused(f"connect_timeout must be a whole number of seconds from 1 to "
                         f"{connect_cap:g}")
    for name in _SERVER_ENV:
        if os.environ.get(name):
            raise UrlRefused(f"this server's environment sets {name}, which libpq would apply "
                             "to any URL: typed URLs are refused here")
    dbname = unquote(parts.path.lstrip("/"))
    return {
        "host": host, "port": port or 5432,
        "dbname": dbname or user or "postgres", "user": user or "postgres",
        # Only a password the URL carries is ever sent; never the server's pgpass or
        # PGPASSWORD, and no client certificate of the server's.
        "password": password if password is not None else _NO_PASSWORD,
        "passfile": _NO_FILE, "sslcert": _NO_FILE, "sslkey": _NO_FILE,
        "sslmode": options.get("sslmode", "prefer"),
        "connect_timeout": int(timeout) if timeout else max(int(connect_cap), 1),
        "options": read_options(statement_timeout),
        "application_name": "time-travel-playground inspect",
    }
