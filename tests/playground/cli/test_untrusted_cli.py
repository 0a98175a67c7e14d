"""Every ``playground`` command on a database whose values name code: it reads, nothing runs.

Each command runs as its own process, as a user runs it, on SQLite and on Postgres. It exits 0
(or 2 with one line for what it refuses), prints no traceback, and no canary file appears.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.playground import hostile_db


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(params=["sqlite", "postgres"])
def hostile(request):
    target, folder = request.getfixturevalue(f"hostile_{request.param}")
    return str(target), folder


def _clean(result: subprocess.CompletedProcess, folder) -> None:
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert hostile_db.canaries(folder) == []


READ_COMMANDS = [
    ("threads",),
    ("history", "--thread", hostile_db.THREAD),
    ("history", "--thread", hostile_db.THREAD, "--json"),
    ("history", "--thread", hostile_db.THREAD, "--dot"),
    ("diff", "--thread", hostile_db.THREAD, "#1", "#3"),
    ("chat", "--thread", hostile_db.THREAD, "--at", "#1"),
    ("chat", "--thread", hostile_db.THREAD, "--json"),
    ("export", "--thread", hostile_db.THREAD),
    ("prune", "--thread", hostile_db.THREAD, "--keep", "1", "--dry-run"),
    ("migrate", "--rename", "order=purchase"),
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c[:1] + c[3:]))
def test_read_only_command_runs_nothing_and_prints_no_traceback(hostile, command):
    target, folder = hostile

    result = playground(command[0], target, *command[1:])

    _clean(result, folder)


def test_history_names_unreadable_checkpoints_and_the_question(hostile):
    target, folder = hostile

    result = playground("history", target, "--thread", hostile_db.THREAD)

    _clean(result, folder)
    assert result.returncode == 0
    assert "checkpoint not readable:" in result.stdout
    assert "? approve asks: Approve a refund of $40 for order A17?" in result.stdout
    assert "! charge failed: ValueError('card declined')" in result.stdout


def test_history_json_carries_signals_and_problems_as_plain_data(hostile):
    target, folder = hostile

    result = playground("history", target, "--thread", hostile_db.THREAD, "--json")

    _clean(result, folder)
    checkpoints = json.loads(result.stdout)["checkpoints"]
    head = checkpoints[-1]
    assert head["signals"][0] == {
        "kind": "interrupt", "node": "approve", "interrupt_id": "i-1",
        "text": "Approve a refund of $40 for order A17?",
        "value": {"question": "Approve a refund of $40 for order A17?"}}
    assert any(c["problem"] for c in checkpoints)


def test_diff_shows_message_level_changes(hostile):
    target, folder = hostile

    result = playground("diff", target, "--thread", hostile_db.THREAD, "#1", "#3")

    _clean(result, folder)
    if result.returncode == 2:  # #3 is unreadable on SQLite: one line saying which and why
        assert result.stderr.count("\n") == 1 and "not readable" in result.stderr
    else:
        assert "- human: Where is my order A17?" in result.stdout
        assert '- tool call lookup_order(order_id="A17")' in result.stdout


def test_chat_reads_the_messages_as_a_conversation(hostile):
    target, folder = hostile

    result = playground("chat", target, "--thread", hostile_db.THREAD, "--at", "#1")

    _clean(result, folder)
    assert result.stdout.splitlines()[1:] == [
        "human: Where is my order A17?",
        '  tool call lookup_order(order_id="A17")',
        "    -> lookup_order: shipped",
    ]


def test_export_then_import_copies_the_thread_or_refuses_what_it_cannot_copy(hostile,
                                                                           tmp_path):
    target, folder = hostile
    exported = playground("export", target, "--thread", hostile_db.THREAD)
    _clean(exported, folder)
    if target.startswith("postgresql://"):
        # Checkpoint #2's JSONB nests beyond what JSON text can carry back exactly: an export
        # of it would hold other data than the database, so none is written.
        assert exported.returncode == 2 and exported.stdout == ""
        assert "cannot be exported: too deep" in exported.stderr
        return
    (tmp_path / "thread.json").write_text(exported.stdout)
    into = str(tmp_path / "copy.sqlite")

    imported = playground("import", into, str(tmp_path / "thread.json"), "--thread", "copy")
    history = playground("history", into, "--thread", "copy")

    _clean(imported, folder)
    _clean(history, folder)
    assert imported.returncode == 0 and history.returncode == 0
    assert "approve asks: Approve a refund" in history.stdout
