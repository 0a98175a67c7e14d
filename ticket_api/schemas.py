"""Pydantic models of the HTTP bodies: they validate PATCH input and document the responses."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ticket_api.domain import PATCHABLE_FIELDS, Priority, Status


def _no_default(schema: dict[str, Any]) -> None:
    # The None default only means "not sent"; the schema must not advertise null.
    schema.pop("default", None)


class TicketPatch(BaseModel):
    """Changes to a ticket. Send only the fields to change; at least one is required."""

    # extra="forbid": a misspelt field ("priorty") must be refused, not silently ignored.
    # minProperties documents the "no changes" 422 in the OpenAPI schema.
    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    # Field() is typed Any, so `= Field(default=None)` keeps the plain type: an absent field
    # is None (defaults are not validated), while an explicit null fails validation with the
    # field's own message. Only assignee is nullable: null unassigns the ticket.
    title: str = Field(default=None, min_length=1, max_length=200,
                       json_schema_extra=_no_default)
    status: Status = Field(default=None, json_schema_extra=_no_default)
    priority: Priority = Field(default=None, json_schema_extra=_no_default)
    assignee: str | None = Field(default=None, min_length=1, max_length=64)

    def changes(self) -> dict[str, Any]:
        """Return only the fields the client sent, in the documented field order."""
        sent = self.model_fields_set
        return {field: getattr(self, field) for field in PATCHABLE_FIELDS if field in sent}


class CommentBody(BaseModel):
    author: str
    text: str


class TicketSummary(BaseModel):
    id: str
    title: str
    status: Status
    priority: Priority
    assignee: str | None
    version: int


class TicketBody(TicketSummary):
    comments: list[CommentBody]


class TicketList(BaseModel):
    tickets: list[TicketSummary]


class HistoryEntryBody(BaseModel):
    version: int = Field(description="The version this write produced.")
    changes: dict[str, Any] = Field(description="The fields the write changed, as sent.")
    actor: str = Field(description="The X-Actor of the request.")
    at: str = Field(description="When the write was accepted, ISO-8601 UTC.")


class HistoryBody(BaseModel):
    ticket_id: str
    entries: list[HistoryEntryBody]


class HealthBody(BaseModel):
    status: str


class ResetBody(BaseModel):
    status: str
    tenant: str


class ErrorBody(BaseModel):
    """Every refusal carries one human-readable sentence."""

    error: str


class ValidationErrorBody(ErrorBody):
    """A 422 names the offending fields in ``error`` and keeps pydantic's list in ``detail``."""

    detail: list[dict[str, Any]] = Field(default_factory=list)
