"""``playground timeline DB --thread T [--branch '#N'] [--json]``, as separate processes, on a
Python file, a LangGraph.js file and an Agent Server."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playground.timetravel.timeline import PAUSE_WORTH_SECONDS
from playground.ui.inspect_access import SAMPLES_DIR

SAMPLE = SAMPLES_DIR / "sample-app.sqlite"
JS_FILE = Path(__file__).parents[2] / "fixtures" / "langgraphjs" / "langgraphjs.sqlite"


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_timeline_prints_each_step_and_a_table_per_node():
    shown = playground("timeline", str(SAMPLE), "--thread", "chat/refund")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0].startswith("thread chat/refund, branch to #12: ran ")
    assert "3 AI messages carry no usage (not counted)" in lines[0]
    assert any(line.split()[2:4] == ["update_state", "edit"] for line in lines[2:])
    table = lines[lines.index("") + 1:]
    assert table[0].split()[:3] == ["node", "calls", "time"]
    assert {line.split()[0] for line in table[1:]} >= {"assistant", "tools", "triage"}


def test_timeline_json_follows_the_branch_named_and_counts_its_steps():
    head = json.loads(playground("timeline", str(SAMPLE), "--thread", "chat/refund",
                                 "--json").stdout)
    other = json.loads(playground("timeline", str(SAMPLE), "--thread", "chat/refund",
                                  "--branch", "#10", "--json").stdout)
    assert head["branch_tip"] != other["branch_tip"]
    assert [s["ordinal"] for s in other["steps"]][-1] == 10
    assert all(step["seconds"] is None or step["seconds"] >= 0 for step in head["steps"])
    assert head["tokens"]["without_usage"] == 3


def test_timeline_reads_a_langgraphjs_file():
    threads = playground("threads", str(JS_FILE)).stdout.splitlines()[2:]
    thread = threads[0].split()[0]
    shown = playground("timeline", str(JS_FILE), "--thread", thread, "--json")
    assert shown.returncode == 0, shown.stderr
    steps = json.loads(shown.stdout)["steps"]
    assert steps and all(step["seconds"] is not None for step in steps)


def test_a_price_table_turns_tokens_into_money_and_a_bad_one_is_one_line(tmp_path):
    bad = tmp_path / "prices.json"
    bad.write_text('{"stand-in": {"input": "cheap"}}')
    shown = playground("timeline", str(SAMPLE), "--thread", "chat/refund", "--prices", str(bad))
    assert shown.returncode == 2
    assert "a price table maps a model to" in shown.stderr and "Traceback" not in shown.stderr


def test_timeline_reads_an_agent_server_thread(agent_server):
    url, made = agent_server
    # The branch answered "yes" at the question (the other answered after an edit).
    shown = playground("timeline", url, "--thread", made["forked"], "--branch", "#6", "--json")
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert found["branch_tip"] and found["steps"]
    waits = [step for step in found["steps"] if step["kind"] == "wait"]
    assert waits and waits[0]["note"] == "waited for an answer to tools"


@pytest.mark.parametrize("ref", ["#99", "nope"])
def test_an_unknown_branch_is_one_line(ref):
    shown = playground("timeline", str(SAMPLE), "--thread", "chat/refund", "--branch", ref)
    assert shown.returncode == 2 and "Traceback" not in shown.stderr


def test_a_price_table_gives_each_node_its_cost(tmp_path):
    from playground.timetravel.timeline import Usage, cost_of

    prices = tmp_path / "prices.json"
    prices.write_text('{"support-rules": {"input": 3.0, "output": 15.0}}')
    shown = playground("timeline", str(SAMPLE), "--thread", "chat/refund", "--prices",
                       str(prices), "--json")
    assert shown.returncode == 0, shown.stderr
    assert all(node["cost"] is None for node in json.loads(shown.stdout)["nodes"])  # no usage
    used = Usage(input=1_000_000, output=200_000, messages=2, models=("support-rules",))
    assert cost_of(used, {"support-rules": {"input": 3.0, "output": 15.0}}) == 6.0
    assert cost_of(used, {"other": {"input": 1.0}}) is None


def test_a_turn_paused_two_seconds_then_resumed_shows_the_pause_as_a_wait_not_write_time(
        api_url, tenant, checkpoints):
    """The ticket agent pauses before ``write``: ``playground turn``, two seconds, then
    ``playground resume``, each its own process, against the real bundled ticket API."""

    common = ["--thread", "paused", "--checkpoints", str(checkpoints), "--api-url", api_url,
              "--tenant", tenant]
    first = playground("turn", *common, "raise t7 to high")
    assert first.returncode == 0, first.stderr
    time.sleep(2)  # the person reads the proposal: the pause under test
    second = playground("resume", *common)
    assert second.returncode == 0, second.stderr

    shown = playground("timeline", str(checkpoints), "--thread", "paused", "--json")
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    write = [step for step in found["steps"] if step["node"] == "write"]
    ran = [step for step in write if step["kind"] == "run"]
    waited = [step for step in write if step["kind"] == "wait"]
    assert len(ran) == 1 and ran[0]["seconds"] < 0.5 and not ran[0]["may_include_a_pause"]
    assert len(waited) == 1 and waited[0]["seconds"] >= 1.5
    assert waited[0]["note"] == "paused before write"
    assert found["wait_seconds"] >= 1.5 and found["run_seconds"] < 1.5
    assert found["steps_that_may_include_a_pause"] == 0
    nodes = {node["node"]: node for node in found["nodes"]}
    assert nodes["write"]["seconds"] < 0.5 and nodes["write"]["share"] <= 1

    text = playground("timeline", str(checkpoints), "--thread", "paused").stdout
    assert any(line.split()[2:4] == ["write", "wait"] and "paused before write" in line
               for line in text.splitlines())


def test_timeline_says_which_step_of_a_stock_thread_may_include_a_pause(saver, tmp_path):
    """A thread written by stock LangGraph (no run marks), resumed after a breakpoint."""
    from tests.playground.timetravel.sample_graphs import counting_chain

    graph = counting_chain(saver, ("read", "write"), interrupt_before=("write",))
    config = {"configurable": {"thread_id": "stock"}}
    graph.invoke({"count": 0}, config)
    time.sleep(PAUSE_WORTH_SECONDS + 0.1)  # a pause long enough to be worth telling
    graph.invoke(None, config)

    shown = playground("timeline", str(tmp_path / "checkpoints.db"), "--thread", "stock")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "1 step may include a pause" in lines[0]
    assert any(line.split()[2:4] == ["write", "run"] and "may include a pause" in line
               for line in lines)
