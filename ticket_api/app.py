"""HTTP routes: translate requests into domain decisions and store calls, and back.

No rule lives here. Preconditions are decided by ``domain.evaluate_if_match``, writes are
compare-and-set calls on a store (``ticket_store.StoreBase``: SQLite or Postgres); this module
only maps their outcomes to status codes, headers and JSON bodies.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Request
from pydantic.json_schema import SkipJsonSchema
from starlette.responses import Response

from ticket_api import __version__
from ticket_api.domain import (
    DEFAULT_ACTOR,
    DEFAULT_TENANT,
    MAX_ACTOR_LENGTH,
    MAX_BODY_BYTES,
    MAX_IDEMPOTENCY_KEY_LENGTH,
    Precondition,
    evaluate_if_match,
    is_valid_tenant,
    patch_problem,
    request_fingerprint,
    stale_message,
)
from ticket_api.errors import ApiError, JsonResponse, install_error_handlers
from ticket_api.limits import BodySizeLimit
from ticket_api.records import IdempotencyClaim, StoredResponse, WriteOutcome
from ticket_api.schemas import (
    ErrorBody,
    HealthBody,
    HistoryBody,
    ResetBody,
    TicketBody,
    TicketList,
    TicketPatch,
    ValidationErrorBody,
)
from ticket_api.ticket_store import StoreBase

IF_MATCH_REQUIRED = "If-Match required: read the ticket and send its ETag"

# Optional headers: absent is None, but the schema shows a plain string (a header cannot be
# null), so generated clients and schemathesis send strings.
OptionalStr = str | SkipJsonSchema[None]

_ERR_400: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Invalid header (X-Tenant, X-Actor, "
          "Idempotency-Key) or a body that is not JSON"},
}
_ERR_404: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No such ticket for this tenant"},
}
# Replaces FastAPI's default 422 schema: our validation errors carry "error" and "detail".
_ERR_422: dict[int | str, dict[str, Any]] = {
    422: {"model": ValidationErrorBody, "description": "Invalid request"},
}


# -- header dependencies (async: they are pure, so they skip the thread pool) -----------------

async def tenant_of(
    x_tenant: Annotated[OptionalStr, Header(
        alias="X-Tenant", description="Tenant scope; default `demo`.",
        json_schema_extra={"pattern": "^[A-Za-z0-9_.-]{1,64}$"},
    )] = None,
) -> str:
    """Return the request's tenant, refusing names outside ``[A-Za-z0-9_.-]{1,64}``."""
    tenant = DEFAULT_TENANT if x_tenant is None else x_tenant
    if not is_valid_tenant(tenant):
        raise ApiError(400, "invalid X-Tenant header: use 1-64 characters of A-Z a-z 0-9 _ . -")
    return tenant


async def actor_of(
    x_actor: Annotated[OptionalStr, Header(
        alias="X-Actor", description="Who is writing, recorded in history; default `anonymous`.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_ACTOR_LENGTH},
    )] = None,
) -> str:
    """Return the request's actor for the history log."""
    if x_actor is None:
        return DEFAULT_ACTOR
    actor = x_actor.strip()
    if not actor or len(actor) > MAX_ACTOR_LENGTH:
        raise ApiError(400, f"invalid X-Actor header: use 1-{MAX_ACTOR_LENGTH} characters")
    return actor


async def if_match_of(
    request: Request,
    if_match: Annotated[OptionalStr, Header(
        alias="If-Match",
        description='The ETag you read, e.g. `"v3"` (a list or `*` also works). Without it '
        "the answer is 428.",
    )] = None,
) -> str | None:
    """Return the If-Match field value, or None when absent.

    The ``if_match`` parameter only documents the header in the OpenAPI schema.
    """
    values = request.headers.getlist("if-match")
    # RFC 9110 5.3: repeated field lines form one comma-separated list.
    return ", ".join(values) if values else None


async def idempotency_key_of(
    idempotency_key: Annotated[OptionalStr, Header(
        alias="Idempotency-Key",
        description="Makes a retry safe: the same key and body return the first response.",
        json_schema_extra={"minLength": 1, "maxLength": MAX_IDEMPOTENCY_KEY_LENGTH},
    )] = None,
) -> str | None:
    """Return the Idempotency-Key, refusing empty or overlong keys."""
    if idempotency_key is None:
        return None
    key = idempotency_key.strip()
    if not key or len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise ApiError(400, "invalid Idempotency-Key header: use 1-"
                       f"{MAX_IDEMPOTENCY_KEY_LENGTH} characters")
    return key


async def store_of(request: Request) -> StoreBase:
    """Return the store the app was created with."""
    store: StoreBase = request.app.state.store
    return store


Tenant = Annotated[str, Depends(tenant_of)]
Store = Annotated[StoreBase, Depends(store_of)]

# Reads are `async def` and call the store on the event loop: a read is one short SELECT
# that never waits for SQLite's lock (deferred transaction, WAL; only a tenant's very first
# request writes its seed), and skipping the thread pool hop roughly halves its latency.
# Writes are plain `def`, so FastAPI runs them in its thread pool: they take the write lock
# and may wait busy_timeout for another process.
router = APIRouter()


@router.get("/health", response_model=HealthBody)
async def health() -> Response:
    """Liveness probe."""
    return JsonResponse({"status": "ok"})


@router.get("/tickets", response_model=TicketList, responses={**_ERR_400, **_ERR_422})
async def list_tickets(tenant: Tenant, store: Store) -> Response:
    """List the tenant's tickets as summaries (no comment threads)."""
    return JsonResponse({"tickets": [t.summary() for t in store.list_tickets(tenant)]})


@router.get(
    "/tickets/{ticket_id}",
    response_model=TicketBody,
    responses={
        200: {"headers": {"ETag": {"description": 'Strong tag of this version, e.g. "v3"',
                                   "schema": {"type": "string"}}}},
        **_ERR_400, **_ERR_404, **_ERR_422,
    },
)
async def get_ticket(ticket_id: str, tenant: Tenant, store: Store) -> Response:
    """Read one ticket with its comments; the ETag header is what a PATCH must send back."""
    ticket = store.get_ticket(tenant, ticket_id)
    if ticket is None:
        raise _not_found(ticket_id)
    return JsonResponse(ticket.to_body(), headers={"ETag": ticket.etag})


@router.patch(
    "/tickets/{ticket_id}",
    response_model=TicketBody,
    responses={
        200: {"headers": {
            "ETag": {"description": "Strong tag of the new version",
                     "schema": {"type": "string"}},
            "Idempotent-Replayed": {"description": '"true" when this is the recorded answer '
                                    "to an earlier request with the same Idempotency-Key",
                                    "schema": {"type": "string"}},
        }},
        **_ERR_400, **_ERR_404,
        412: {"model": ErrorBody, "description": "If-Match does not match the current ETag "
              "(sent back in the ETag header)"},
        413: {"model": ErrorBody, "description": f"Body larger than {MAX_BODY_BYTES} bytes"},
        422: {"model": ValidationErrorBody, "description": "Unknown field, invalid value, no "
              "changes, or an Idempotency-Key reused with a different body"},
        428: {"model": ErrorBody, "description": "If-Match missing"},
    },
)
def patch_ticket(
    ticket_id: str,
    patch: TicketPatch,
    tenant: Tenant,
    store: Store,
    actor: Annotated[str, Depends(actor_of)],
    if_match: Annotated[str | None, Depends(if_match_of)],
    idempotency_key: Annotated[str | None, Depends(idempotency_key_of)],
) -> Response:
    """Change a ticket if it is still at the version you read (If-Match)."""
    changes = patch.changes()
    problem = patch_problem(changes)
    if problem is not None:
        raise ApiError(422, problem)

    # The key's record and the ticket come from one snapshot (see read_for_write).
    stored, ticket = store.read_for_write(tenant, ticket_id, idempotency_key)
    claim = None
    if idempotency_key is not None:
        claim = IdempotencyClaim(idempotency_key, request_fingerprint(ticket_id, changes))
        if stored is not None:
            return _replay(stored, claim)
        # Only successful writes are recorded under a key. A refused request changed
        # nothing, so evaluating its retry afresh is safe and gives the current answer.

    if ticket is None:
        # RFC 9110 13.2.1: without its preconditions this request would be a 404, so the
        # preconditions are not evaluated.
        raise _not_found(ticket_id)
    decision = evaluate_if_match(if_match, ticket.etag)
    if decision is Precondition.MISSING:
        raise ApiError(428, IF_MATCH_REQUIRED)  # RFC 6585 3
    if decision is Precondition.FAILED:
        assert if_match is not None
        raise _stale(ticket.version, ticket.etag, if_match)  # RFC 9110 13.1.1

    result = store.compare_and_set(
        tenant, ticket_id, ticket.version, changes, actor=actor, idempotency=claim,
    )
    if result.outcome is WriteOutcome.WRITTEN:
        assert result.ticket is not None
        return JsonResponse(result.ticket.to_body(), headers={"ETag": result.ticket.etag})
    if result.outcome is WriteOutcome.CONFLICT:
        # Another write committed between our read and our compare-and-set.
        assert result.ticket is not None and if_match is not None
        raise _stale(result.ticket.version, result.ticket.etag, if_match)
    if result.outcome is WriteOutcome.NOT_FOUND:
        raise _not_found(ticket_id)
    # REPLAYED or KEY_REUSED: a request with the same key committed meanwhile.
    assert result.stored is not None and claim is not None
    return _replay(result.stored, claim)


@router.get("/tickets/{ticket_id}/history", response_model=HistoryBody,
            responses={**_ERR_400, **_ERR_404, **_ERR_422})
async def ticket_history(ticket_id: str, tenant: Tenant, store: Store) -> Response:
    """List every accepted write of a ticket, oldest first."""
    entries = store.history(tenant, ticket_id)
    if entries is None:
        raise _not_found(ticket_id)
    return JsonResponse({"ticket_id": ticket_id, "entries": [e.to_body() for e in entries]})


@router.post("/admin/reset", response_model=ResetBody, responses={**_ERR_400, **_ERR_422})
def reset(tenant: Tenant, store: Store) -> Response:
    """Restore the tenant's seed tickets and forget its history and Idempotency-Keys."""
    store.reset_tenant(tenant)
    return JsonResponse({"status": "reset", "tenant": tenant})


def _not_found(ticket_id: str) -> ApiError:
    return ApiError(404, f"ticket {ticket_id!r} not found")


def _stale(version: int, etag: str, if_match: str) -> ApiError:
    # The current ETag lets the client re-read or retry knowingly.
    return ApiError(412, stale_message(version, if_match), headers={"ETag": etag})


def _replay(stored: StoredResponse, claim: IdempotencyClaim) -> Response:
    if stored.fingerprint != claim.fingerprint:
        # draft-ietf-httpapi-idempotency-key-header, "Error Scenarios": a key reused for another
        # request is refused with 422, so a client bug cannot pass for a retry.
        raise ApiError(
            422,
            f"Idempotency-Key {claim.key!r} was used with a different body "
            "(or ticket): send a new key for a new request",
        )
    return Response(
        content=stored.body.encode("utf-8"),
        status_code=stored.status,
        media_type="application/json",
        headers={"ETag": stored.etag, "Idempotent-Replayed": "true"},
    )


def create_app(store: StoreBase) -> FastAPI:
    """Build the ticket API around a store.

    Args:
        store: Where tickets live; the caller owns it and closes it.

    Returns:
        A FastAPI app with OpenAPI docs at ``/docs``.
    """
    app = FastAPI(
        # A local teaching tool: never export traces or metrics, even if the host process
        # configured a global OpenTelemetry provider.
        telemetry={"tracing": False, "metrics": False, "logs": False},
        title="Ticket API",
        version=__version__,
        description="Tickets per tenant (X-Tenant), conditional writes with If-Match "
        "(428 without it, 412 when stale) and safe retries with Idempotency-Key.",
    )
    app.state.store = store
    install_error_handlers(app, routes=router.routes)
    app.include_router(router)
    app.add_middleware(BodySizeLimit, max_bytes=MAX_BODY_BYTES)
    return app
