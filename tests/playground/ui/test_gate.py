"""The room's gate on a real server: ``playground run --host 0.0.0.0 --facilitator-key-env``,
reached over a real socket at this machine's network address as another laptop reaches it.
Without the room's cookie a client gets no page, no session, no upload and no metrics; the
room URL gives the cookie; wrong facilitator keys slow down; the ticket API is given no
secret."""

from __future__ import annotations

import http.client
import os
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from playground.access.peers import public_address
from playground.server_process import start_playground, stop_process
from tests.playground.ui.browser import printed_room_url

ADDRESS = public_address()
pytestmark = pytest.mark.skipif(ADDRESS is None, reason="this machine has no address but "
                                "loopback: the gate lets this machine's own person in")
KEY = "gate-test-facilitator-key"


@dataclass
class Room:
    host: str
    port: int
    token: str
    home: Path
    pid: int

    def ask(self, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        """One request from another machine's point of view (this machine's network address)."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        response.text = response.read().decode("utf-8", "replace")
        connection.close()
        return response

    def cookie(self) -> str:
        """The room's cookie, as the room URL gives it to a browser."""
        given = self.ask("GET", f"/?token={self.token}").getheader("set-cookie")
        return given.split(";", 1)[0]


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    home = tmp_path_factory.mktemp("room")
    url, process = start_playground(home, "--host", "0.0.0.0", "--facilitator-key-env",
                                    "GATE_TEST_KEY", env={"GATE_TEST_KEY": KEY}, cwd=home)
    printed_room_url(home)
    token = (home / ".playground" / "access-token").read_text().strip()
    try:
        yield Room(ADDRESS, urlsplit(url).port, token, home, process.pid)
    finally:
        stop_process(process)


@pytest.mark.parametrize("path", ["/", "/agent?room=abc-123", "/_stcore/metrics",
                                  "/_stcore/host-config", "/static/js/index.js",
                                  "/_stcore/script-health-check", "/_playground/board-sign-in"])
def test_without_the_rooms_cookie_every_path_answers_the_sign_in_page(room, path):
    answer = room.ask("GET", path)

    assert answer.status == 403
    assert "Sign in: open the room URL" in answer.text
    assert "session_events" not in answer.text


def test_the_health_check_answers_without_the_cookie_and_says_nothing_else(room):
    answer = room.ask("GET", "/_stcore/health")

    assert (answer.status, answer.text) == (200, "ok")


def test_without_the_cookie_an_upload_is_refused_before_streamlit_sees_it(room):
    body = b"x" * 1024
    answer = room.ask("PUT", "/_stcore/upload_file/some-session/some-file", body=body,
                      headers={"X-Xsrftoken": "made-up", "Cookie": "_streamlit_xsrf=made-up"})

    assert answer.status == 403


def _handshake(room: Room, cookie: str | None) -> str:
    """Open the page's websocket as a script would; return the server's status line."""
    with socket.create_connection((room.host, room.port), timeout=30) as raw:
        request = (
            f"GET /_stcore/stream HTTP/1.1\r\nHost: {room.host}:{room.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Protocol: streamlit\r\n"
            + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n")
        raw.sendall(request.encode())
        line = raw.recv(4096).split(b"\r\n", 1)[0].decode()
        time.sleep(0.5)  # a session the server made is counted before the socket closes
    return line


def _sessions(room: Room, cookie: str) -> int:
    metrics = room.ask("GET", "/_stcore/metrics", headers={"Cookie": cookie}).text
    return int(re.search(r'session_events_total\{type="connect"\} (\d+)', metrics).group(1))


def test_without_the_cookie_a_script_gets_no_session_and_with_it_one(room):
    cookie = room.cookie()
    before = _sessions(room, cookie)

    assert " 403 " in _handshake(room, None)
    assert _sessions(room, cookie) == before

    assert " 101 " in _handshake(room, cookie)  # the count does see a session when one is made
    assert _sessions(room, cookie) == before + 1


def test_the_room_url_gives_a_cookie_no_page_script_can_read_and_leaves_the_address_bar(room):
    answer = room.ask("GET", f"/agent?room=abc-123&token={room.token}&thread=t1")

    assert answer.status == 303
    assert answer.getheader("location") == "/agent?room=abc-123&thread=t1"
    cookie = answer.getheader("set-cookie")
    assert cookie.startswith(f"playground_access_{room.port}=")
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Max-Age=" in cookie
    assert room.token not in cookie


def test_with_the_cookie_pages_and_metrics_answer(room):
    cookie = room.cookie()

    for path in ("/", "/agent", "/_stcore/metrics"):
        assert room.ask("GET", path, headers={"Cookie": cookie}).status == 200, path


def test_a_link_with_another_token_is_refused_and_says_the_token_changed(room):
    answer = room.ask("GET", "/?token=not-the-rooms-token-000")

    assert answer.status == 403 and answer.getheader("set-cookie") is None
    assert "That link's token is not this server's" in answer.text


def _try_key(room: Room, cookie: str, key: str, origin: str | None = None):
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded",
               "Origin": origin or f"http://{room.host}:{room.port}"}
    return room.ask("POST", "/_playground/board-sign-in", body=f"key={key}".encode(),
                    headers=headers)


def test_wrong_facilitator_keys_slow_down_and_the_right_one_then_signs_in(room):
    cookie = room.cookie()

    answers = [_try_key(room, cookie, f"guess-{n}") for n in range(6)]
    assert [a.status for a in answers] == [403] * 6
    assert all("That is not the facilitator's key." in a.text for a in answers)
    assert "Wait 1 s before the next try." in answers[5].text

    refused = _try_key(room, cookie, KEY)  # too soon: not even checked
    assert refused.status == 429 and refused.getheader("retry-after") == "1"
    assert "Too many wrong keys from your address" in refused.text

    time.sleep(1.1)
    signed = _try_key(room, cookie, KEY)
    assert signed.status == 303 and signed.getheader("location") == "/board"
    board = signed.getheader("set-cookie")
    assert board.startswith(f"playground_board_{room.port}=")
    assert "HttpOnly" in board and "SameSite=Strict" in board and "Max-Age" not in board
    assert KEY not in board


def test_a_key_posted_from_another_site_is_refused_unread(room):
    answer = _try_key(room, room.cookie(), KEY, origin="http://elsewhere.example")

    assert answer.status == 403 and answer.getheader("set-cookie") is None


def test_the_ticket_api_process_is_given_neither_the_token_nor_the_key(room):
    children = [pid for pid in os.listdir("/proc") if pid.isdigit()]
    api = None
    for pid in children:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if b"ticket_api.server" in command and parent == room.pid:
            api = pid
    assert api is not None, "the playground started no ticket API"
    environment = Path(f"/proc/{api}/environ").read_bytes()

    assert room.token.encode() not in environment
    assert KEY.encode() not in environment
    assert b"PLAYGROUND_FACILITATOR_KEY" not in environment


def test_it_prints_one_url_to_hand_out_with_the_network_address_and_the_token(room):
    said = (room.home / "playground.log").read_text()
    urls = re.findall(r"https?://\S+", said)

    handed = [url for url in urls if "token=" in url]
    assert handed == [f"http://{room.host}:{room.port}/?token={room.token}"]
    assert said.splitlines()[0] == f"room URL: {handed[0]}"
    # the only other address is the facilitator's, labelled, on this machine
    assert [url for url in urls if url not in handed] == [f"http://127.0.0.1:{room.port}/board"]
    for noise in ("Local URL", "Network URL", "External URL", "Uvicorn", "Started server",
                  "Did not auto detect", "playground on http"):
        assert noise not in said
