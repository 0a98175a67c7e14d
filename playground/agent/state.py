"""State schemas of the ticket agent.

The state carries ids and versions only: the ticket id, the ETag it was read at, the proposed
change and the outcome. Whole API responses stay inside the node that fetched them, because every
checkpoint would store another copy (see ``playground compare``).

Three variants of the same schema teach the migration lesson:

* ``etag``: the original schema.
* ``version``: ``etag`` renamed to ``version`` with the old key deleted. Threads paused under
  ``etag`` are stranded by it.
* ``both``: the rename done as add-then-remove: both keys exist, nodes write both and read
  whichever is set, so paused threads resume.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict


class EtagState(TypedDict, total=False):
    """The original schema: the version a ticket was read at lives in ``etag``."""

    ticket_id: str | None
    request: str | None
    etag: str | None
    priority: str | None
    changes: dict | None
    outcome: str | None


class VersionState(TypedDict, total=False):
    """``etag`` renamed to ``version`` and the old key deleted: a breaking change."""

    ticket_id: str | None
    request: str | None
    version: str | None
    priority: str | None
    changes: dict | None
    outcome: str | None


class BothState(TypedDict, total=False):
    """The rename as add-then-remove: ``version`` added while ``etag`` is kept."""

    ticket_id: str | None
    request: str | None
    etag: str | None
    version: str | None
    priority: str | None
    changes: dict | None
    outcome: str | None


@dataclass(frozen=True)
class SchemaVariant:
    """A state schema and the keys in it that hold the ticket's version."""

    name: str
    state_type: type
    version_keys: tuple[str, ...]
    description: str


SCHEMAS: dict[str, SchemaVariant] = {
    "etag": SchemaVariant("etag", EtagState, ("etag",), "original schema (etag)"),
    "version": SchemaVariant(
        "version", VersionState, ("version",), "graph with etag renamed to version"
    ),
    "both": SchemaVariant(
        "both", BothState, ("etag", "version"), "the rename as add-then-remove"
    ),
}


def schema_variant(name: str) -> SchemaVariant:
    """Return the schema variant called ``name``.

    Raises:
        ValueError: naming the variants that exist.
    """
    try:
        return SCHEMAS[name]
    except KeyError:
        raise ValueError(
            f"unknown schema {name!r}: choose one of {', '.join(SCHEMAS)}"
        ) from None
