"""Read routes over a real socket: health, list, one ticket, history, docs, JSON errors."""

from __future__ import annotations

import httpx

from ticket_api.server import EmbeddedServer

SUMMARY_KEYS = ["id", "title", "status", "priority", "assignee", "version"]
BODY_KEYS = ["id", "title", "status", "priority", "assignee", "comments", "version"]


def test_health_answers_ok(client: httpx.Client) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_embedded_server_listens_on_a_loopback_url(api: EmbeddedServer) -> None:
    assert api.url.startswith("http://127.0.0.1:")
    assert int(api.url.rsplit(":", 1)[1]) > 0


def test_list_answers_eight_summaries_without_comments(client: httpx.Client) -> None:
    response = client.get("/tickets")
    assert response.status_code == 200
    tickets = response.json()["tickets"]
    assert [t["id"] for t in tickets] == [f"t{i}" for i in range(1, 9)]
    assert all(list(t) == SUMMARY_KEYS for t in tickets)
    assert {t["version"] for t in tickets} == {1}


def test_get_ticket_answers_full_body_with_strong_etag(client: httpx.Client) -> None:
    response = client.get("/tickets/t7")
    assert response.status_code == 200
    assert response.headers["etag"] == '"v1"'
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert list(body) == BODY_KEYS
    assert (body["id"], body["priority"], body["version"]) == ("t7", "normal", 1)
    assert len(body["comments"]) == 40
    assert all(set(c) == {"author", "text"} for c in body["comments"])


def test_t7_response_is_about_7_2_kb_as_served(client: httpx.Client) -> None:
    response = client.get("/tickets/t7")
    assert 7150 <= len(response.content) <= 7250
    assert int(response.headers["content-length"]) == len(response.content)


def test_get_answers_404_for_unknown_ticket(client: httpx.Client) -> None:
    response = client.get("/tickets/t9")
    assert response.status_code == 404
    assert response.json() == {"error": "ticket 't9' not found"}


def test_history_of_an_untouched_ticket_is_empty(client: httpx.Client) -> None:
    response = client.get("/tickets/t3/history")
    assert response.status_code == 200
    assert response.json() == {"ticket_id": "t3", "entries": []}


def test_history_answers_404_for_unknown_ticket(client: httpx.Client) -> None:
    response = client.get("/tickets/nope/history")
    assert response.status_code == 404
    assert "nope" in response.json()["error"]


def test_unknown_path_and_wrong_method_answer_json_errors(client: httpx.Client) -> None:
    missing = client.get("/nothing-here")
    assert missing.status_code == 404
    assert missing.json() == {"error": "Not Found"}
    wrong = client.delete("/tickets/t1")
    assert wrong.status_code == 405
    assert set(wrong.json()) == {"error"}
    assert "GET" in wrong.headers["allow"]


def test_openapi_schema_documents_every_refusal(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    patch = spec["paths"]["/tickets/{ticket_id}"]["patch"]
    assert {"200", "400", "404", "412", "413", "422", "428"} <= set(patch["responses"])
    headers = {p["name"] for p in patch["parameters"] if p["in"] == "header"}
    assert headers == {"X-Tenant", "X-Actor", "If-Match", "Idempotency-Key"}
    schema = spec["components"]["schemas"]["TicketPatch"]
    assert schema["additionalProperties"] is False
    assert schema["minProperties"] == 1
    assert schema["properties"]["priority"]["enum"] == ["low", "normal", "high", "urgent"]
    error = spec["paths"]["/tickets/{ticket_id}"]["get"]["responses"]["404"]
    assert error["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")


def test_docs_page_is_served(client: httpx.Client) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert "swagger" in response.text.lower()
