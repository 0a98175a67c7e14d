"""``playground threads/history/diff/prune/migrate/export/import`` run as separate processes."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys

import pytest


def playground(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def db(sample_db, tmp_path):
    """A private copy of the sample checkpoint file (loop, fan, nested, forked, long)."""
    path, _ = sample_db
    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)
    return copy


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_threads_lists_every_thread_with_status(db):
    result = playground("threads", str(db))

    assert result.returncode == 0, result.stderr
    writer, _header, *rows = result.stdout.splitlines()
    assert writer == f"{db}: written by LangGraph (Python)"
    lines = {line.split()[0]: line for line in rows}
    assert set(lines) == {"loop", "fan", "nested", "forked", "long"}
    assert lines["forked"].endswith("paused before write")  # as the tree says it
    assert lines["long"].split()[1] == "100"


def test_history_json_has_every_checkpoint_with_parent_and_next(db):
    result = playground("history", str(db), "--thread", "forked", "--json")

    data = json.loads(result.stdout)
    assert data["thread_id"] == "forked"
    assert len(data["checkpoints"]) == 9
    ids = {c["checkpoint_id"] for c in data["checkpoints"]}
    assert data["head"] in ids
    for checkpoint in data["checkpoints"]:
        assert {"checkpoint_id", "parent_checkpoint_id", "step", "source", "next",
                "bytes"} <= set(checkpoint)
        assert checkpoint["parent_checkpoint_id"] in ids | {None}
    assert sorted(c["source"] for c in data["checkpoints"]).count("fork") == 1


def test_history_dot_draws_the_tree(db):
    result = playground("history", str(db), "--thread", "forked", "--dot")

    assert result.stdout.startswith("digraph checkpoints {")
    assert result.stdout.count('"cp_') >= 9


def test_diff_names_what_changed_between_two_checkpoints(db):
    result = playground("diff", str(db), "--thread", "forked", "#3", "#4")

    assert result.returncode == 0, result.stderr
    assert '+ note = "raise t7"' in result.stdout


def test_inspection_commands_change_no_byte_of_the_file(db):
    before = _digest(db)

    for args in (("threads",), ("history", "--thread", "long"), ("diff", "--thread", "loop",
                                                                   "#1", "#6")):
        assert playground(args[0], str(db), *args[1:]).returncode == 0

    assert _digest(db) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "the file is empty"), (b"not sqlite at all", "not a SQLite database")],
)
def test_bad_file_gives_one_line_and_exit_2(tmp_path, content, message):
    path = tmp_path / "bad.sqlite"
    path.write_bytes(content)

    result = playground("history", str(path), "--thread", "x")

    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_thread_gives_exit_2(db):
    result = playground("history", str(db), "--thread", "ghost")

    assert result.returncode == 2
    assert "no thread 'ghost'" in result.stderr


def test_migrate_rejects_a_malformed_rename(db):
    result = playground("migrate", str(db), "--rename", "justone")

    assert result.returncode == 2 and "--rename wants OLD=NEW" in result.stderr




def test_branches_compares_the_two_newest_branches_step_by_step(db):
    text = playground("branches", str(db), "--thread", "forked")
    data = json.loads(playground("branches", str(db), "--thread", "forked", "--json").stdout)

    assert text.returncode == 0, text.stderr
    assert data["first_difference_line"] in text.stdout
    assert data["first_difference_line"].startswith("first difference at step ")
    assert "common ancestor: #" in text.stdout and "final state, left -> right:" in text.stdout
    assert {"left", "right", "ancestor", "steps", "final"} <= set(data)


def test_branches_of_a_thread_with_one_branch_says_so_in_one_line(db):
    result = playground("branches", str(db), "--thread", "loop")

    assert result.returncode == 2 and "has one branch" in result.stderr
    assert "Traceback" not in result.stderr


def test_export_test_writes_a_pytest_file_that_passes_on_the_code_of_the_thread(tmp_path):
    from playground.apps.launch import AppChoice
    from tests.playground.apps.user_graphs import write_support
    from tests.playground.test_regression import ask, pytest_in, thread_of

    write_support(tmp_path)
    db = tmp_path / "checkpoints.sqlite"
    thread_of(db, AppChoice(f"{tmp_path / 'support_agent.py'}:graph"), [ask("where is A17?")])
    out = tmp_path / "test_where_is_a17.py"

    # typed in the project's folder, as its owner types it
    result = playground("export-test", str(db), "--thread", "t1", "--graph",
                        "support_agent.py:graph", "-o", str(out), cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert f"wrote {out}: thread 't1' to #" in result.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = pytest_in(elsewhere, out)  # and run from any folder
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout


def test_export_test_of_an_unknown_thread_says_so_in_one_line(tmp_path, db):
    result = playground("export-test", str(db), "--thread", "nope", "--graph", "x.py:graph")

    assert result.returncode == 2 and "no thread 'nope'" in result.stderr
    assert "Traceback" not in result.stderr
