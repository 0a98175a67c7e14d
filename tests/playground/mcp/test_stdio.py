"""``playground mcp`` as a process: its stdout carries only protocol messages (logs and refusals
go to stderr), ``--help`` prints the setup texts every client needs, and a place that is not a
checkpoint database ends the command in one line."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.cli import build_parser, main
from playground.mcp.setup import CLAUDE_CODE, MCP_SERVERS_JSON, SETUPS, VSCODE_JSON
from tests.playground.mcp.client import ROOT, server_command
from tests.playground.timetravel import sample_graphs

PLAYGROUND = [sys.executable, "-m", "playground.cli"]


@pytest.fixture
def loop_db(tmp_path) -> str:
    """A SqliteSaver file with one thread (``loop``) written by a real graph."""
    path = tmp_path / "loop.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        sample_graphs.make_loop(SqliteSaver(conn))
    finally:
        conn.close()
    return str(path)


def _request(id_: int, method: str, params: dict | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}})


def test_stdout_holds_only_protocol_messages(loop_db):
    calls = [
        ("tools/list", {}),
        ("tools/call", {"name": "get_thread", "arguments": {"thread_id": "loop"}}),
        ("tools/call", {"name": "get_checkpoint", "arguments": {"thread_id": "nobody"}}),
        ("tools/call", {"name": "get_thread", "arguments": {"thread_id": 7}}),
        ("tools/call", {"name": "get_timeline", "arguments": {"thread_id": "loop"}}),
        ("resources/read", {"uri": "thread://loop"}),
        ("resources/read", {"uri": "thread://nobody"}),
        ("prompts/get", {"name": "debug_failed_thread", "arguments": {}}),
    ]
    lines = [_request(0, "initialize", {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw-pipe", "version": "0"}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    lines += [_request(n, method, params) for n, (method, params) in enumerate(calls, 1)]

    # Each request is sent only once the one before it is answered, so the server is still
    # serving every one when stdin closes.
    process = subprocess.Popen(server_command(loop_db), stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT)
    out = []
    try:
        for line in lines:
            process.stdin.write(line + "\n")
            process.stdin.flush()
            if '"id"' in line:
                out.append(process.stdout.readline())
        process.stdin.close()  # the client leaves: the server ends
        rest, errors = process.stdout.read(), process.stderr.read()
        process.wait(timeout=60)
    finally:
        process.kill()
    out += rest.splitlines(keepends=True)

    messages = [json.loads(line) for line in out if line.strip()]
    assert all(line.endswith("\n") and line.strip() for line in out)
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    assert all("result" in m or "error" in m or "method" in m for m in messages)
    answered = {m["id"]: m for m in messages if "id" in m}
    assert sorted(answered) == list(range(len(calls) + 1))
    assert answered[3]["result"]["isError"] is True  # an unknown thread: a tool error
    assert answered[4]["result"]["isError"] is True  # a wrong type: a tool error
    assert not answered[2]["result"].get("isError")
    assert answered[7]["error"]["message"].startswith("no thread 'nobody'")
    assert process.returncode == 0
    assert "Traceback" not in errors


def test_help_prints_each_client_s_setup_and_its_json_is_valid(loop_db):
    shown = subprocess.run([*PLAYGROUND, "mcp", "--help"], capture_output=True, text=True,
                           timeout=60, cwd=ROOT)

    assert shown.returncode == 0
    assert CLAUDE_CODE == ("claude mcp add playground -- playground mcp "
                           "/path/to/checkpoints.sqlite")
    for _client, _where, text, kind in SETUPS:
        assert all(line in shown.stdout for line in text.splitlines())
        if kind == "json":
            assert "playground mcp" in " ".join(_command_of(json.loads(text)))
        else:
            assert "playground mcp " in text
    assert list(json.loads(MCP_SERVERS_JSON)) == ["mcpServers"]
    vscode = json.loads(VSCODE_JSON)["servers"]["playground"]
    assert vscode["type"] == "stdio"


def _command_of(config: dict) -> list[str]:
    (servers,) = config.values()
    (server,) = servers.values()
    return [server["command"], *server["args"]]


@pytest.mark.parametrize("place", ["missing.sqlite", "not-a-database.sqlite"])
def test_a_place_that_is_not_a_checkpoint_database_ends_in_one_line(tmp_path, place):
    (tmp_path / "not-a-database.sqlite").write_text("hello")

    result = subprocess.run([*PLAYGROUND, "mcp", str(tmp_path / place)], input="",
                            capture_output=True, text=True, timeout=60, cwd=ROOT)

    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("playground mcp: ")


def test_mcp_takes_a_place_a_graph_and_allow_writes():
    args = build_parser().parse_args(["mcp", "app.sqlite", "--graph", "app.py:graph",
                                      "--allow-writes", "--api-key-env", "MY_KEY"])
    plain = build_parser().parse_args(["mcp", "postgresql://u@h/db"])

    assert (args.db, args.graph, args.allow_writes, args.api_key_env) == (
        "app.sqlite", "app.py:graph", True, "MY_KEY")
    assert args.handler.__module__ == "playground.cli.engine"  # the engine's key handling
    assert (plain.allow_writes, plain.graph, plain.config) == (False, None, None)


def test_graph_name_without_a_config_is_refused_in_one_line(capsys):
    assert main(["mcp", "app.sqlite", "--graph-name", "agent"]) == 2

    said = capsys.readouterr().err
    assert said == ("playground mcp: --graph-name picks a graph of a langgraph.json: give "
                    "--config too\n")


def _code_blocks(page: Path, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", page.read_text(encoding="utf-8"),
                      flags=re.MULTILINE | re.DOTALL)


def test_the_docs_give_each_client_the_same_setup_the_help_prints():
    guide = ROOT / "docs" / "assistants.md"

    shell, json_blocks = _code_blocks(guide, "bash"), _code_blocks(guide, "json")
    for _client, _where, text, kind in SETUPS:
        blocks = json_blocks if kind == "json" else [line for block in shell
                                                     for line in block.splitlines()]
        assert text.strip() in [block.strip() for block in blocks], text
    assert CLAUDE_CODE in (ROOT / "README.md").read_text(encoding="utf-8")
