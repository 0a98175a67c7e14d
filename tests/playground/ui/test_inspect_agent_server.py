"""Inspect on an Agent Server's URL (Streamlit's AppTest; a real ``langgraph dev``): its threads
read through the API, the question against its node; a URL beyond loopback refused unless the
person who started the playground allowed it."""

from __future__ import annotations

import pytest

from tests.playground.ui.conftest import rendered


@pytest.fixture
def page(app):
    at = app()
    return at.switch_page("views/inspect.py").run()


def _connect(page, url: str):
    page.text_input(key="inspect-server-url").input(url)
    return page.button(key="FormSubmitter:inspect-server-form-Connect").click().run()


def test_a_server_url_opens_its_threads_read_through_the_api(page, agent_server, ui):
    url, made = agent_server
    _connect(page, url)
    assert not page.exception and not page.error, [e.value for e in page.error]
    texts = rendered(ui.texts(page))
    assert "written by a LangGraph Agent Server (its HTTP API)" in texts, texts
    page.selectbox(key="inspect-thread").set_value(made["waiting"]).run()
    texts = rendered(ui.texts(page))
    assert "**tools** asks: Approve a refund of $40.00 for order A17?" in texts


def test_a_server_beyond_loopback_is_refused_unless_allowed(page, monkeypatch):
    _connect(page, "http://10.1.2.3:2024")
    assert len(page.error) == 1
    assert "not a server this playground may open from a page" in rendered(page.error[0].value)
    assert not page.dataframe


def test_a_servers_refusal_is_said_once_with_its_reason_and_not_as_passing(page):
    from tests.playground.stand_in_server import stand_in_server, url_of

    with stand_in_server() as server:
        server.quirks = {"refuse"}
        url = url_of(server)
        _connect(page, url)

        assert not page.exception
        said = rendered(page.error[0].value)
        assert "the server refused the request (422: Value error, unknown field)" in said, said
        assert said.count("127.0.0.1") == 1  # the URL once
        assert "just now" not in said
