"""Error responses: every refusal is JSON ``{"error": "..."}`` with the right status."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute, Match

from ticket_api.domain import PATCHABLE_FIELDS, render_json


class JsonResponse(Response):
    """A JSON response rendered by ``domain.render_json`` (the bytes replays also use)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return render_json(content).encode("utf-8")


class ApiError(Exception):
    """A refusal to send as ``{"error": message}``.

    Args:
        status: HTTP status code.
        message: One sentence for a human; name the field or header at fault.
        headers: Extra response headers (e.g. the current ETag on a 412).
    """

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """Build the JSON error response for a status and message."""
    return JsonResponse({"error": message}, status_code=status, headers=headers)


def allow_header(request: Request, routes: Iterable[BaseRoute], reported: str) -> str:
    """Return the Allow value for a 405: the methods of every route matching the path.

    Starlette reports (``reported``) only the methods of the first route whose path
    matches, so ``/tickets/{id}`` (one route per method) would advertise GET alone and hide
    PATCH. RFC 9110 15.5.6 asks for every method the target resource supports.
    """
    methods = {m.strip() for m in reported.split(",") if m.strip()}
    for route in routes:
        route_methods = getattr(route, "methods", None)
        if route_methods and route.matches(request.scope)[0] is not Match.NONE:
            methods |= route_methods
    return ", ".join(sorted(methods))


def describe_validation_errors(errors: list[dict[str, Any]]) -> str:
    """Turn pydantic errors into one sentence that names each offending field once.

    A union type (``str | None``) reports one error per branch, with the branch appended to
    the location; only the first error of each top-level field is kept.
    """
    first_by_field: dict[str, dict[str, Any]] = {}
    for error in errors:
        loc = [str(part) for part in error.get("loc", ())]
        # loc starts with where the value came from ("body", "header"); the field follows.
        field = loc[1] if len(loc) > 1 else (loc[0] if loc else "request")
        first_by_field.setdefault(field, error)
    parts = []
    for field, error in first_by_field.items():
        if error.get("type") == "extra_forbidden":
            parts.append(f"unknown field {field!r}: allowed fields are "
                         f"{', '.join(PATCHABLE_FIELDS)}")
        else:
            parts.append(f"invalid {field!r}: {error.get('msg', 'invalid value')}")
    return "; ".join(parts)


def install_error_handlers(app: FastAPI, routes: Sequence[BaseRoute] = ()) -> None:
    """Make every error the app can raise answer with the JSON error shape.

    Args:
        app: The app to install the handlers on.
        routes: The API's routes, so a 405 lists every method of its path in Allow.
    """

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.message, exc.headers)

    async def on_http_exception(request: Request, exc: Exception) -> Response:
        # Starlette's own 404 (unknown path) and 405 (wrong method, with its Allow header).
        assert isinstance(exc, StarletteHTTPException)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = allow_header(request, routes, headers.get("Allow", ""))
        return error_response(exc.status_code, str(exc.detail), headers)

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            # Not JSON at all is a malformed request rather than a wrong value.
            return error_response(400, "request body is not valid JSON")
        message = describe_validation_errors(errors)
        body = {"error": message, "detail": jsonable_encoder(errors)}
        return JsonResponse(body, status_code=422)

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(StarletteHTTPException, on_http_exception)
    app.add_exception_handler(RequestValidationError, on_validation_error)
