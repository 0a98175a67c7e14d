"""The load benchmark's own correctness on a tiny run: no timing is asserted here."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.agent.turns import start_turn
from playground.places.door import open_storage
from playground.savers import open_saver
from ticket_api.server import start_embedded

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def load() -> ModuleType:
    """bench.load; ``bench`` is not an installed package, so the repository root must be importable
    (``python -m pytest`` puts it on sys.path, a bare ``pytest`` does not)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module("bench.load")


@pytest.fixture(scope="module")
def tiny_run(load: ModuleType) -> dict:
    """Three attendees, one round each, after a lone attendee's single round."""
    return load.run(attendees=3, rounds=1, alone_rounds=1, progress=False)


@pytest.fixture
def client() -> Iterator[TicketClient]:
    server = start_embedded(None)
    agent = TicketClient(server.url, tenant="room-audit", actor="agent")
    try:
        yield agent
    finally:
        agent.close()
        server.stop()


def test_tiny_run_has_no_errors_with_three_attendees_and_one_round(tiny_run: dict) -> None:
    assert tiny_run["errors"] == []
    assert tiny_run["alone_errors"] == []


def test_tiny_run_is_consistent_with_three_attendees_and_one_round(tiny_run: dict) -> None:
    assert tiny_run["problems"] == []
    assert tiny_run["consistency"] == "ok"


def test_tiny_run_times_every_action_once_per_attendee(load: ModuleType, tiny_run: dict) -> None:
    for action in load.ACTIONS:
        assert tiny_run["actions"][action]["crowd"]["count"] == 3
        assert tiny_run["actions"][action]["alone"]["count"] == 1


def test_rows_have_the_bench_table_keys_for_each_action_errors_and_consistency(
    load: ModuleType, tiny_run: dict,
) -> None:
    rows = tiny_run["rows"]
    assert len(rows) == len(load.ACTIONS) + 2
    for row in rows:
        assert set(row) == {"name", "ours", "baseline_value", "baseline", "ratio", "goal"}
    assert rows[-2]["ours"] == "0" and rows[-2]["goal"] == "0"
    assert rows[-1]["ours"] == "ok"


def test_ticket_audit_reports_an_accepted_write_missing_from_history(
    load: ModuleType, client: TicketClient,
) -> None:
    seen = [load.Write(client.tenant, "t7", "agent", 200, 2, {"priority": "high"})]

    problems = load.check_ticket(client, seen)

    assert any("accepted write v2" in problem for problem in problems)


def test_ticket_audit_reports_a_history_write_no_client_saw_accepted(
    load: ModuleType, client: TicketClient,
) -> None:
    etag = client.get_ticket("t7").etag
    client.patch_ticket("t7", {"priority": "high"}, etag)

    problems = load.check_ticket(client, [])

    assert problems == [f"{client.tenant}/t7: history has writes no client saw accepted: [2]"]


def test_ticket_audit_passes_when_every_accepted_write_is_recorded(
    load: ModuleType, client: TicketClient,
) -> None:
    seen: list = []
    recording = load.RecordingClient(client.base_url, client.tenant, "agent", seen)
    etag = recording.get_ticket("t7").etag
    recording.patch_ticket("t7", {"priority": "high"}, etag)
    recording.patch_ticket("t7", {"priority": "low"}, etag)  # stale: 412, not a write
    recording.close()

    assert [w.status for w in seen] == [200, 412]
    assert load.check_ticket(client, seen) == []


def test_thread_audit_passes_on_the_file_the_graph_wrote_and_fails_on_another(
    load: ModuleType, client: TicketClient, tmp_path: Path,
) -> None:
    with (
        open_saver(tmp_path / "mine.sqlite") as mine,
        open_saver(tmp_path / "other.sqlite") as other,
    ):
        graph = build_agent(client, mine)
        start_turn(graph, "room/t", "raise t7 to high")
        start_turn(build_agent(client, other), "room/t", "raise t7 to high")
        same = open_storage(tmp_path / "mine.sqlite")
        different = open_storage(tmp_path / "other.sqlite")
        try:
            assert load.check_thread(graph, same, "room/t") == []
            assert load.check_thread(graph, different, "room/t") == [
                "room/t: ids differ (only in tree: 4, only in history: 4)"
            ]
        finally:
            same.close()
            different.close()
