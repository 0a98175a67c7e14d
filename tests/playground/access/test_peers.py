"""Who is on this machine: loopback peers the server's own person unless a proxy passed them on;
the address other machines reach this one by."""

from __future__ import annotations

import pytest

from playground.access.peers import (
    BEHIND_PROXY_ENV,
    BIND_HOST_ENV,
    is_loopback,
    local_peer,
    public_address,
    serves_beyond_loopback,
    shown_host,
)


@pytest.fixture(autouse=True)
def _plain(monkeypatch):
    monkeypatch.delenv(BEHIND_PROXY_ENV, raising=False)
    monkeypatch.delenv(BIND_HOST_ENV, raising=False)


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.0.1.1", "::1", "::ffff:127.0.0.1",
                                  "localhost"])
def test_a_loopback_peer_is_the_servers_own_person(peer):
    assert is_loopback(peer)
    assert local_peer(peer, forwarded=False)


@pytest.mark.parametrize("peer", [None, "", "192.0.2.2", "10.0.0.7", "2001:db8::1",
                                  "::ffff:10.0.0.7", "vm", "127.evil.example"])
def test_a_peer_from_elsewhere_or_of_unknown_origin_is_not(peer):
    assert not local_peer(peer, forwarded=False)


def test_a_request_a_proxy_passed_on_is_not_even_from_loopback():
    assert not local_peer("127.0.0.1", forwarded=True)


def test_a_server_told_it_is_behind_a_proxy_takes_no_loopback_peer_for_its_owner(monkeypatch):
    monkeypatch.setenv(BEHIND_PROXY_ENV, "1")

    assert not local_peer("127.0.0.1", forwarded=False)
    assert serves_beyond_loopback()


@pytest.mark.parametrize(("bind", "beyond"), [("127.0.0.1", False), ("::1", False),
                                              ("0.0.0.0", True), ("192.0.2.2", True)])
def test_a_server_serves_beyond_loopback_when_it_listens_there(monkeypatch, bind, beyond):
    monkeypatch.setenv(BIND_HOST_ENV, bind)

    assert serves_beyond_loopback() is beyond


def test_the_address_to_hand_out_is_the_one_other_machines_reach():
    found = public_address()
    if found is None:
        pytest.skip("this machine has no route but loopback")

    assert not is_loopback(found)
    assert shown_host("0.0.0.0") in (found, f"[{found}]")


def test_a_chosen_host_or_a_bound_address_is_what_the_url_names():
    assert shown_host("0.0.0.0", "workshop.local") == "workshop.local"
    assert shown_host("192.0.2.2") == "192.0.2.2"
    assert shown_host("::", "2001:db8::2") == "[2001:db8::2]"
