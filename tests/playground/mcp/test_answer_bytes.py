"""What each answer of a real ``playground mcp`` process weighs on the wire, and what it carries
for the client at the other end, on a failed thread of 17 checkpoints (the support agent's real
graph: one question answered, four that failed; ``bench/mcp_server.py`` weighs the same).

Every tool's answer and the ``thread://`` resource stay under the 64 KB cap, as each kind of
client meets the server; a client that hands its model the structured content alone (Claude
Code, VS Code) gets no JSON text copy, a client of a protocol before structured content gets no
structured content, every other client both; the resource over the cap answers its size and
the ``playground export`` command that writes it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from bench.mcp_server import CALLS, CLIENTS, FAILED, answer_bytes, weighed_place
from playground.mcp.answers import ANSWERS_ENV, shape_for
from playground.mcp.bounds import ANSWER_CAP
from playground.mcp.export import TOO_LARGE, export_command, file_name
from playground.places.door import open_storage
from playground.timetravel.transfer import dumps_export, export_thread
from tests.playground.mcp.client import ROOT, mcp_session


@pytest.fixture(scope="module")
def weighed(tmp_path_factory) -> Path:
    """A SQLite file with the 17-checkpoint failed thread and eight seed threads."""
    path = tmp_path_factory.mktemp("weighed") / "weighed.sqlite"
    weighed_place(path)
    return path


def test_every_tool_answer_and_the_resource_stay_under_the_cap_for_every_client(weighed):
    for kind, (client, protocol) in CLIENTS.items():
        found = answer_bytes(weighed, client, protocol)

        assert set(found) == set(CALLS)
        for name, figures in found.items():
            assert 0 < figures["wire"] <= ANSWER_CAP, (kind, name, figures)


def test_a_client_that_hands_its_model_the_structured_content_gets_no_json_copy(weighed):
    with mcp_session(str(weighed), client_name="claude-code") as claude_code:
        result = claude_code.call("get_thread", {"thread_id": FAILED, "limit": 5})
        refused = claude_code.call("get_thread", {"thread_id": "nobody"})

    assert not result.is_error
    (summary,) = result.content  # the summary only: the JSON is the structured content
    facts = result.structured_content
    assert facts["status"] == "failed" and facts["checkpoints_total"] == 17
    assert facts["next_cursor"] and f"cursor={facts['next_cursor']}" in summary.text
    # a refusal has no structured content: it stays a sentence
    assert refused.is_error and refused.content[0].text.startswith("no thread 'nobody'")


def test_each_client_gets_the_copies_it_hands_its_model_over_the_raw_pipe(weighed):
    calls = {"get_checkpoint": CALLS["get_checkpoint (head)"]}
    shapes = {}
    for client, protocol in (("raw-pipe", "2025-06-18"), ("claude-code", "2025-11-25"),
                             ("Visual Studio Code", "2025-11-25"), ("raw-pipe", "2025-03-26"),
                             ("claude-ai", "2025-06-18"), ("cursor-vscode", "2025-06-18")):
        weighed_once = answer_bytes(weighed, client, protocol, calls)["get_checkpoint"]
        shapes[client, protocol] = weighed_once["wire"]

    both = shapes["raw-pipe", "2025-06-18"]
    assert shapes["cursor-vscode", "2025-06-18"] == both  # a client not documented: both
    # the structured copy alone, or the text alone, is about half
    assert shapes["claude-code", "2025-11-25"] < both * 0.6
    assert shapes["Visual Studio Code", "2025-11-25"] == shapes["claude-code", "2025-11-25"]
    # Claude Desktop ("claude-ai") hands its model the text: the text alone
    assert shapes["claude-ai", "2025-06-18"] == shapes["raw-pipe", "2025-03-26"] < both * 0.6


def test_the_shape_follows_the_client_name_and_version_and_the_setting_gives_both(
        monkeypatch):
    assert shape_for("claude-code", "2025-11-25") == "structured"
    assert shape_for("Visual Studio Code", "2025-06-18") == "structured"
    assert shape_for("claude-code", "2025-03-26") == "text"  # that protocol has none
    assert shape_for("claude-ai", "2024-11-05") == "text"
    assert shape_for("claude-ai", "2025-11-25") == "text"
    assert shape_for(None, None) == shape_for("cursor-vscode", "2099-01-01") == "both"

    monkeypatch.setenv(ANSWERS_ENV, "both")
    assert shape_for("claude-code", "2025-11-25") == "both"


def test_a_wrong_answers_setting_ends_the_command_in_one_line(weighed):
    result = subprocess.run(
        [sys.executable, "-m", "playground.cli", "mcp", str(weighed)], input="",
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, ANSWERS_ENV: "sometimes"})

    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("playground mcp: PLAYGROUND_MCP_ANSWERS takes auto or both, not "
                             "'sometimes'\n")


def test_the_resource_over_the_cap_answers_its_size_and_the_export_line_that_writes_it(
        weighed, tmp_path):
    with mcp_session(str(weighed)) as session:
        text = session.read(f"thread://{FAILED}")

    storage = open_storage(str(weighed))
    try:
        export = dumps_export(export_thread(storage, FAILED))
    finally:
        storage.close()
    answered = json.loads(text)
    assert len(text.encode()) < ANSWER_CAP < len(export.encode())
    assert answered["format"] == TOO_LARGE and answered["thread_id"] == FAILED
    assert answered["bytes"] == len(export.encode()) and answered["bytes_at_least"] is None
    assert answered["cap"] == ANSWER_CAP and answered["export_command"] in answered["said"]
    # the line, run as a shell would split it, writes that very export
    *command, redirect, target = shlex.split(answered["export_command"])
    assert command[:2] == ["playground", "export"] and redirect == ">"
    assert command[2:] == [str(weighed.resolve()), f"--thread={FAILED}"]
    with (tmp_path / target).open("w") as out:
        subprocess.run([sys.executable, "-m", "playground.cli", *command[1:]], stdout=out,
                       check=True, timeout=60, cwd=ROOT)
    assert (tmp_path / target).read_text() == export + "\n"


@pytest.mark.parametrize("thread_id", ["$(touch pwned)", "a b; rm -rf ~", "it's\n`id`",
                                       "43d16b7762/thread-1", "-rf"])
def test_the_export_line_quotes_a_thread_id_the_database_holds_so_a_shell_runs_none_of_it(
        thread_id):
    command = export_command("/data/app.sqlite", thread_id)

    assert shlex.split(command) == ["playground", "export", "/data/app.sqlite",
                                    f"--thread={thread_id}", ">", file_name(thread_id)]
    assert "/" not in file_name(thread_id) and file_name(thread_id).endswith(".export.json")
