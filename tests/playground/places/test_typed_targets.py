"""What a URL typed into a page may reach, and what the page says, against the real kinds.

A room server (one that serves beyond loopback) opens only what the person who started it
allowed, never its own checkpoints, and says every refusal, and every failure of an allowed
URL, in one sentence that tells nothing about the address: a closed port, an open one that
answers garbage and a silent one read the same. A server on loopback keeps the detailed words.
An Agent Server's key goes only to the server ``playground run --server`` named.

The ports are real sockets on this machine: a port bound and closed again, a listener that
answers like an SSH server, a listener that never answers; the unroutable address is whatever
the network makes of it (a timeout, or a proxy's answer): the sentence is the same either way.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from playground.places.door import open_place
from playground.places.typed_targets import FAILED, REFUSED
from playground.timetravel.limits import reset_limits
from playground.ui.inspect_access import AccessRefused, check_typed_url, typed_error
from tests import postgres
from tests.playground.ports import SSH_BANNER, free_port, listener

KEY = "lsv2-secret-key-never-sent-0123456789"
UNROUTABLE = "10.255.255.1"
ENV = ("PLAYGROUND_BIND_HOST", "PLAYGROUND_BEHIND_PROXY", "PLAYGROUND_ALLOWED_SERVERS",
       "PLAYGROUND_SERVER_URL", "PLAYGROUND_DATABASE_URL", "PLAYGROUND_TICKETS_DB",
       "LANGSMITH_API_KEY", "PLAYGROUND_SERVER_KEY_ENV", "PLAYGROUND_SERVER_HEADERS")


@pytest.fixture(autouse=True)
def plain_server(monkeypatch) -> Iterator[None]:
    """A server on loopback with nothing allowed, and short deadlines: a silent host costs
    two seconds (libpq's least connect_timeout), not ten."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PLAYGROUND_CONNECT_TIMEOUT", "2")
    monkeypatch.setenv("PLAYGROUND_READ_TIMEOUT", "2")
    reset_limits()
    yield
    monkeypatch.undo()
    reset_limits()


@pytest.fixture
def room_server(monkeypatch) -> None:
    """This process serves beyond loopback, as `playground run --host 0.0.0.0` does."""
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "0.0.0.0")


def _allow(monkeypatch, *urls: str) -> None:
    monkeypatch.setenv("PLAYGROUND_ALLOWED_SERVERS", ",".join(urls))


def _refusal(url: str) -> str:
    """What the page says of a URL it refuses (fails when it is not refused)."""
    with pytest.raises(AccessRefused) as refused:
        check_typed_url(url)
    return str(refused.value)


def _failure(url: str) -> tuple[str, str]:
    """(what the page says, the place's label) of an allowed URL that fails to open or read."""
    check_typed_url(url)
    place = open_place(url, typed=True)
    try:
        storage = place.reads()
        try:
            storage.thread_ids()  # an Agent Server is first asked here
        finally:
            storage.close()
    except Exception as exc:  # what the page catches: every error of a typed URL
        return typed_error(exc, place.label), place.label
    finally:
        place.close()
    raise AssertionError(f"{url} opened")


@pytest.fixture
def garbage_port() -> Iterator[int]:
    """An open port of something else: it answers like an SSH server."""
    with listener(SSH_BANNER) as (port, _):
        yield port


@pytest.fixture
def silent_port() -> Iterator[int]:
    """An open port that takes the connection and never says a word."""
    with listener(None) as (port, _):
        yield port


def _tails(said: list[tuple[str, str]]) -> set[str]:
    """Each message with its place's label taken out: what tells one target from another."""
    return {text.replace(label, "<label>") for text, label in said}


# -- a room server: refusals --------------------------------------------------------------

def test_on_a_room_server_its_own_database_a_loopback_agent_server_and_remote_ports_are_refused_in_one_sentence(  # noqa: E501
        room_server, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DATABASE_URL",
                       "postgresql://postgres@127.0.0.1:5432/workshop")
    monkeypatch.setenv("PLAYGROUND_SERVER_URL", "http://127.0.0.1:2024")
    # Even allowed, the server's own places stay closed; loopback is a host like another.
    _allow(monkeypatch, "postgresql://127.0.0.1:5432", "http://127.0.0.1:2024")
    typed = [
        "postgresql://postgres@127.0.0.1:5432/workshop",  # the server's own database
        "postgresql://postgres@localhost:5432/workshop",  # spelt otherwise
        "postgresql://postgres@[::1]:5432/workshop",
        "postgresql://postgres@127.1/workshop",
        "postgresql://postgres:guess@LOCALHOST./workshop?sslmode=disable",
        "http://127.0.0.1:2024",  # the server's own Agent Server
        "http://localhost:2024/",
        "http://127.0.0.1:8123",  # any other loopback port
        "postgresql://postgres@127.0.0.1:6543/app",
        "postgresql://app@10.0.0.5:5432/app",  # a remote host's ports
        "postgresql://app@10.0.0.5:22/app",
        f"postgresql://app@{UNROUTABLE}/app",
        "http://10.0.0.5:2024",
        "http://169.254.169.254/latest/meta-data",
    ]

    said = {url: _refusal(url) for url in typed}

    assert set(said.values()) == {REFUSED}, said


def test_on_a_room_server_a_refused_url_is_never_connected_to(room_server, monkeypatch):
    with listener(SSH_BANNER) as (port, seen):
        for url in (f"postgresql://postgres@127.0.0.1:{port}/app", f"http://127.0.0.1:{port}"):
            assert _refusal(url) == REFUSED
            with pytest.raises(Exception, match="This server opens only"):
                open_place(url, typed=True).reads()
        assert seen == []


def test_behind_the_workshops_proxy_a_loopback_port_is_refused_too(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "127.0.0.1")
    monkeypatch.setenv("PLAYGROUND_BEHIND_PROXY", "1")

    assert _refusal("http://127.0.0.1:2024") == REFUSED
    assert _refusal("postgresql://postgres@127.0.0.1:5432/other") == REFUSED


def test_on_a_room_server_an_allowed_origin_opens_and_its_neighbours_do_not(
        room_server, monkeypatch):
    _allow(monkeypatch, "postgresql://db.example:6543", "https://agents.example")

    check_typed_url("postgresql://app:pw@db.example:6543/anything")
    check_typed_url("postgresql://app@DB.example.:6543/other")
    check_typed_url("https://agents.example/")
    assert _refusal("postgresql://app@db.example/anything") == REFUSED  # 5432, not 6543
    assert _refusal("http://agents.example") == REFUSED  # another scheme, another port
    assert _refusal("https://agents.example:8443") == REFUSED


# -- a room server: failures of an allowed URL --------------------------------------------

def test_on_a_room_server_an_allowed_postgres_that_fails_says_one_sentence_for_closed_open_and_silent_ports(  # noqa: E501
        room_server, monkeypatch, garbage_port, silent_port):
    closed = free_port()
    _allow(monkeypatch, *(f"postgresql://127.0.0.1:{port}"
                          for port in (closed, garbage_port, silent_port)),
           f"postgresql://{UNROUTABLE}:5432")

    said = [_failure(f"postgresql://ann:s3cret@127.0.0.1:{port}/app")
            for port in (closed, garbage_port, silent_port)]
    said.append(_failure(f"postgresql://ann:s3cret@{UNROUTABLE}:5432/app?connect_timeout=2"))

    assert _tails(said) == {FAILED.format(label="<label>")}, said
    text = " ".join(message for message, _ in said)
    assert "s3cret" not in text and "ann:***@127.0.0.1" in text
    for detail in ("SSL", "refused", "timeout", "SSH", "Connection"):
        assert detail not in " ".join(_tails(said))


def test_on_a_room_server_an_allowed_agent_server_that_fails_says_the_same_sentence(
        room_server, monkeypatch, garbage_port, silent_port):
    closed = free_port()
    _allow(monkeypatch, *(f"http://127.0.0.1:{port}"
                          for port in (closed, garbage_port, silent_port)))

    said = [_failure(f"http://127.0.0.1:{port}") for port in (closed, garbage_port, silent_port)]

    assert _tails(said) == {FAILED.format(label="<label>")}, said


@pytest.fixture
def checkpoint_database(monkeypatch) -> Iterator[str]:
    """A real Postgres database with PostgresSaver's tables (skipped without a server)."""
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        with open_place(url).saver():  # PostgresSaver makes its tables
            pass
        yield url


def _rename(url: str, dbname: str) -> str:
    return url.rsplit("/", 1)[0] + f"/{dbname}"


def test_on_a_room_server_an_allowed_real_postgres_opens_and_its_refusals_read_as_failures(
        room_server, monkeypatch, checkpoint_database, garbage_port):
    host_port = checkpoint_database.split("@", 1)[1].rsplit("/", 1)[0]
    _allow(monkeypatch, f"postgresql://{host_port}", f"postgresql://127.0.0.1:{garbage_port}")

    check_typed_url(checkpoint_database)
    open_place(checkpoint_database, typed=True).reads().close()  # it opens
    # The same server, asked for what it refuses or lacks, and a port of something else: one
    # sentence (the server's own answers would tell a database from a port).
    with postgres.throwaway_database() as empty:  # no saver tables
        said = [_failure(empty), _failure(_rename(checkpoint_database, "no_such_database")),
                _failure(f"postgresql://postgres@127.0.0.1:{garbage_port}/app")]

    assert _tails(said) == {FAILED.format(label="<label>")}, said


def test_on_a_room_server_the_servers_own_real_database_is_refused_however_it_is_spelt(
        room_server, monkeypatch, checkpoint_database):
    monkeypatch.setenv("PLAYGROUND_DATABASE_URL", checkpoint_database)
    host_port = checkpoint_database.split("@", 1)[1].rsplit("/", 1)[0]
    _allow(monkeypatch, f"postgresql://{host_port}")
    dbname = checkpoint_database.rsplit("/", 1)[1]

    for url in (checkpoint_database, f"postgresql://postgres@localhost/{dbname}",
                f"postgresql://someone@[::1]:5432/{dbname}"):
        assert _refusal(url) == REFUSED


# -- a server on loopback only: as before -------------------------------------------------

def test_on_loopback_any_postgres_host_and_loopback_agent_servers_open_and_others_are_refused_in_detail(  # noqa: E501
        monkeypatch):
    check_typed_url("postgresql://app@10.0.0.5:5432/app")
    check_typed_url("postgresql://app@127.0.0.1:6543/app")
    check_typed_url("http://127.0.0.1:2024")
    check_typed_url("http://localhost:8123")

    assert "10.0.0.5 is not a server this playground may open" in _refusal(
        "http://10.0.0.5:2024")
    assert "'hostaddr' is not accepted" in _refusal("postgresql://h/db?hostaddr=10.0.0.5")


def test_on_loopback_the_owner_may_still_inspect_the_server_named_by_dash_dash_server(
        monkeypatch):
    monkeypatch.setenv("PLAYGROUND_SERVER_URL", "http://10.0.0.5:2024")

    check_typed_url("http://10.0.0.5:2024/")


def test_on_loopback_the_servers_own_database_is_refused_and_said_to_be_its_own(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DATABASE_URL", "postgresql://postgres@localhost/workshop")

    said = _refusal("postgresql://postgres@127.0.0.1:5432/workshop")

    assert "the playground's own checkpoint database" in said
    check_typed_url("postgresql://postgres@127.0.0.1:5432/another")  # the same server's other


def test_on_loopback_a_failure_keeps_its_detail_for_closed_and_open_ports(
        monkeypatch, garbage_port):
    closed = free_port()

    refused, _ = _failure(f"postgresql://ann:s3cret@127.0.0.1:{closed}/app")
    garbage, _ = _failure(f"postgresql://ann:s3cret@127.0.0.1:{garbage_port}/app")
    server, _ = _failure(f"http://127.0.0.1:{closed}")

    assert "Connection refused" in refused and "ann:***@127.0.0.1" in refused
    assert "SSL" in garbage  # libpq's words for what the port answered
    assert "no Agent Server answers there" in server
    assert "s3cret" not in refused + garbage


# -- the Agent Server's key ---------------------------------------------------------------

class _Recorder(BaseHTTPRequestHandler):
    """An Agent Server that lists no thread, and keeps the headers of every request."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        self.server.seen.append({name.lower(): value for name, value in self.headers.items()})
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps([]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def recorder(monkeypatch) -> Iterator[tuple[str, list[dict]]]:
    """A tiny real Agent Server on a free port; (its URL, the headers each request carried).
    The key and a custom header are set, as `playground run` would pass them."""
    monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
    monkeypatch.setenv("PLAYGROUND_SERVER_HEADERS", json.dumps({"x-tenant-secret": "t0p"}))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.daemon_threads = True
    server.seen = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", server.seen
    server.shutdown()
    server.server_close()


def _list_threads(url: str, typed: bool) -> None:
    place = open_place(url, typed=typed)
    try:
        assert place.reads().thread_ids() == []
    finally:
        place.close()


def test_on_a_room_server_a_typed_allowed_server_gets_no_key(room_server, monkeypatch,
                                                             recorder):
    url, seen = recorder
    _allow(monkeypatch, url)

    _list_threads(url, typed=True)

    assert seen and all("x-api-key" not in headers and "x-tenant-secret" not in headers
                        for headers in seen)


def test_on_loopback_a_typed_server_gets_no_key_unless_it_is_the_one_dash_dash_server_named(
        monkeypatch, recorder):
    url, seen = recorder

    _list_threads(url, typed=True)  # a loopback port a page typed
    assert "x-api-key" not in seen[-1] and "x-tenant-secret" not in seen[-1]

    monkeypatch.setenv("PLAYGROUND_SERVER_URL", url.replace("127.0.0.1", "localhost"))
    _list_threads(url, typed=True)  # the owner inspecting their own --server
    assert seen[-1].get("x-api-key") == KEY and seen[-1].get("x-tenant-secret") == "t0p"


def test_a_server_a_person_named_themselves_gets_the_key(room_server, recorder):
    url, seen = recorder

    _list_threads(url, typed=False)  # a command's target, or `playground run --server`

    assert seen[-1].get("x-api-key") == KEY
