"""``playground clone`` as a separate process, from a SQLite file and from Postgres: one line
saying what was copied, the playground's own checkpoint file by default, a refusal in one line
with exit code 2 and nothing written, and progress only on a terminal."""

from __future__ import annotations

import os
import pty
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from tests.playground.timetravel.sample_graphs import make_forked

ROOT = Path(__file__).resolve().parents[3]
LINE = re.compile(r"^cloned (?P<what>.+) from (?P<source>.+) into (?P<target>.+): "
                  r"(?P<checkpoints>[\d,]+) checkpoints, (?P<writes>[\d,]+) writes, "
                  r"(?P<bytes>[\d,]+) bytes \((?P<how>.+)\)$")


def playground(*args: str, cwd: Path | None = None, **options) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    streams = options or {"capture_output": True}
    return subprocess.run([sys.executable, "-m", "playground.cli", *args], text=True,
                          timeout=120, cwd=cwd or ROOT, env=environment, **streams)


def threads_in(path: Path) -> dict[str, int]:
    """Checkpoints per thread in a SQLite file (empty where there is no file or no table)."""
    if not path.exists():
        return {}
    with closing(sqlite3.connect(path)) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'checkpoints'").fetchall():
            return {}
        return dict(conn.execute("SELECT thread_id, count(*) FROM checkpoints GROUP BY 1"))


def test_clone_prints_one_line_and_writes_the_thread_into_the_file_named(database, tmp_path):
    make_forked(database.saver, "forked")
    target = tmp_path / "copy.sqlite"

    done = playground("clone", database.target, "--thread", "forked", "--to", str(target))

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no terminal: no progress line
    (line,) = done.stdout.splitlines()
    found = LINE.match(line)
    assert found, line
    assert found["what"] == "thread forked" and found["target"] == str(target)
    assert int(found["checkpoints"]) == database.count("forked") == threads_in(target)["forked"]
    expected = "byte for byte" if database.kind == "sqlite" else (
        "value bytes carried across kinds, not decoded")
    assert found["how"] == expected


def test_clone_goes_into_the_playgrounds_own_checkpoint_file_by_default(database, tmp_path):
    make_forked(database.saver, "forked")

    done = playground("clone", database.target, "--thread", "forked", "--as", "mine",
                      "--to-checkpoint", "#3", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    own = tmp_path / ".playground" / "checkpoints.sqlite"
    assert threads_in(own) == {"mine": 3}
    assert done.stdout.startswith("cloned the branch up to ") and " as mine: 3 checkpoints" \
        in done.stdout


def test_clone_refuses_a_taken_id_or_an_unknown_thread_in_one_line_with_exit_2(database,
                                                                              tmp_path):
    make_forked(database.saver, "forked")
    target = tmp_path / "copy.sqlite"
    assert playground("clone", database.target, "--thread", "forked", "--to",
                      str(target)).returncode == 0
    before = target.read_bytes()

    taken = playground("clone", database.target, "--thread", "forked", "--to", str(target))
    unknown = playground("clone", database.target, "--thread", "nope", "--to",
                         str(tmp_path / "new.sqlite"))

    for refused, words in ((taken, "already has checkpoints"), (unknown, "no thread 'nope'")):
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.startswith("playground clone: ") and words in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    assert target.read_bytes() == before
    assert not (tmp_path / "new.sqlite").exists()  # a refused clone leaves no file behind


def test_clone_shows_its_progress_on_a_terminal_only(database, tmp_path):
    make_forked(database.saver, "forked")
    leader, follower = pty.openpty()
    try:
        done = playground("clone", database.target, "--thread", "forked", "--to",
                          str(tmp_path / "copy.sqlite"), stderr=follower, stdout=subprocess.PIPE)
        os.close(follower)
        shown = b""
        try:
            while chunk := os.read(leader, 4096):
                shown += chunk
        except OSError:  # the terminal's other end is closed: all was read
            pass
    finally:
        os.close(leader)

    assert done.returncode == 0
    assert b"\rwritten 9 of 9 checkpoints" in shown
    assert done.stdout.startswith("cloned thread forked")


def test_clone_from_an_agent_server_says_the_copy_was_rebuilt_from_values(agent_server,
                                                                         tmp_path):
    url, threads = agent_server
    target = tmp_path / "copy.sqlite"

    done = playground("clone", url, "--thread", threads["waiting"], "--to", str(target))

    assert done.returncode == 0, done.stderr
    found = LINE.match(done.stdout.strip())
    assert found and found["how"].startswith("rebuilt from the server's values")
    assert "not copied byte for byte" in found["how"]
    assert threads_in(target) == {threads["waiting"]: int(found["checkpoints"])}
