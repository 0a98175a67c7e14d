"""Every ``playground`` command on databases and exports built to hurt a reader.

Each command runs as its own process, as a user runs it, under a memory cap (the address space
a process may map) and a wall-clock deadline: the read deadline of ``PLAYGROUND_READ_TIMEOUT``
plus slack for the interpreter's start. It exits 0, or 2 with one line; no traceback; nothing is
left on disk by a refused import.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from tests.playground import hostile_cases as cases

READ_TIMEOUT_S = 3
DEADLINE_S = READ_TIMEOUT_S + 30  # the deadline, plus an interpreter start on a busy machine
MEMORY_CAP = 2 * 1024**3  # address space: the crafted blob alone took 2 GB before its limit


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "playground.cli", *args], capture_output=True, text=True,
        timeout=DEADLINE_S, preexec_fn=_capped,
        env={**__import__("os").environ, "PLAYGROUND_READ_TIMEOUT": str(READ_TIMEOUT_S)})


def _one_line_or_clean(result: subprocess.CompletedProcess) -> None:
    assert result.returncode in (0, 2), result.stderr[-2000:]
    assert "Traceback" not in result.stdout + result.stderr, result.stderr[-2000:]
    assert "MemoryError" not in result.stderr
    if result.returncode == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


CASES = {
    "cycles": (cases.write_cycles, cases.CYCLE_THREAD),
    "endless-view": (cases.write_endless_view, "t"),
    "rows-view": (cases.write_rows_view, "t"),
    "deep-value": (cases.write_deep_value, "deep"),
    "blowup": (cases.write_blowup, "blowup"),
    "long-id": (cases.write_long_thread_id, "normal"),
}
COMMANDS = [
    ("threads",),
    ("history", "--thread", "{thread}"),
    ("history", "--thread", "{thread}", "--json"),
    ("history", "--thread", "{thread}", "--dot"),
    ("diff", "--thread", "{thread}", "#1", "#2"),
    ("chat", "--thread", "{thread}", "--json"),
    ("export", "--thread", "{thread}"),
]


@pytest.fixture(scope="module")
def databases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    return {name: (str(writer(folder / f"{name}.sqlite")), thread)
            for name, (writer, thread) in CASES.items()}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:1] + c[3:]))
def test_a_command_on_a_crafted_database_ends_in_one_line_within_its_bounds(databases, case,
                                                                            command):
    target, thread = databases[case]

    result = playground(command[0], target, *(a.format(thread=thread) for a in command[1:]))

    _one_line_or_clean(result)


def test_threads_prints_a_ten_megabyte_id_cut_short(databases):
    result = playground("threads", databases["long-id"][0])

    assert result.returncode == 0
    assert len(result.stdout) < 20_000  # the whole table, not a gigabyte of padding
    assert "…" in result.stdout


def test_history_draws_a_loop_as_a_broken_link_and_ends(databases):
    result = playground("history", databases["cycles"][0], "--thread", cases.CYCLE_THREAD)

    assert result.returncode == 0, result.stderr
    assert "broken" in result.stdout


def test_a_view_is_reported_in_one_line_naming_it(databases):
    result = playground("threads", databases["endless-view"][0])

    assert result.returncode == 2
    assert "checkpoints is a view, not a table; it is not read" in result.stderr


def test_an_import_of_a_looping_export_is_refused_and_leaves_no_file(tmp_path):
    export = tmp_path / "loop.json"
    export.write_text(json.dumps(cases.cycle_export()))
    target = tmp_path / "new.sqlite"

    result = playground("import", str(target), str(export))

    assert result.returncode == 2
    assert "its parent link loops back to itself" in result.stderr
    assert not target.exists() and list(tmp_path.iterdir()) == [export]


def test_an_export_nested_a_hundred_thousand_levels_is_refused_in_one_line(tmp_path):
    export = tmp_path / "deep.json"
    export.write_text(cases.deep_export())

    result = playground("import", str(tmp_path / "new.sqlite"), str(export))

    _one_line_or_clean(result)
    assert result.returncode == 2 and "nests too deep to read" in result.stderr
    assert not (tmp_path / "new.sqlite").exists()
