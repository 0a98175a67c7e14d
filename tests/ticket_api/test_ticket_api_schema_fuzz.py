"""Schema-driven fuzzing: the API keeps the promises of its own OpenAPI schema.

schemathesis reads ``/openapi.json`` from the app in-process (ASGI, no server) and generates
requests from it: valid ones (positive mode) and ones that break the schema (negative mode).
Every answer is checked: no 5xx, a documented status code, the documented content type,
headers and body schema, and valid input accepted / invalid input refused. PATCH without
If-Match (428) and with a stale one (412) are expected answers, not failures.

The targeted property tests below send fuzzed PATCH requests to real tickets and read the
ticket, the ticket list and the history around each one: a refused request changes nothing,
an accepted one adds exactly one version and one history entry.

Every example runs on a fresh app over a fresh in-memory store, so examples cannot leak state
into each other; examples are derandomized so CI sees the same inputs on every run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    allow_header_conformance,
    content_type_conformance,
    missing_required_header,
    negative_data_rejection,
    not_a_server_error,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)
from schemathesis.schemas import BaseSchema
from starlette.testclient import TestClient

from ticket_api.app import create_app
from ticket_api.seed import seed_tickets
from ticket_api.ticket_store_sqlite import TicketStore

TENANT = "fuzz"
TICKET_IDS = [ticket.id for ticket in seed_tickets()]
SEED_ETAG = '"v1"'  # every seed ticket starts at version 1

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
    missing_required_header,
    unsupported_method,
    allow_header_conformance,
]

FUZZ_SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None)


def _config(mode: str) -> schemathesis.Config:
    return schemathesis.Config.from_dict({
        "seed": 1,
        "generation": {"mode": mode, "deterministic": True, "database": "none"},
        # Random ticket ids and ETags almost never hit a real ticket at its current version:
        # draw them from real values most of the time, so 200, 412 and the TicketBody
        # schema are reached too, not only 404.
        "dictionaries": {
            "tickets": {"values": TICKET_IDS},
            "etags": {"values": [SEED_ETAG, "*", 'W/"v1"', '"v2"', '"v0", "v1"']},
        },
        "parameters": {
            "path.ticket_id": {"dictionary": "tickets", "probability": 0.6},
            "header.If-Match": {"dictionary": "etags", "probability": 0.5},
        },
        "checks": {
            # A valid PATCH is still refused without If-Match (428), with a stale one (412)
            # or for a ticket id that does not exist (404).
            "positive_data_acceptance": {"expected-statuses": ["2xx", "404", "412", "428"]},
            "negative_data_rejection": {
                "expected-statuses": ["400", "404", "405", "412", "413", "422", "428"],
            },
        },
    })


def _load(mode: str) -> BaseSchema:
    # The schema is read once from a throwaway app; each example then calls its own app.
    return schemathesis.openapi.from_asgi(
        "/openapi.json", create_app(TicketStore(":memory:")), config=_config(mode),
    )


POSITIVE = _load("positive")
# GET /health takes no input, so there is nothing to break (schemathesis would skip it).
NEGATIVE = _load("negative").exclude(path="/health")
PATCH = POSITIVE["/tickets/{ticket_id}"]["PATCH"]


@contextmanager
def fresh_app() -> Iterator[FastAPI]:
    """A new app over a new in-memory store, closed afterwards."""
    store = TicketStore(":memory:")
    try:
        yield create_app(store)
    finally:
        store.close()


def _call_and_validate(case: schemathesis.Case) -> None:
    with fresh_app() as app:
        case.call_and_validate(app=app, checks=CHECKS)


@POSITIVE.parametrize()
@FUZZ_SETTINGS
def test_valid_requests_get_documented_answers_and_never_5xx(case: schemathesis.Case) -> None:
    _call_and_validate(case)


@NEGATIVE.parametrize()
@FUZZ_SETTINGS
def test_invalid_requests_are_refused_with_documented_4xx(case: schemathesis.Case) -> None:
    _call_and_validate(case)


# -- stateful properties with real requests ----------------------------------------------------

Snapshot = dict[str, Any]

STATEFUL_SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def snapshot(client: TestClient, ticket_id: str) -> Snapshot:
    """Everything a write could change: the ticket, its ETag, its history and every version."""
    ticket = client.get(f"/tickets/{ticket_id}")
    history = client.get(f"/tickets/{ticket_id}/history")
    listing = client.get("/tickets")
    assert ticket.status_code == history.status_code == listing.status_code == 200
    return {
        "ticket": ticket.json(),
        "etag": ticket.headers["etag"],
        "history": history.json()["entries"],
        "versions": {t["id"]: t["version"] for t in listing.json()["tickets"]},
    }


def _send(app: FastAPI, case: schemathesis.Case) -> schemathesis.Response:
    note(case.as_curl_command())  # shown with a failing example
    response = case.call(app=app)
    assert response.status_code < 500, response.text
    return response


def _header(response: schemathesis.Response, name: str) -> str | None:
    values = response.headers.get(name.lower())  # schemathesis keeps every field line
    return ", ".join(values) if values else None


VALID_HEADERS = {"X-Tenant": TENANT, "If-Match": SEED_ETAG, "X-Actor": "fuzzer",
                 "Idempotency-Key": "fuzz-key"}


@STATEFUL_SETTINGS
@given(case=PATCH.as_strategy(
    GenerationMode.NEGATIVE, path_parameters={"ticket_id": "t7"}, headers=VALID_HEADERS,
))
def test_patch_with_fuzzed_invalid_body_is_refused_and_changes_nothing(
    case: schemathesis.Case,
) -> None:
    # Path and headers are valid and If-Match is current: only the fuzzed body is wrong.
    with fresh_app() as app, TestClient(app, headers={"X-Tenant": TENANT}) as client:
        before = snapshot(client, "t7")
        response = _send(app, case)
        event(f"status {response.status_code}")  # --hypothesis-show-statistics
        assert 400 <= response.status_code < 500, response.text
        assert isinstance(response.json()["error"], str)
        assert snapshot(client, "t7") == before
        # Nor was its Idempotency-Key recorded: a valid request with that key is a new write.
        retry = client.patch("/tickets/t7", json={"priority": "urgent"}, headers=VALID_HEADERS)
        assert retry.status_code == 200, retry.text
        assert "idempotent-replayed" not in retry.headers
        assert retry.json()["version"] == 2


IF_MATCH_NOT_CURRENT = st.sampled_from([
    None, '"v0"', '"v2"', 'W/"v1"', '"v2", "v3"', "v1", '"v1', "**", "",
])


@STATEFUL_SETTINGS
@given(
    case=PATCH.as_strategy(
        GenerationMode.POSITIVE, headers={"X-Tenant": TENANT, "If-Match": SEED_ETAG},
    ),
    ticket_id=st.sampled_from(TICKET_IDS),
    if_match=IF_MATCH_NOT_CURRENT,
)
def test_valid_patch_without_current_if_match_answers_428_or_412_and_changes_nothing(
    case: schemathesis.Case, ticket_id: str, if_match: str | None,
) -> None:
    case.path_parameters = {"ticket_id": ticket_id}
    del case.headers["If-Match"]
    if if_match is not None:
        case.headers["If-Match"] = if_match
    with fresh_app() as app, TestClient(app, headers={"X-Tenant": TENANT}) as client:
        before = snapshot(client, ticket_id)
        response = _send(app, case)
        if if_match is None:
            assert response.status_code == 428, response.text
        else:
            assert response.status_code == 412, response.text
            assert _header(response, "ETag") == SEED_ETAG  # the current tag, to re-read
        assert isinstance(response.json()["error"], str)
        assert snapshot(client, ticket_id) == before


@STATEFUL_SETTINGS
@given(data=st.data())
def test_fuzzed_patch_sequence_changes_state_only_on_fresh_2xx(data: st.DataObject) -> None:
    """Valid and invalid PATCHes, current, `*` and stale If-Match, keys reused or not, and
    retries of the previous request: each write that answers 2xx (not replayed) adds exactly
    one version and one history entry with the changes sent; every refusal and every
    Idempotency-Key replay leaves the ticket, its history and every other ticket as they were.
    """
    ticket_id = data.draw(st.sampled_from(TICKET_IDS), label="ticket_id")
    keys = st.sampled_from([None, "k1", "k2"])  # few keys, so replays and key reuse happen
    with fresh_app() as app, TestClient(app, headers={"X-Tenant": TENANT}) as client:
        state = snapshot(client, ticket_id)
        case: schemathesis.Case | None = None
        for _ in range(data.draw(st.integers(1, 5), label="steps")):
            if case is not None and data.draw(st.booleans(), label="retry the same request"):
                label = "retry"  # same body, key and If-Match, now perhaps stale
            else:
                mode = data.draw(st.sampled_from(list(GenerationMode)), label="mode")
                precondition = data.draw(st.sampled_from(["current", "*", "stale", None]))
                label = f"{mode.value} {precondition}"
                case = data.draw(PATCH.as_strategy(
                    mode, path_parameters={"ticket_id": ticket_id},
                    headers={"X-Tenant": TENANT, "If-Match": state["etag"]},
                ), label="case")
                del case.headers["If-Match"]
                if precondition is not None:
                    case.headers["If-Match"] = {
                        "current": state["etag"], "*": "*", "stale": '"v0"',
                    }[precondition]
                if mode is GenerationMode.POSITIVE:
                    case.headers.pop("Idempotency-Key", None)
                    key = data.draw(keys, label="Idempotency-Key")
                    if key is not None:
                        case.headers["Idempotency-Key"] = key

            response = _send(app, case)
            after = snapshot(client, ticket_id)
            replayed = _header(response, "Idempotent-Replayed") == "true"
            event(f"{label} -> {response.status_code}{' replayed' if replayed else ''}")
            if 200 <= response.status_code < 300 and not replayed:
                version = state["ticket"]["version"] + 1
                assert after["ticket"]["version"] == version
                assert after["etag"] == _header(response, "ETag") == f'"v{version}"'
                assert after["history"][:-1] == state["history"]
                assert after["history"][-1]["version"] == version
                assert after["history"][-1]["changes"] == case.body
                assert response.json() == after["ticket"]
                others = {k: v for k, v in after["versions"].items() if k != ticket_id}
                assert others == {k: v for k, v in state["versions"].items() if k != ticket_id}
            else:
                assert replayed or 400 <= response.status_code < 500, response.text
                assert after == state
            state = after
