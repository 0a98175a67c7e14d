"""``playground diff DB --thread T CHECKPOINT``: one checkpoint is compared with its parent, as
the page and the MCP tool compare it by default (on a fork, its parent is not the checkpoint
made before it)."""

from __future__ import annotations

import json
import subprocess
import sys


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


def _history(db: str, thread: str) -> dict:
    return json.loads(playground("history", db, "--thread", thread, "--json").stdout)


def test_diff_of_one_checkpoint_compares_it_with_its_parent(sample_db):
    db = str(sample_db[0])
    checkpoints = _history(db, "forked")["checkpoints"]
    ordinal = {c["checkpoint_id"]: n for n, c in enumerate(checkpoints, 1)}
    # a checkpoint made from a fork point: its parent is not the one made just before it
    child = next(c for n, c in enumerate(checkpoints, 1) if c["parent_checkpoint_id"]
                 and ordinal[c["parent_checkpoint_id"]] != n - 1)
    parent = ordinal[child["parent_checkpoint_id"]]

    alone = playground("diff", db, "--thread", "forked", f"#{ordinal[child['checkpoint_id']]}")
    both = playground("diff", db, "--thread", "forked", f"#{parent}",
                      f"#{ordinal[child['checkpoint_id']]}")

    assert alone.returncode == 0, alone.stderr
    assert alone.stdout == both.stdout
    assert alone.stdout.startswith(f"#{parent} {child['parent_checkpoint_id']} -> ")


def test_diff_of_the_first_checkpoint_alone_says_it_has_no_parent_in_one_line(sample_db):
    db = str(sample_db[0])

    result = playground("diff", db, "--thread", "forked", "#1")

    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        "playground diff: checkpoint #1 is where the thread starts: it has no parent to "
        "compare with; name a second checkpoint")


def test_diff_of_two_checkpoints_still_compares_the_two(sample_db):
    db = str(sample_db[0])

    result = playground("diff", db, "--thread", "forked", "#3", "#4")

    assert result.returncode == 0, result.stderr
    assert '+ note = "raise t7"' in result.stdout
