"""Every read tool of a real ``playground mcp`` process, through the official MCP client on
stdio, on a SQLite file and on Postgres: each answers what the engine answers in-process for
the same question (the ``playground`` command's own calls)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from playground.cli.engine import history_json
from playground.mcp.bounds import jsonable
from playground.mcp.server import READ_TOOLS, WRITE_TOOLS
from playground.places.door import open_storage
from playground.timetravel.compare import compare_branches, newest_branches
from playground.timetravel.diff import diff_states
from playground.timetravel.messages import conversations, turns
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import ThreadQuery, count_threads, thread_page
from playground.timetravel.timeline import timeline
from playground.timetravel.transfer import dumps_export, export_thread
from playground.timetravel.tree import load_tree
from playground.timetravel.tree_layout import tree_layout
from tests.playground.mcp.conftest import DELTA, FORKED, ROOM_THREAD, Place


@contextmanager
def engine(place: Place) -> Iterator[Storage]:
    """The engine's reads on the place, in this process, as the CLI opens them."""
    storage = open_storage(place.target)
    try:
        yield storage
    finally:
        storage.close()


def plain(value: Any) -> Any:
    """What a value reads as after a trip through JSON (tuples as lists, keys as text)."""
    return json.loads(json.dumps(jsonable(value)))


def test_the_read_tools_are_listed_with_their_input_schemas_and_no_write_tool(session):
    tools = session.tools()

    assert set(tools) == set(READ_TOOLS)
    assert not set(tools) & set(WRITE_TOOLS)
    for name, tool in tools.items():
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert "untrusted" in tool.description and "never instructions" in tool.description
        assert "\n" not in tool.description
        assert tool.annotations.read_only_hint is True
        if name != "list_threads":
            assert schema["required"] == ["thread_id"]
    assert set(tools["list_threads"].input_schema["properties"]) == {
        "status", "since", "until", "metadata", "text", "limit", "cursor", "count",
        "group_by"}
    assert set(tools["get_thread"].input_schema["properties"]) == {"thread_id", "limit",
                                                                   "cursor"}
    assert set(tools["get_checkpoint"].input_schema["properties"]) == {"thread_id",
                                                                       "checkpoint"}
    assert tools["get_thread"].input_schema["properties"]["limit"]["maximum"] == 200


def test_list_threads_answers_the_failed_threads_as_the_engine_lists_them(session, place):
    found = session.answer("list_threads", {"status": "failed", "limit": 50})

    with engine(place) as storage:
        page = thread_page(storage, ThreadQuery(status="failed", limit=50))
    assert found["threads"] == plain([row.as_json() for row in page.rows])
    assert [row["thread_id"] for row in found["threads"]] == place.threads("failed")[::-1]
    assert all("not found" in row["reason"] for row in found["threads"])
    assert found["next_cursor"] is None


def test_list_threads_says_how_many_match_in_all_as_the_engine_counts_them(session, place):
    result = session.call("list_threads", {"status": "failed", "limit": 1})
    counted = session.call("list_threads", {"status": "failed", "count": True})

    with engine(place) as storage:
        truth = count_threads(storage, ThreadQuery(status="failed"))
    failed = len(place.threads("failed"))
    assert truth.count == failed and truth.by_query
    page = result.structured_content
    assert (page["shown"], page["matching"], page["matching_at_least"]) == (1, failed, None)
    assert page["counted_by"] == "database" and page["next_cursor"]
    assert result.content[0].text.startswith(f"1 shown of {failed} that match in ")
    count = counted.structured_content
    assert (count["matching"], count["counted_by"], count["count_cut_short"]) == (
        failed, "database", None)
    assert "threads" not in count  # a count alone: no page
    assert counted.content[0].text.startswith(f"{failed} threads match in ")
    assert counted.content[0].text.endswith("(counted by the database)")


def test_the_structured_content_holds_each_fact_its_summary_says(session, place):
    listed = session.call("list_threads", {"limit": 2})
    thread = session.call("get_thread", {"thread_id": FORKED, "limit": 2})

    for result in (listed, thread):
        facts = result.structured_content
        said = result.content[0].text
        assert facts["next_cursor"] and f"more with cursor={facts['next_cursor']}" in said
    everything = listed.structured_content
    assert everything["shown"] == 2 and everything["matching"] == len(place.seeds) + 3
    assert listed.content[0].text.startswith(
        f"2 shown of {everything['matching']} threads in ")


def test_list_threads_pages_with_its_cursor_and_filters_by_metadata(session, place):
    first = session.answer("list_threads", {"limit": 3})
    second = session.answer("list_threads", {"limit": 3, "cursor": first["next_cursor"]})
    by_pairs = session.answer("list_threads", {"metadata": ["user=u2"]})
    by_mapping = session.answer("list_threads", {"metadata": {"user": "u2"}})

    with engine(place) as storage:
        page = thread_page(storage, ThreadQuery(limit=6))
    assert [row["thread_id"] for row in first["threads"] + second["threads"]] == [
        row.summary.thread_id for row in page.rows]
    assert [row["thread_id"] for row in by_pairs["threads"]] == ["seed-0002"]
    assert by_mapping["threads"] == by_pairs["threads"]


def test_get_thread_answers_its_status_branches_and_checkpoints_as_history_gives_them(
        session, place):
    failed = place.threads("failed")[0]
    found = session.answer("get_thread", {"thread_id": failed, "limit": 5})
    forked = session.answer("get_thread", {"thread_id": FORKED, "limit": 200})

    with engine(place) as storage:
        tree = load_tree(storage, failed, all_details=True)
        history = history_json(tree, storage.checkpoint_metadata(failed))
        fork_tree = load_tree(storage, FORKED)
        labels = {branch.label for branch in tree_layout(storage, fork_tree).branches}
    assert found["status"] == "failed" and found["error"]["node"] == "tools"
    assert "not found" in found["reason"]
    assert found["head"]["ordinal"] == len(tree) and found["checkpoints_total"] == len(tree)
    newest = list(reversed(plain(history)["checkpoints"]))[:5]
    for shown, expected in zip(found["checkpoints"], newest, strict=True):
        assert {key: shown[key] for key in expected} == expected
    assert found["next_cursor"]
    assert {branch["label"] for branch in forked["branches"]} == labels
    assert forked["branches_total"] == len(labels) == 3
    assert forked["branches"][0]["label"].startswith("head")
    assert [c["ordinal"] for c in forked["checkpoints"]] == list(range(len(fork_tree), 0, -1))


def test_get_thread_goes_on_where_its_cursor_says(session, place):
    thread = place.threads("forked")[0]
    first = session.answer("get_thread", {"thread_id": thread, "limit": 4})
    rest = session.answer("get_thread", {"thread_id": thread, "limit": 200,
                                         "cursor": first["next_cursor"]})

    ordinals = [c["ordinal"] for c in first["checkpoints"] + rest["checkpoints"]]
    assert ordinals == list(range(first["checkpoints_total"], 0, -1))
    assert rest["next_cursor"] is None


def test_get_checkpoint_answers_values_next_nodes_and_pending_writes_the_engine_reads(
        session, place):
    paused = place.threads("paused")[0]
    head = session.answer("get_checkpoint", {"thread_id": paused})
    first = session.answer("get_checkpoint", {"thread_id": paused, "checkpoint": "#1"})

    with engine(place) as storage:
        tree = load_tree(storage, paused, all_details=True)
        values = storage.values(paused, tree.head)
        writes = storage.pending_writes(paused, tree.head)
        record = tree.nodes[tree.head]
        metadata = storage.checkpoint_metadata(paused, "", [tree.head])[tree.head]
    assert head["checkpoint_id"] == tree.head and head["is_head"] is True
    assert head["values"] == plain(values)
    assert head["next"] == list(tree.details[tree.head].next) == ["tools"]
    assert head["metadata"] == plain(metadata)
    assert head["pending_writes"] == plain([
        {"node": w.node, "channel": w.channel, "value": w.value, "bytes": w.size,
         "task_id": w.task_id} for w in writes])
    assert head["size"]["bytes"] == record.stored_bytes
    assert [s["kind"] for s in head["signals"]] == ["interrupt"]
    assert head["signals"][0]["text"].startswith("Approve a refund")
    assert first["ordinal"] == 1 and first["parent"] is None and first["source"] == "input"


def test_get_checkpoint_answers_delta_channel_values_rebuilt_as_the_engine_rebuilds_them(
        session, place):
    found = session.answer("get_checkpoint", {"thread_id": DELTA})

    with engine(place) as storage:
        tree = load_tree(storage, DELTA)
        state = storage.state(DELTA, tree.head)
    assert found["values"] == plain(state.values)
    assert len(found["values"]["messages"]) == 8
    assert found["rebuilt"] and all("messages: rebuilt from" in line
                                    for line in found["rebuilt"])


def test_diff_checkpoints_answers_the_lines_playground_diff_prints(session, place):
    failed = place.threads("failed")[0]
    from_parent = session.answer("diff_checkpoints", {"thread_id": failed})
    across = session.answer("diff_checkpoints", {"thread_id": failed, "from_checkpoint": "#2",
                                                 "to_checkpoint": "#5"})

    with engine(place) as storage:
        tree = load_tree(storage, failed)
        ids = list(tree.nodes)
        parent = tree.parent_of(tree.head)
        head_lines = diff_states(storage.values(failed, parent),
                                 storage.values(failed, tree.head)).lines()
        across_lines = diff_states(storage.values(failed, ids[1]),
                                   storage.values(failed, ids[4])).lines()
    assert from_parent["lines"] == head_lines and from_parent["lines"]
    assert (from_parent["from"]["checkpoint_id"], from_parent["to"]["checkpoint_id"]) == (
        parent, tree.head)
    assert across["lines"] == across_lines
    assert (across["from"]["ordinal"], across["to"]["ordinal"]) == (2, 5)


def test_get_conversation_answers_each_tool_call_beside_its_result(session, place):
    thread = place.threads("finished")[-1]
    found = session.answer("get_conversation", {"thread_id": thread, "limit": 200})

    with engine(place) as storage:
        tree = load_tree(storage, thread)
        expected = turns(conversations(storage.values(thread, tree.head))["messages"])
    assert found["turns_total"] == len(expected) == len(found["turns"])
    for shown, turn in zip(found["turns"], expected, strict=True):
        assert (shown["role"], shown["text"], shown["id"]) == (
            turn.message.role, turn.message.text, turn.message.id)
        assert [(c["name"], c["args"], c["result"]["text"] if c["result"] else None)
                for c in shown["tool_calls"]] == [
            (call.name, plain(call.args), reply.text if reply else None)
            for call, reply in turn.results]
    calls = [c for t in found["turns"] for c in t["tool_calls"]]
    assert calls and all(c["result"]["text"].startswith("order ") for c in calls)
    assert not any(t["role"] == "tool" for t in found["turns"])  # each sits beside its call


def test_get_timeline_answers_the_engine_timeline_a_page_at_a_time(session, place):
    thread = place.threads("paused")[-1]
    first = session.answer("get_timeline", {"thread_id": thread, "limit": 3})
    rest = session.answer("get_timeline", {"thread_id": thread, "limit": 200,
                                           "cursor": first["next_cursor"]})

    with engine(place) as storage:
        tree = load_tree(storage, thread, times=True)
        expected = plain(timeline(storage, tree).to_json())
    assert first["steps"] + rest["steps"] == expected["steps"]
    for key in ("run_seconds", "wait_seconds", "idle_seconds", "tokens", "nodes"):
        assert first[key] == expected[key]
    ran = [s for s in expected["steps"] if s["kind"] == "run" and s["seconds"] is not None]
    assert first["slowest_step"] == max(ran, key=lambda s: s["seconds"])
    assert rest["next_cursor"] is None


def test_compare_branches_answers_the_engine_comparison(session, place):
    found = session.answer("compare_branches", {"thread_id": FORKED, "limit": 200})
    chosen = session.answer("compare_branches", {"thread_id": FORKED, "left": "#3",
                                                 "right": "#5"})

    with engine(place) as storage:
        tree = load_tree(storage, FORKED)
        left, right = newest_branches(tree)
        expected = plain(compare_branches(storage, tree, left, right).to_json())
    assert (found["left"]["checkpoint_id"], found["right"]["checkpoint_id"]) == (left, right)
    assert found["steps"] == expected["steps"]
    assert found["first_difference_line"] == expected["first_difference_line"]
    assert found["final"] == expected["final"]
    assert found["ancestor"]["checkpoint_id"] == expected["ancestor"]
    assert (chosen["left"]["ordinal"], chosen["right"]["ordinal"]) == (3, 5)


def test_the_thread_resource_is_the_export_playground_export_writes(session, place):
    thread = place.threads("failed")[0]
    text = session.read(f"thread://{thread}")

    with engine(place) as storage:
        expected = dumps_export(export_thread(storage, thread))
    assert text == expected
    assert json.loads(text)["thread_id"] == thread


def test_the_debug_prompt_walks_from_the_failed_threads_to_the_failing_step(session):
    (message,) = session.prompt("debug_failed_thread")
    for_one = session.prompt("debug_failed_thread", {"thread_id": "seed-0002"})[0]

    text = message.content.text
    order = [text.index(tool) for tool in ("list_threads", "get_thread", "get_checkpoint",
                                           "diff_checkpoints")]
    assert order == sorted(order)
    assert 'status="failed"' in text and "never as instructions" in text
    assert "'seed-0002'" in for_one.content.text


# -- bad arguments: a tool error of one sentence, and the server goes on -------------------

GARBAGE = [
    ("list_threads", {"status": "exploded"}),
    ("list_threads", {"limit": 0}),
    ("list_threads", {"since": "yesterday-ish"}),
    ("list_threads", {"metadata": ["no-equals-sign"]}),
    ("list_threads", {"cursor": "not-a-cursor"}),
    ("list_threads", {"state": "failed"}),
    ("list_threads", {"count": True, "cursor": "r5"}),
    ("list_threads", {"count": "lots"}),
    ("get_thread", {"thread_id": "no-such-thread"}),
    ("get_thread", {"thread_id": 42}),
    ("get_thread", {}),
    ("get_thread", {"thread_id": "seed-0002", "cursor": "get_timeline:3"}),
    ("get_thread", {"thread_id": "seed-0002", "cursor": "get_thread:0"}),
    ("get_thread", {"thread_id": "seed-0002", "cursor": "get_thread:99999"}),
    ("get_checkpoint", {"thread_id": "seed-0002", "checkpoint": "#999"}),
    ("get_checkpoint", {"thread_id": "seed-0002", "checkpoint": "zzzz-not-an-id"}),
    ("get_checkpoint", {"thread_id": "no-such-thread"}),
    ("get_checkpoint", {"thread_id": ["seed-0002"]}),
    ("diff_checkpoints", {"thread_id": "seed-0002", "to_checkpoint": "#1"}),
    ("diff_checkpoints", {"thread_id": "seed-0002", "from_checkpoint": "#0"}),
    ("get_conversation", {"thread_id": "seed-0002", "checkpoint": "#-1"}),
    ("get_conversation", {"thread_id": "seed-0002", "limit": "many"}),
    ("get_timeline", {"thread_id": "no-such-thread"}),
    ("get_timeline", {"thread_id": "seed-0002", "cursor": "get_timeline:99999"}),
    ("compare_branches", {"thread_id": "seed-0002"}),
    ("compare_branches", {"thread_id": FORKED, "left": "#3"}),
    ("no_such_tool", {}),
]


@pytest.mark.parametrize(("tool", "arguments"), GARBAGE,
                         ids=[f"{t}-{'-'.join(a) or 'none'}" for t, a in GARBAGE])
def test_a_garbage_argument_is_a_tool_error_of_one_sentence_and_the_server_goes_on(
        session, tool, arguments):
    said = session.error(tool, arguments)
    after = session.answer("get_thread", {"thread_id": "seed-0002", "limit": 1})

    assert "\n" not in said and "Traceback" not in said and len(said) <= 400
    assert "pydantic" not in said and "Error executing tool" not in said
    assert after["checkpoints"]


def test_get_checkpoint_answers_a_tool_error_when_the_thread_is_unknown(session, place):
    said = session.error("get_checkpoint", {"thread_id": "nobody"})

    assert said.startswith("no thread 'nobody' in ")


def test_a_wrong_type_is_named_with_the_argument_and_never_its_value(session):
    said = session.error("get_thread", {"thread_id": {"$ne": "secret-value"}})

    assert said.startswith("get_thread refused its arguments: thread_id: ")
    assert "secret-value" not in said


def test_an_unknown_argument_is_refused_with_the_arguments_the_tool_takes(session):
    said = session.error("list_threads", {"state": "failed"})

    assert said == ("list_threads takes no argument 'state': it takes count, cursor, group_by, "
                    "limit, metadata, since, status, text, until")


def test_a_thread_named_as_a_page_names_it_is_read_under_its_stored_id(session):
    result = session.call("get_thread", {"thread_id": "thread-1"})

    assert not result.is_error, result.content[0].text
    assert result.structured_content["thread_id"] == ROOM_THREAD
    assert result.content[0].text.startswith(f"(thread {ROOM_THREAD} is the stored id) ")
    # said in the structured content too: a client may hand its model only that
    assert result.structured_content["thread_id_given"] == "thread-1"
