"""Who the board takes for the person who started the server: only a loopback connection to a
loopback-only server that no proxy stands in front of."""

from __future__ import annotations

import pytest

from playground.ui.access import local_request


@pytest.fixture(autouse=True)
def _plain(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "127.0.0.1")
    monkeypatch.delenv("PLAYGROUND_BEHIND_PROXY", raising=False)


def test_a_loopback_connection_to_a_loopback_server_is_the_servers_own_person():
    assert local_request("127.0.0.1", {}) and local_request("::1", {})


@pytest.mark.parametrize("peer", [None, "10.0.0.7", "192.168.1.20", "2001:db8::1"])
def test_a_connection_from_elsewhere_or_of_unknown_origin_is_not(peer):
    assert not local_request(peer, {})


def test_a_request_a_proxy_passed_on_is_not_even_from_loopback():
    assert not local_request("127.0.0.1", {"X-Forwarded-For": "10.0.0.7"})


def test_a_server_told_it_is_behind_a_proxy_takes_no_request_for_local(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_BEHIND_PROXY", "1")
    assert not local_request("127.0.0.1", {})


def test_a_server_that_listens_beyond_loopback_takes_no_request_for_local(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_BIND_HOST", "0.0.0.0")
    assert not local_request("127.0.0.1", {})
