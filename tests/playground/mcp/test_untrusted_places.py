"""``playground mcp`` on databases built to hurt a reader: values naming code to run (every
msgpack extension, a json ``lc`` constructor, pickle rows), parent links that loop, views that
never end, values nested past any limit, a blob that blows up, a 10 MB thread id.

Through every tool, nothing runs (no canary file appears), each call answers within the answer
cap or says in one sentence why not, within the read deadline and a memory cap, and the server
keeps serving.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest
from mcp.shared.exceptions import MCPError

from tests.playground import hostile_cases as cases
from tests.playground import hostile_db
from tests.playground.mcp.client import ROOT, Session, mcp_session, server_command

READ_TIMEOUT_S = 3
CALL_DEADLINE_S = READ_TIMEOUT_S * 4 + 10  # a call reads a few times; and a busy machine
MEMORY_CAP = 2 * 1024**3  # address space, as the CLI's hostile tests cap it
ENV = {"PLAYGROUND_READ_TIMEOUT": str(READ_TIMEOUT_S)}


def every_tool(session: Session, thread: str, checkpoints: int) -> dict[str, list]:
    """Each read tool on ``thread``, at each of its checkpoints where a tool takes one: the
    answers and the refusals, each checked to be one or the other."""
    calls = [("list_threads", {}), ("list_threads", {"status": "failed"}),
             ("list_threads", {"text": "refund"}),
             ("get_thread", {"thread_id": thread, "limit": 200}),
             ("get_timeline", {"thread_id": thread}),
             ("compare_branches", {"thread_id": thread})]
    for ordinal in range(1, checkpoints + 1):
        at = f"#{ordinal}"
        calls += [("get_checkpoint", {"thread_id": thread, "checkpoint": at}),
                  ("get_conversation", {"thread_id": thread, "checkpoint": at}),
                  ("diff_checkpoints", {"thread_id": thread, "to_checkpoint": at,
                                        "from_checkpoint": "#1"})]
    found: dict[str, list] = {"answers": [], "refusals": []}
    for name, arguments in calls:
        started = time.monotonic()
        result = session.call(name, arguments)
        assert time.monotonic() - started < CALL_DEADLINE_S, (name, arguments)
        if result.is_error:
            (block,) = result.content
            assert "\n" not in block.text and "Traceback" not in block.text, block.text
            assert block.text != f"Error executing tool {name}", (name, arguments)
            found["refusals"].append((name, arguments, block.text))
        else:
            found["answers"].append((name, arguments, result.structured_content))
    return found


@pytest.fixture(params=["sqlite", "postgres"])
def hostile(request):
    """(target, canary folder) of a database whose values name commands, of each kind."""
    target, folder = request.getfixturevalue(f"hostile_{request.param}")
    return str(target), folder


def test_no_tool_runs_the_code_a_hostile_database_names(hostile):
    target, folder = hostile

    with mcp_session(target, env=ENV, memory_cap=MEMORY_CAP) as session:
        thread = session.answer("get_thread", {"thread_id": hostile_db.THREAD, "limit": 200})
        found = every_tool(session, hostile_db.THREAD, thread["checkpoints_total"])
        plain = every_tool(session, hostile_db.PLAIN_THREAD, 1)
        try:
            exported = session.read(f"thread://{hostile_db.THREAD}")
        except MCPError as exc:  # an export that cannot be written byte for byte: one line
            assert "\n" not in str(exc) and "cannot be exported" in str(exc)
            exported = hostile_db.THREAD
        first = session.answer("get_checkpoint", {"thread_id": hostile_db.THREAD,
                                                  "checkpoint": "#1"})
        alive = session.answer("list_threads", {})

    assert hostile_db.canaries(folder) == []
    assert thread["status"] == "failed"  # the head holds charge's error beside its question
    assert thread["question"]["text"] == "Approve a refund of $40 for order A17?"
    assert thread["error"] == {"node": "charge", "text": "ValueError('card declined')"}
    assert found["answers"] and plain["answers"] and hostile_db.THREAD in exported
    # what a value names is shown as data, never called
    assert first["values"]["ext1"] == {
        "__type__": "os.system", "args": [f"touch {hostile_db.canary(folder, 'ext1')}"]}
    assert {row["thread_id"] for row in alive["threads"]} == {hostile_db.THREAD,
                                                               hostile_db.PLAIN_THREAD}


# Each crafted file, and the threads to read in it: none where the place itself is refused
# before the server starts (a view where a table should be is never read).
CRAFTED = {
    "cycles": (cases.write_cycles, [cases.CYCLE_THREAD, "self"]),
    "endless-view": (cases.write_endless_view, []),
    "rows-view": (cases.write_rows_view, []),
    "deep-value": (cases.write_deep_value, ["deep"]),
    "blowup": (cases.write_blowup, ["blowup"]),
    "long-id": (cases.write_long_thread_id, ["normal"]),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_a_crafted_database_is_refused_in_one_line_or_served_within_its_bounds(case, tmp_path):
    write, threads = CRAFTED[case]
    target = str(write(tmp_path / f"{case}.sqlite"))

    if not threads:
        refused = subprocess.run(server_command(target, memory_cap=MEMORY_CAP), input="",
                                 capture_output=True, text=True, timeout=60, cwd=ROOT,
                                 env={**os.environ, **ENV})
        assert (refused.returncode, refused.stdout) == (2, ""), refused.stderr[-2000:]
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert refused.stderr.startswith("playground mcp: ")
        assert "is a view, not a table" in refused.stderr
        return
    with mcp_session(target, env=ENV, memory_cap=MEMORY_CAP) as session:
        for thread in threads:
            every_tool(session, thread, 4)
        listed = session.answer("list_threads", {})

    for row in listed["threads"]:
        thread_id = row["thread_id"]
        assert isinstance(thread_id, str) or (thread_id["cut"] and thread_id["bytes"] > 1024)
