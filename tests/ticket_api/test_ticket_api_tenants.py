"""Tenant isolation (X-Tenant) and reset over a real socket."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from ticket_api.domain import Ticket
from ticket_api.server import EmbeddedServer


@pytest.fixture
def other(api: EmbeddedServer, tenant: str) -> Iterator[httpx.Client]:
    """A client for a second tenant, next to ``client``."""
    with httpx.Client(base_url=api.url, headers={"X-Tenant": f"{tenant}-b"}, timeout=30) as c:
        yield c


def test_a_write_in_one_tenant_is_invisible_to_another(client: httpx.Client,
                                                       other: httpx.Client) -> None:
    response = client.patch("/tickets/t7", json={"priority": "urgent"},
                            headers={"If-Match": '"v1"'})
    assert response.status_code == 200
    theirs = other.get("/tickets/t7")
    assert theirs.headers["etag"] == '"v1"'
    assert theirs.json()["priority"] == "normal"
    summaries = {t["id"]: t for t in other.get("/tickets").json()["tickets"]}
    assert summaries["t7"]["version"] == 1
    assert other.get("/tickets/t7/history").json()["entries"] == []
    assert len(client.get("/tickets/t7/history").json()["entries"]) == 1


def test_other_tenants_ticket_is_404(api: EmbeddedServer, tenant: str, client: httpx.Client,
                                     other: httpx.Client) -> None:
    api.store.add_ticket(tenant, Ticket("t42", "Private to one tenant", "open", "low", None,
                                        (), 1))
    assert client.get("/tickets/t42").status_code == 200
    assert other.get("/tickets/t42").status_code == 404
    assert other.get("/tickets/t42/history").status_code == 404
    refused = other.patch("/tickets/t42", json={"title": "mine now"},
                          headers={"If-Match": "*"})
    assert refused.status_code == 404
    assert refused.json() == {"error": "ticket 't42' not found"}
    assert "t42" not in {t["id"] for t in other.get("/tickets").json()["tickets"]}
    assert client.get("/tickets/t42").json()["title"] == "Private to one tenant"


def test_missing_x_tenant_means_demo(api: EmbeddedServer) -> None:
    with httpx.Client(base_url=api.url) as anonymous:
        assert anonymous.post("/admin/reset").json() == {"status": "reset", "tenant": "demo"}
        written = anonymous.patch("/tickets/t1", json={"status": "closed"},
                                  headers={"If-Match": '"v1"'})
        assert written.status_code == 200
        ticket = api.store.get_ticket("demo", "t1")
        assert ticket is not None and ticket.status == "closed"
        assert anonymous.post("/admin/reset").status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/tickets"), ("GET", "/tickets/t1"), ("PATCH", "/tickets/t1"),
     ("GET", "/tickets/t1/history"), ("POST", "/admin/reset")],
)
@pytest.mark.parametrize("bad", ["", "a b", "a/b", "x" * 65, "semi;colon"])
def test_invalid_x_tenant_answers_400_on_every_route(api: EmbeddedServer, method: str,
                                                     path: str, bad: str) -> None:
    with httpx.Client(base_url=api.url) as c:
        response = c.request(method, path, json={"priority": "low"} if method == "PATCH" else None,
                             headers={"X-Tenant": bad, "If-Match": "*"})
    assert response.status_code == 400
    assert response.json()["error"].startswith("invalid X-Tenant header")


def test_reset_restores_seed_for_the_callers_tenant_only(client: httpx.Client,
                                                         other: httpx.Client) -> None:
    for c in (client, other):
        written = c.patch("/tickets/t7", json={"priority": "high"},
                          headers={"If-Match": '"v1"', "Idempotency-Key": "same"})
        assert written.status_code == 200
    reset = client.post("/admin/reset")
    assert reset.status_code == 200
    mine = client.get("/tickets/t7")
    assert mine.headers["etag"] == '"v1"'
    assert mine.json()["priority"] == "normal"
    assert client.get("/tickets/t7/history").json()["entries"] == []
    # The key was forgotten: the same request writes again instead of replaying.
    again = client.patch("/tickets/t7", json={"priority": "high"},
                         headers={"If-Match": '"v1"', "Idempotency-Key": "same"})
    assert again.status_code == 200
    assert "idempotent-replayed" not in again.headers
    theirs = other.get("/tickets/t7")
    assert theirs.headers["etag"] == '"v2"'
    assert len(other.get("/tickets/t7/history").json()["entries"]) == 1
    replay = other.patch("/tickets/t7", json={"priority": "high"},
                         headers={"If-Match": '"v1"', "Idempotency-Key": "same"})
    assert replay.headers["idempotent-replayed"] == "true"


def test_reset_removes_tickets_added_since_seeding(api: EmbeddedServer, tenant: str,
                                                   client: httpx.Client) -> None:
    api.store.add_ticket(tenant, Ticket("t50", "Temporary", "open", "low", None, (), 1))
    assert client.post("/admin/reset").status_code == 200
    assert client.get("/tickets/t50").status_code == 404
    assert [t["id"] for t in client.get("/tickets").json()["tickets"]] == [
        f"t{i}" for i in range(1, 9)
    ]
