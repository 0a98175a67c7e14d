"""Pure rules of the ticket API: tickets, entity tags, preconditions and patch checks.

Nothing here does I/O. The store and the routes call these functions so that every decision
(does this If-Match match? is this patch acceptable? which request is a retry?) can be
table-tested without a server or a database.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, get_args

Status = Literal["open", "in_progress", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
STATUSES: tuple[str, ...] = get_args(Status)
PRIORITIES: tuple[str, ...] = get_args(Priority)
PATCHABLE_FIELDS: tuple[str, ...] = ("title", "status", "priority", "assignee")

DEFAULT_TENANT = "demo"
DEFAULT_ACTOR = "anonymous"
MAX_ACTOR_LENGTH = 128
MAX_IDEMPOTENCY_KEY_LENGTH = 255
MAX_BODY_BYTES = 64 * 1024

_TENANT_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")
# RFC 9110 8.8.3: opaque-tag = DQUOTE *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text.
_OPAQUE_TAG_RE = re.compile(r'"[\x21\x23-\x7e\x80-\xff]*"')


@dataclass(frozen=True)
class Comment:
    """One message in a ticket's thread."""

    author: str
    text: str


@dataclass(frozen=True)
class Ticket:
    """A ticket as stored: every write produces a new value with ``version + 1``."""

    id: str
    title: str
    status: str
    priority: str
    assignee: str | None
    comments: tuple[Comment, ...]
    version: int

    @property
    def etag(self) -> str:
        """The strong entity tag of this version, quotes included (``"v3"``)."""
        return etag_for(self.version)

    def summary(self) -> dict[str, Any]:
        """Return the list-view fields (everything except the comment thread)."""
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "priority": self.priority,
            "assignee": self.assignee,
            "version": self.version,
        }

    def to_body(self) -> dict[str, Any]:
        """Return the full JSON body served by ``GET /tickets/{id}``."""
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "priority": self.priority,
            "assignee": self.assignee,
            "comments": [{"author": c.author, "text": c.text} for c in self.comments],
            "version": self.version,
        }


class Precondition(Enum):
    """Outcome of evaluating If-Match against the current representation."""

    MISSING = "missing"  # no If-Match at all: RFC 6585 3, answer 428
    MATCH = "match"  # the write may proceed
    FAILED = "failed"  # RFC 9110 13.1.1: answer 412


@dataclass(frozen=True)
class EntityTag:
    """One entity tag from an If-Match list.

    Attributes:
        opaque: The quoted opaque tag, quotes included (``"v3"``).
        weak: True when the tag carried the ``W/`` prefix.
    """

    opaque: str
    weak: bool = False

    def __str__(self) -> str:
        return f"W/{self.opaque}" if self.weak else self.opaque


def etag_for(version: int) -> str:
    """Return the strong ETag header value for a ticket version.

    Args:
        version: The ticket's version counter (1 for a fresh ticket).

    Returns:
        The quoted tag, e.g. ``'"v3"'``.
    """
    return f'"v{version}"'


def parse_entity_tags(header: str) -> tuple[EntityTag, ...] | None:
    """Parse an If-Match list of entity tags.

    Empty list elements are skipped (RFC 9110 5.6.1.2). The ``*`` form is not a tag and is
    handled by :func:`evaluate_if_match`.

    Args:
        header: The raw field value.

    Returns:
        The tags in order, or None when any element is not a valid entity tag. An empty or
        blank value parses to an empty tuple.
    """
    tags: list[EntityTag] = []
    for raw in header.split(","):
        element = raw.strip(" \t")
        if not element:
            continue
        # RFC 9110 8.8.3: the weak indicator is case-sensitive "W/".
        weak = element.startswith("W/")
        opaque = element[2:] if weak else element
        if not _OPAQUE_TAG_RE.fullmatch(opaque):
            return None
        tags.append(EntityTag(opaque=opaque, weak=weak))
    return tuple(tags)


def strong_match(a: EntityTag, b: EntityTag) -> bool:
    """Return True when two tags match under strong comparison (RFC 9110 8.8.3.2)."""
    return not a.weak and not b.weak and a.opaque == b.opaque


def evaluate_if_match(header: str | None, current_etag: str) -> Precondition:
    """Decide whether a write may proceed, given its If-Match header.

    Call this only for a resource that exists: for a missing one the server answers 404 and
    ignores preconditions (RFC 9110 13.2.1).

    Args:
        header: The If-Match field value as received, or None when absent.
        current_etag: The current strong ETag of the resource, quotes included.

    Returns:
        MISSING when there is no header (RFC 6585 3 asks for 428), MATCH when ``*`` was sent
        or any listed tag strongly matches, FAILED otherwise, including for a malformed
        header, which matches nothing.
    """
    if header is None:
        return Precondition.MISSING
    value = header.strip(" \t")
    # RFC 9110 13.1.1: "*" is true whenever a current representation exists.
    if value == "*":
        return Precondition.MATCH
    tags = parse_entity_tags(value)
    if tags is None:
        return Precondition.FAILED
    current = EntityTag(opaque=current_etag)
    # RFC 9110 13.1.1: If-Match uses the strong comparison function, so W/ tags never match.
    if any(strong_match(tag, current) for tag in tags):
        return Precondition.MATCH
    return Precondition.FAILED


def stale_message(current_version: int, if_match: str) -> str:
    """Explain a 412: which version the ticket is at and which tag the caller sent."""
    return f"ticket is at v{current_version}, you read {if_match.strip()}"


def is_valid_tenant(tenant: str) -> bool:
    """Return True when a tenant name is 1-64 characters of ``[A-Za-z0-9_.-]``."""
    return _TENANT_RE.fullmatch(tenant) is not None


def patch_problem(changes: Mapping[str, Any]) -> str | None:
    """Return why a set of changes cannot be applied, or None when it can.

    Field types and allowed values are checked when the request is parsed; this covers the
    rules that span the whole patch.

    Args:
        changes: Field name to new value, only the fields the caller sent.
    """
    if not changes:
        return f"no changes: send at least one of {', '.join(PATCHABLE_FIELDS)}"
    unknown = sorted(set(changes) - set(PATCHABLE_FIELDS))
    if unknown:
        return f"unknown field {unknown[0]!r}: allowed fields are {', '.join(PATCHABLE_FIELDS)}"
    for field, allowed in (("status", STATUSES), ("priority", PRIORITIES)):
        if field in changes and changes[field] not in allowed:
            return f"invalid {field} {changes[field]!r}: use one of {', '.join(allowed)}"
    return None


def render_json(value: Any) -> str:
    """Serialize a response body: compact, field order kept, UTF-8 kept as is.

    Both live responses and Idempotency-Key replays use it, so a replay is byte-identical.
    """
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def canonical_json(value: Any) -> str:
    """Serialize JSON deterministically: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_fingerprint(ticket_id: str, changes: Mapping[str, Any]) -> str:
    """Identify a PATCH for Idempotency-Key reuse checks.

    Two requests are the same when they target the same ticket with the same changes,
    whatever the key order or whitespace of their JSON. Preconditions are left out on
    purpose: a retry may carry an If-Match that has gone stale since the first attempt.
    """
    canonical = canonical_json({"ticket": ticket_id, "changes": dict(changes)})
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
