"""What the place tests share: ``target``, a place of each kind as a user (or a program) names
it, for the tests that hold every kind to the same oracle (test_read_seam.py,
test_delta_channels.py). A kind that graphs run on joins by adding its target here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from playground.places import door
from playground.serde import graph_serde
from tests import postgres
from tests.playground.places.memory_kind import MemoryPlace

KIND_TARGETS = ("sqlite", "postgres", "saver", "memory")


@pytest.fixture(params=KIND_TARGETS)
def target(request, tmp_path, monkeypatch) -> Iterator[object]:
    """What a user (or a program) names for a place of each kind."""
    kind = request.param
    if kind == "memory":
        monkeypatch.setattr(door, "KINDS", [MemoryPlace, *door.KINDS])  # the one line
        yield f"memory://{request.node.name}"
    elif kind == "saver":
        yield InMemorySaver(serde=graph_serde())
    elif kind == "sqlite":
        yield str(tmp_path / "app.sqlite")
    else:
        if not postgres.database_url():
            pytest.skip(postgres.SKIP_REASON)
        with postgres.throwaway_database() as url:
            yield url
