"""Fixtures of the MCP server's tests: checkpoint databases written by real LangGraph graphs on
the official savers (a SQLite file and a throwaway Postgres database), and a ``playground mcp``
process serving each."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from playground.testing.many_threads import Seed, run_seeds
from tests.playground import databases
from tests.playground.mcp.client import Session, mcp_session
from tests.playground.timetravel import delta_graphs, sample_graphs

SEEDS = 8  # two of each kind: finished, paused (asks a question), failed (a node raised), forked
FORKED = "forked"  # an edit and a replay beside the main line (sample_graphs.make_forked)
DELTA = "delta"  # a chat kept on LangGraph 1.2's DeltaChannel (snapshot every 3 updates)
ROOM_THREAD = "43d16b7762/thread-1"  # a thread the playground keeps inside a room's code


@dataclass(frozen=True)
class Place:
    """A seeded place: what ``playground mcp`` is given, and what each seed thread is."""

    kind: str
    target: str
    seeds: tuple[Seed, ...]

    def threads(self, kind: str) -> list[str]:
        """The seed threads of one kind (``failed``, ``paused``...), oldest first."""
        return [seed.thread_id for seed in self.seeds if seed.kind == kind]


@pytest.fixture(scope="module", params=databases.KINDS)
def place(request, tmp_path_factory) -> Iterator[Place]:
    """A database of each kind with the seed threads, a forked thread, a DeltaChannel chat and
    a room's thread, each written by a real graph on the official saver."""
    with databases.database(request.param, tmp_path_factory.mktemp("mcp")) as made:
        seeds = run_seeds(made.saver, SEEDS)
        sample_graphs.make_forked(made.saver, FORKED)
        delta_graphs.make_chat(made.saver, DELTA, snapshot_frequency=3, turns=4, keep=100)
        sample_graphs.make_loop(made.saver, ROOM_THREAD)
        yield Place(request.param, made.target, tuple(seeds))


@pytest.fixture(scope="module")
def session(place: Place) -> Iterator[Session]:
    """One ``playground mcp`` process on ``place`` for the module's tests, as a client runs
    it."""
    with mcp_session(place.target) as connected:
        yield connected
