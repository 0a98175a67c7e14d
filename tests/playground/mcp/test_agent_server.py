"""``playground mcp`` on an Agent Server's URL (a real ``langgraph dev``): the read tools answer
through its HTTP API, as every ``playground`` command reads it. (The ``agent_server`` fixture
puts these tests in the slow lane: ``make test`` runs them, ``make check`` does not.)"""

from __future__ import annotations

from tests.playground.mcp.client import mcp_session


def test_each_read_tool_answers_on_an_agent_server(agent_server):
    url, threads = agent_server

    with mcp_session(url) as session:
        listed = session.answer("list_threads", {"limit": 200})
        forked = session.answer("get_thread", {"thread_id": threads["forked"]})
        waiting = session.answer("get_checkpoint", {"thread_id": threads["waiting"]})
        conversation = session.answer("get_conversation", {"thread_id": threads["forked"]})
        compared = session.answer("compare_branches", {"thread_id": threads["forked"]})
        spent = session.answer("get_timeline", {"thread_id": threads["forked"]})
        changed = session.answer("diff_checkpoints", {"thread_id": threads["forked"]})
        unknown = session.error("get_thread", {"thread_id": "no-such-thread"})

    assert {threads["forked"], threads["waiting"]} <= {t["thread_id"] for t in listed["threads"]}
    assert forked["branches_total"] == 2
    assert waiting["next"] == ["tools"]
    assert waiting["signals"][0]["text"].startswith("Approve a refund")
    assert any(call["name"] == "refund" for turn in conversation["turns"]
               for call in turn["tool_calls"])
    assert compared["ancestor"] is not None and spent["steps"] and changed["lines"]
    assert unknown.startswith("no thread 'no-such-thread'")
