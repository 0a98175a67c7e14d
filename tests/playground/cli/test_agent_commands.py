"""The ``playground`` command, run as users run it: a fresh process per call."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest


def playground(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "playground.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_turn_and_resume_in_two_processes_write_the_ticket(api_url, tenant, checkpoints, client):
    common = ["--thread", "a", "--checkpoints", str(checkpoints), "--api-url", api_url,
              "--tenant", tenant]

    first = playground("turn", *common, "raise t7 to high")
    second = playground("resume", *common)

    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == (
        'read t7 at "v1", proposed {"priority": "high"}, waiting for the user'
    )
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == 'resumed with ticket t7: priority is high at "v2"'
    assert client.get_ticket("t7").body["priority"] == "high"


def test_resume_exits_1_on_412(api_url, tenant, checkpoints, colleague):
    common = ["--thread", "b", "--checkpoints", str(checkpoints), "--api-url", api_url,
              "--tenant", tenant]
    playground("turn", *common, "raise t7 to high")
    colleague.patch_ticket("t7", {"priority": "urgent"}, '"v1"')

    result = playground("resume", *common)

    assert result.returncode == 1
    assert "412: ticket is at v2, you read" in result.stdout


def test_resume_of_unknown_thread_exits_2(api_url, checkpoints):
    result = playground("resume", "--thread", "nope", "--checkpoints", str(checkpoints),
                        "--api-url", api_url)

    assert result.returncode == 2
    assert result.stdout.strip() == "nothing to resume: it has no checkpoints"


def test_turn_with_unclear_request_exits_1(api_url, checkpoints):
    result = playground("turn", "--thread", "x", "--checkpoints", str(checkpoints),
                        "--api-url", api_url, "make coffee")

    assert result.returncode == 1
    assert result.stdout.startswith("could not understand 'make coffee'")


def test_turn_without_api_url_uses_an_embedded_api_on_a_shared_file(tmp_path):
    common = ["--thread", "a", "--checkpoints", str(tmp_path / "c.sqlite"),
              "--tickets-db", str(tmp_path / "tickets.sqlite")]

    first = playground("turn", *common, "close t5")
    second = playground("resume", *common)

    assert first.returncode == 0, first.stderr
    assert second.stdout.strip() == 'resumed with ticket t5: status is closed at "v2"'


def test_demo_prints_the_eight_process_story():
    result = playground("demo", timeout=300)

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "turn 1, process 1",
        '  read t7 at "v1", proposed {"priority": "high"}, waiting for the user',
        "turn 2, process 2",
        '  resumed with ticket t7: priority is high at "v2"',
        "turn 1, process 3",
        '  read t7 at "v2", proposed {"priority": "high"}, waiting for the user',
        "  someone else edits t7 between the turns",
        "turn 2, process 4",
        '  resumed with ticket t7: 412: ticket is at v3, you read "v2"',
        "turn 1, process 5",
        '  read t7 at "v3", proposed {"priority": "high"}, waiting for the user',
        "turn 1, process 6",
        '  read t7 at "v3", proposed {"priority": "high"}, waiting for the user',
        "turn 2 of c, process 7, graph with etag renamed to version",
        "  resumed, and nothing ran: the thread is still waiting at ('write',)",
        "turn 2 of d, process 8, the rename as add-then-remove",
        '  resumed with ticket t7: priority is high at "v4"',
    ]


def test_compare_prints_the_table_with_definitions():
    result = playground("compare", "--turns", "1,2", "--seed", "3")

    assert result.returncode == 0, result.stderr
    assert "LangGraph state, ids and etag" in result.stdout
    assert "after 2 turns" in result.stdout
    assert "resume loads:" in result.stdout
    assert "measuring: 10/10 turns" in result.stderr


def test_compare_rejects_bad_turns_with_exit_2():
    result = playground("compare", "--turns", "1,ten")

    assert result.returncode == 2
    assert "--turns" in result.stderr


@pytest.mark.skipif(not os.environ.get("PLAYGROUND_TEST_DATABASE_URL"),
                    reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL)")
def test_turn_and_resume_in_two_processes_on_postgres_checkpoints(api_url, tenant, client):
    database = os.environ["PLAYGROUND_TEST_DATABASE_URL"]
    thread = f"cli-{uuid.uuid4().hex[:8]}"
    common = ["--thread", thread, "--checkpoints", database, "--api-url", api_url,
              "--tenant", tenant]

    first = playground("turn", *common, "raise t7 to high")
    second = playground("resume", *common)

    assert first.returncode == 0, first.stderr
    assert second.stdout.strip() == 'resumed with ticket t7: priority is high at "v2"'
    assert client.get_ticket("t7").body["priority"] == "high"


def test_edit_writes_a_validated_checkpoint_and_refuses_bad_edits(api_url, tenant, checkpoints):
    import sqlite3

    common = ["--thread", "e", "--checkpoints", str(checkpoints), "--api-url", api_url,
              "--tenant", tenant]
    playground("turn", *common, "raise t7 to high")

    def count() -> int:
        with sqlite3.connect(checkpoints) as conn:
            return conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]

    before = count()
    unknown = playground("edit", *common, "--values", '{"prority": "low"}')
    wrong = playground("edit", *common, "--values", '{"priority": 5}')
    bad_json = playground("edit", *common, "--values", "{oops")
    bad_node = playground("edit", *common, "--values", '{"priority": "low"}', "--as-node", "nope")
    assert count() == before
    for refused, message in ((unknown, "unknown key 'prority'"), (wrong, "wrong type"),
                             (bad_json, "not valid JSON"), (bad_node, "unknown node 'nope'")):
        assert refused.returncode == 2 and message in refused.stderr
        assert "Traceback" not in refused.stderr

    edited = playground("edit", *common, "--values", '{"changes": {"priority": "low"}}',
                        "--as-node", "plan")

    assert edited.returncode == 0, edited.stderr
    assert "next runs write" in edited.stdout
    assert count() == before + 1
    resumed = playground("resume", *common)
    assert resumed.stdout.strip() == 'resumed with ticket t7: priority is low at "v2"'
