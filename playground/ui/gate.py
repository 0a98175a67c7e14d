"""The room's gate: what the web server lets through before Streamlit sees a request.

On a server whose room URL carries a token (:mod:`playground.access.token`), every request
(a page, a script, the websocket a session runs on, an upload, the metrics) needs the access
cookie, except Streamlit's health check (it answers "ok" and nothing else, for nginx and the
workshop's start-up) and the exchange that gives the cookie:

- a request whose ``?token=`` is the room's is answered with a redirect to the same address
  without it, and the cookie (HttpOnly, SameSite=Lax, a month): reloads, other pages, new
  tabs and bookmarks of that browser then need nothing more;
- a connection from this machine that no proxy passed on is the server's own person
  (:func:`playground.access.peers.local_peer`) and needs no cookie;
- anyone else gets a sign-in page (a session: none; a websocket: refused before it opens).

It also serves the facilitator's sign-in (``/_playground/board-sign-in``): the key given once,
wrong keys slowed per address, the board's session cookie given back.
"""

from __future__ import annotations

import html
import os
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl, urlencode, urlsplit

from playground.access.facilitator import (
    BOARD_COOKIE,
    FACILITATOR_KEY_ENV,
    Throttle,
    board_cookie_value,
    signed_in,
)
from playground.access.peers import BEHIND_PROXY_ENV, local_peer
from playground.access.token import cookie_name, cookie_value, required_token, same

Scope = dict
Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]

HEALTH = "/_stcore/health"
BOARD = "/board"
BOARD_SIGN_IN = "/_playground/board-sign-in"
COOKIE_DAYS = 30
MAX_FORM_BYTES = 4096  # a key and nothing else

# The same words as the page's own check (app.py), here as HTML.
SIGN_IN_HTML = ("Sign in: open the room URL that <code>playground run</code> printed (it ends "
                "in <code>?token=...</code>), or ask the person who runs this server for it.")


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in scope.get("headers", [])}


def _cookies(headers: dict[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in headers.get("cookie", "").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            found.setdefault(name, value)
    return found


def _peer(scope: Scope) -> str | None:
    client = scope.get("client")
    return client[0] if client else None


def client_address(scope: Scope, headers: dict[str, str]) -> str:
    """Who is asking, for the wrong-key count: the TCP peer, or behind the workshop's proxy
    (which appends the address it saw) the last address it forwarded."""
    if os.environ.get(BEHIND_PROXY_ENV) and headers.get("x-forwarded-for"):
        return headers["x-forwarded-for"].rsplit(",", 1)[-1].strip()
    return _peer(scope) or "unknown"


def is_local(scope: Scope, headers: dict[str, str]) -> bool:
    """Whether this request comes from the person who started the server."""
    return local_peer(_peer(scope), forwarded="x-forwarded-for" in headers)


def _page(title: str, body: str, status: int, headers: list[tuple[bytes, bytes]] | None = None
          ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """A small page of our own words (already escaped), with no script and nothing fetched."""
    text = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title, quote=False)}</title><style>"
        "body{font-family:system-ui,sans-serif;max-width:34rem;margin:12vh auto;padding:0 1.2rem;"
        "color:#262730;line-height:1.5}h1{font-size:1.5rem}label{display:block;margin:1rem 0 "
        ".3rem}input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box}button{"
        "margin-top:1rem;font-size:1rem;padding:.5rem 1rem;border-radius:.5rem;border:1px solid "
        "#ccc;background:#ff4b4b;color:#fff;cursor:pointer}.note{background:#f0f2f6;padding:"
        ".8rem 1rem;border-radius:.5rem}.error{background:#ffe5e5;padding:.8rem 1rem;"
        "border-radius:.5rem}</style></head>"
        f"<body><h1>{html.escape(title, quote=False)}</h1>{body}</body></html>"
    ).encode()
    return status, [(b"content-type", b"text/html; charset=utf-8"),
                    (b"cache-control", b"no-store"), *(headers or [])], text


async def _respond(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
                   ) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _cookie(name: str, value: str, max_age: int | None, same_site: str) -> tuple[bytes, bytes]:
    age = f"; Max-Age={max_age}" if max_age else ""
    return (b"set-cookie",
            f"{name}={value}; Path=/; HttpOnly; SameSite={same_site}{age}".encode())


def _without_token(scope: Scope) -> str:
    """The address asked for, with its ``token`` parameter left out."""
    query = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                                          keep_blank_values=True) if k != "token"]
    return scope.get("path", "/") + (f"?{urlencode(query)}" if query else "")


class RoomGate:
    """ASGI middleware in front of Streamlit: lets through only the room (see the module).

    Args:
        app: the application behind it (Streamlit's).
        token: the room's token (default: the one ``playground run`` gave this process); None
            lets every browser into the room (a server on loopback only, or ``--no-token``).
        board_key: the facilitator's key (default: the one given this process); with one, the
            board's address sends a browser not signed in to the sign-in page.
    """

    def __init__(self, app, token: str | None = None, board_key: str | None = None) -> None:
        self.app = app
        self.token = token if token is not None else required_token()
        # Derived once: every request of the room compares against it.
        self._expected = cookie_value(self.token) if self.token is not None else ""
        self.board_key = board_key if board_key is not None else (
            os.environ.get(FACILITATOR_KEY_ENV) or None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope.get("path") == HEALTH:
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        local = is_local(scope, headers)
        if self.token is not None and not local and not await self._in_the_room(
                scope, headers, send):
            return
        if scope["type"] == "http" and not local and self._board_unopened(scope, headers):
            # The board opened by its address in a browser not signed in as the facilitator:
            # straight to the server's sign-in page, which comes back here.
            await _respond(send, 303, [(b"location", BOARD_SIGN_IN.encode()),
                                       (b"cache-control", b"no-store")], b"")
            return
        await self.app(scope, receive, send)

    async def _in_the_room(self, scope: Scope, headers: dict[str, str], send: Send) -> bool:
        """Whether the request holds the room's cookie; if not, answer it here (the room URL
        with the cookie, anything else refused) and return False."""
        name = cookie_name(headers.get("host"))
        if same(_cookies(headers).get(name), self._expected):
            return True
        given = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1"))).get("token")
        if scope["type"] == "http" and given and same(given, self.token):
            # The room URL: give the cookie and take the token out of the address bar, so a
            # reload, a bookmark or a shared screen never shows it again.
            await _respond(send, 303, [
                (b"location", _without_token(scope).encode("latin-1")),
                _cookie(name, self._expected, COOKIE_DAYS * 86400, "Lax"),
                (b"cache-control", b"no-store")], b"")
        elif scope["type"] == "websocket":
            # Closed before it is accepted: the server answers the handshake 403, and no
            # session is made.
            await send({"type": "websocket.close", "code": 1008})
        else:
            wrong = ("<p class='error'>That link's token is not this server's: it may have "
                     "been started with a new one.</p>") if given else ""
            await _respond(send, *_page("Time-travel playground",
                                        f"{wrong}<p class='note'>{SIGN_IN_HTML}</p>", 403))
        return False

    def _board_unopened(self, scope: Scope, headers: dict[str, str]) -> bool:
        """Whether this asks for the board's page in a browser not signed in with the key (the
        page itself refuses too; this only saves a click)."""
        if not self.board_key or scope.get("path", "").rstrip("/") != BOARD:
            return False
        cookie = _cookies(headers).get(cookie_name(headers.get("host"), BOARD_COOKIE))
        return not signed_in(cookie, self.board_key)


class BoardSignIn:
    """The facilitator's sign-in: ``GET`` shows the form, ``POST`` checks the key. A right key
    gives the board's session cookie and goes to ``/board``; wrong keys from one address wait
    longer and longer (:class:`playground.access.facilitator.Throttle`)."""

    def __init__(self, key: str | None = None, throttle: Throttle | None = None) -> None:
        self.key = key if key is not None else (os.environ.get(FACILITATOR_KEY_ENV) or None)
        self.throttle = throttle or Throttle()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        if self.key is None:
            await _respond(send, *_page("Facilitator's board", (
                "<p class='note'>This server was started without a facilitator's key, so its "
                "board opens only on the machine that runs it, at <code>/board</code> on "
                "<code>127.0.0.1</code>.</p>"), 404))
            return
        if scope["method"] == "GET":
            await _respond(send, *_form(""))
            return
        if scope["method"] != "POST":
            await _respond(send, 405, [(b"allow", b"GET, POST")], b"")
            return
        if not _same_origin(headers):
            await _respond(send, *_page("Facilitator's board", "<p class='error'>A sign-in "
                                        "comes from the board's own page.</p>", 403))
            return
        client = client_address(scope, headers)
        wait = self.throttle.wait(client)
        if wait > 0:
            seconds = int(wait) + 1
            await _respond(send, *_form(
                f"Too many wrong keys from your address: try again in {seconds} s.", 429,
                [(b"retry-after", str(seconds).encode())]))
            return
        typed = dict(parse_qsl((await _body(receive)).decode("utf-8", "replace"))).get("key", "")
        if same(typed.strip(), self.key):
            self.throttle.succeeded(client)
            name = cookie_name(headers.get("host"), BOARD_COOKIE)
            await _respond(send, 303, [(b"location", b"/board"), (b"cache-control", b"no-store"),
                                       _cookie(name, board_cookie_value(self.key), None,
                                               "Strict")], b"")
            return
        delay = self.throttle.failed(client)
        later = f" Wait {int(delay)} s before the next try." if delay else ""
        await _respond(send, *_form(f"That is not the facilitator's key.{later}", 403))


def _same_origin(headers: dict[str, str]) -> bool:
    """Whether a form post comes from this server's own page (a browser says where from)."""
    origin = headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    return urlsplit(origin).netloc == headers.get("host")


async def _body(receive: Receive) -> bytes:
    """The request's body, up to :data:`MAX_FORM_BYTES` (the rest is not read)."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > MAX_FORM_BYTES or not message.get("more_body"):
            return body[:MAX_FORM_BYTES]


def _form(error: str, status: int = 200, headers: list[tuple[bytes, bytes]] | None = None):
    shown = f"<p class='error' role='alert'>{html.escape(error, quote=False)}</p>" if error else ""
    return _page("Facilitator's board", (
        "<p>The board shows every room's progress, so it asks for the key the server was "
        f"started with.</p>{shown}<form method='post' action='{BOARD_SIGN_IN}'>"
        "<label for='key'>Facilitator key</label>"
        "<input id='key' name='key' type='password' autocomplete='current-password' autofocus>"
        "<button type='submit'>Open the board</button></form>"), status, headers)
