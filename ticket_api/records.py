"""Values the store returns: history entries, recorded responses and write outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from ticket_api.domain import Ticket


@dataclass(frozen=True)
class HistoryEntry:
    """One accepted write: the version it produced, what it changed, who, and when."""

    version: int
    changes: dict[str, Any]
    actor: str
    at: str

    def to_body(self) -> dict[str, Any]:
        """Return the JSON form used by ``GET /tickets/{id}/history``."""
        return {"version": self.version, "changes": self.changes, "actor": self.actor,
                "at": self.at}


@dataclass(frozen=True)
class StoredResponse:
    """The successful response recorded under an Idempotency-Key."""

    fingerprint: str
    status: int
    body: str
    etag: str


@dataclass(frozen=True)
class IdempotencyClaim:
    """An Idempotency-Key sent with a write, and the fingerprint of that write's request."""

    key: str
    fingerprint: str


class WriteOutcome(Enum):
    """What :meth:`TicketStore.compare_and_set` did."""

    WRITTEN = "written"
    CONFLICT = "conflict"  # the version moved since the caller read it: answer 412
    NOT_FOUND = "not_found"
    REPLAYED = "replayed"  # same key, same request: the recorded response is returned
    KEY_REUSED = "key_reused"  # same key, different request: refuse


@dataclass(frozen=True)
class WriteResult:
    """Result of a compare-and-set.

    Attributes:
        outcome: What happened.
        ticket: The ticket after the write (WRITTEN) or as it currently is (CONFLICT).
        stored: The recorded response (WRITTEN with a key, REPLAYED, KEY_REUSED).
    """

    outcome: WriteOutcome
    ticket: Ticket | None = None
    stored: StoredResponse | None = None
