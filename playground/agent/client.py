"""HTTP client of the ticket API, the agent's one adapter to it.

The client lives outside graph state: nodes receive it from the graph builder, so neither the
client nor its base URL is ever written into a checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

_SSL_CONTEXT = None


def _ssl_context():
    # httpx builds an SSL context (loading the CA bundle, 30-50 ms of CPU) for every new client,
    # even for http:// URLs; one shared context makes a client cheap to create on every page run.
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


class ApiUnavailable(RuntimeError):
    """The ticket API could not be reached (connection refused, timeout)."""


@dataclass(frozen=True)
class ApiResult:
    """One answer of the API: status code, ETag header (or None), JSON body, body size in bytes."""

    status: int
    etag: str | None
    body: dict
    size: int = 0

    @property
    def error(self) -> str:
        """The API's error text, or the status line when the body has none."""
        return str(self.body.get("error") or self.body.get("detail") or f"HTTP {self.status}")


class TicketClient:
    """Talks to the ticket API for one tenant and one actor.

    Args:
        base_url: where the API listens, e.g. ``http://127.0.0.1:8700``.
        tenant: sent as ``X-Tenant``; every ticket is scoped by it.
        actor: sent as ``X-Actor``; the API's history records who wrote.
        timeout: seconds per request.
    """

    def __init__(
        self, base_url: str, tenant: str = "demo", actor: str = "agent", timeout: float = 10.0
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.tenant = tenant
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"X-Tenant": tenant, "X-Actor": actor},
            timeout=timeout,
            verify=_ssl_context(),
        )

    def get_ticket(self, ticket_id: str) -> ApiResult:
        """GET one ticket with its ETag."""
        return self._send("GET", f"/tickets/{ticket_id}")

    def patch_ticket(
        self,
        ticket_id: str,
        changes: dict,
        if_match: str | None,
        idempotency_key: str | None = None,
    ) -> ApiResult:
        """PATCH a ticket, sending the version it was read at as ``If-Match``."""
        headers = {}
        if if_match is not None:
            headers["If-Match"] = if_match
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        return self._send("PATCH", f"/tickets/{ticket_id}", json=changes, headers=headers)

    def list_tickets(self) -> list[dict]:
        """Summaries of every ticket of the tenant."""
        return self._send("GET", "/tickets").body.get("tickets", [])

    def history(self, ticket_id: str) -> list[dict]:
        """Every accepted write of a ticket, oldest first."""
        return self._send("GET", f"/tickets/{ticket_id}/history").body.get("entries", [])

    def reset(self) -> None:
        """Restore the tenant's seed data."""
        self._send("POST", "/admin/reset")

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _send(self, method: str, path: str, **kwargs) -> ApiResult:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise ApiUnavailable(f"ticket API unreachable at {self.base_url}: {exc}") from exc
        try:
            body = response.json()
        except ValueError:
            body = {"error": response.text[:200]}
        if not isinstance(body, dict):
            body = {"items": body}
        return ApiResult(
            response.status_code, response.headers.get("etag"), body, len(response.content)
        )
