"""Inspect on a room server (one that serves beyond loopback), as a visitor sees it (AppTest):
a URL typed into the page reaches only what the person who started the server allowed, never
the server's own checkpoints, and every refusal and every failure is one sentence that tells
nothing about the address."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from playground.places.typed_targets import FAILED, REFUSED
from playground.timetravel.limits import reset_limits
from tests import postgres
from tests.playground.ports import SSH_BANNER, free_port, listener
from tests.playground.ui.conftest import rendered

NOT_OPENED = "Not opened, nothing changed: "


@pytest.fixture
def room(app, monkeypatch) -> Iterator:
    """A factory: ``room()`` is a session on Inspect of a server started with ``--host
    0.0.0.0`` (its access token left out: the gate is not what is under test here)."""
    for name in ("PLAYGROUND_ALLOWED_SERVERS", "PLAYGROUND_SERVER_URL",
                 "PLAYGROUND_DATABASE_URL", "PLAYGROUND_BEHIND_PROXY", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "0.0.0.0")
    monkeypatch.setenv("PLAYGROUND_CONNECT_TIMEOUT", "2")
    reset_limits()

    def make():
        return app().switch_page("views/inspect.py").run()

    yield make
    monkeypatch.undo()
    reset_limits()


def _postgres(page, url: str):
    page.text_input(key="inspect-pg-url").input(url)
    return page.button(key="FormSubmitter:inspect-pg-form-Connect").click().run()


def _server(page, url: str):
    page.text_input(key="inspect-server-url").input(url)
    return page.button(key="FormSubmitter:inspect-server-form-Connect").click().run()


def _said(page) -> str:
    assert not page.exception, page.exception
    assert len(page.error) == 1, [e.value for e in page.error]
    return rendered(page.error[0].value)


def test_inspect_on_a_room_server_refuses_loopback_and_remote_urls_in_one_sentence_and_connects_nowhere(  # noqa: E501
        room):
    page = room()
    with listener(SSH_BANNER) as (port, seen):
        said = [_said(_server(page, f"http://127.0.0.1:{port}")),
                _said(_postgres(page, f"postgresql://postgres@127.0.0.1:{port}/app")),
                _said(_postgres(page, "postgresql://app:pw@10.0.0.5:5432/app")),
                _said(_server(page, "http://169.254.169.254/latest"))]

        assert set(said) == {NOT_OPENED + REFUSED}
        assert seen == []  # refused before anything left the server
    assert not page.dataframe


def test_inspect_on_a_room_server_says_one_sentence_when_an_allowed_port_is_closed_or_answers_garbage(  # noqa: E501
        room, monkeypatch):
    closed = free_port()
    with listener(SSH_BANNER) as (garbage, _):
        monkeypatch.setenv("PLAYGROUND_ALLOWED_SERVERS", ",".join(
            [f"postgresql://127.0.0.1:{port}" for port in (closed, garbage)]
            + [f"http://127.0.0.1:{port}" for port in (closed, garbage)]))
        page = room()
        said = {
            f"postgresql://ann:***@127.0.0.1:{closed}/app": _said(
                _postgres(page, f"postgresql://ann:s3cret@127.0.0.1:{closed}/app")),
            f"postgresql://ann:***@127.0.0.1:{garbage}/app": _said(
                _postgres(page, f"postgresql://ann:s3cret@127.0.0.1:{garbage}/app")),
        }
        # An Agent Server is first asked when its threads are listed: the same sentence then.
        for port in (closed, garbage):
            page = room()
            said[f"http://127.0.0.1:{port}"] = _said(_server(page, f"http://127.0.0.1:{port}"))

    tails = {text.replace(label, "<label>").removeprefix(NOT_OPENED)
             for label, text in said.items()}
    assert tails == {FAILED.format(label="<label>")}, said
    assert "s3cret" not in " ".join(said.values())


def test_inspect_on_a_room_server_refuses_the_servers_own_database_like_any_other(
        room, monkeypatch):
    url = postgres.database_url()
    if not url:
        pytest.skip(postgres.SKIP_REASON)
    monkeypatch.setenv("PLAYGROUND_DATABASE_URL", url)
    monkeypatch.setenv("PLAYGROUND_ALLOWED_SERVERS",
                       "postgresql://" + url.split("@", 1)[1].rsplit("/", 1)[0])
    page = room()

    said = _said(_postgres(page, url.replace("127.0.0.1", "localhost")))

    assert said == NOT_OPENED + REFUSED
    assert not page.dataframe
