"""Runs, answers, edits and forks of a graph an Agent Server runs, through the same runtime
calls the pages make on a local graph (a real ``langgraph dev`` serving examples/).

Each test works on a thread of its own, named as the pages name one (``room/thread``): the
server takes UUIDs only, so the name maps to one.
"""

from __future__ import annotations

import threading
import uuid

import pytest
from langgraph_sdk import get_sync_client

from playground.apps.server_app import server_apps
from playground.places.door import open_storage
from playground.places.server_address import server_thread_id
from playground.runtime.run import Breakpoints, GraphRun, current_outcome, resume_command
from playground.runtime.time_travel import fork_with_edit, replay_from, resume_thread
from playground.timetravel.tree import load_tree


@pytest.fixture
def chat(agent_server):
    url, _ = agent_server
    return url, server_apps(url)["support_chat"].template


def _config(name: str) -> dict:
    return {"configurable": {"thread_id": name}}


def _thread() -> str:
    return f"room-test/{uuid.uuid4().hex[:8]}"


def _say(text: str) -> dict:
    return {"messages": [{"role": "user", "content": text}]}


def test_a_chat_run_streams_its_reply_token_by_token(chat):
    _, graph = chat
    run = GraphRun(graph, _config(_thread()), _say("hello there"), tokens=True)
    steps = list(run)
    tokens = [step for step in steps if step.kind == "token" and step.node == "assistant"]
    assert len(tokens) > 5  # word by word, not one whole message
    assert "".join(t.text for t in tokens).startswith("I can look up an order or refund one")
    assert [s.node for s in steps if s.kind == "start"] == ["triage", "assistant"]
    assert run.outcome.status == "finished"


def test_pause_before_a_node_then_continue(chat):
    _, graph = chat
    name = _thread()
    run = GraphRun(graph, _config(name), _say("where is A17"), Breakpoints(before=("tools",)))
    list(run)
    assert run.outcome.status == "paused" and run.outcome.next == ("tools",)
    again = GraphRun(graph, _config(name), None)
    list(again)
    assert again.outcome.status == "finished"
    values = graph.get_state(_config(name)).values
    assert values["messages"][-1]["content"] == "Your order A17 is shipped with DHL."


def test_a_question_is_answered_with_a_command_and_the_run_goes_on(chat):
    url, graph = chat
    name = _thread()
    asked = GraphRun(graph, _config(name), _say("please refund order A17"))
    list(asked)
    assert asked.outcome.status == "waiting"
    question = asked.outcome.questions[0]
    assert (question.node, question.text) == ("tools",
                                              "Approve a refund of $40.00 for order A17?")
    answered = GraphRun(graph, _config(name), resume_command(asked.outcome.questions,
                                                             {question.interrupt_id: "yes"}))
    list(answered)
    assert answered.outcome.status == "finished"
    tree = load_tree(open_storage(url), name)
    assert current_outcome(graph, _config(name), tree).status == "finished"
    assert tree.nodes[tree.head].step == 4


def test_fork_with_edit_and_replay_grow_branches_on_the_server(chat):
    url, graph = chat
    name = _thread()
    list(GraphRun(graph, _config(name), _say("where is A17")))
    history = get_sync_client(url=url, api_key=None).threads.get_history(
        server_thread_id(name), limit=100)
    paused_at_tools = next(entry["checkpoint_id"] for entry in history
                           if entry["next"] == ["tools"])
    config = {"configurable": {"thread_id": name, "checkpoint_id": paused_at_tools}}
    forked = fork_with_edit(graph, config, {"topic": "escalated"})
    assert forked.values["topic"] == "escalated"
    replayed = replay_from(graph, config)
    assert replayed.new_checkpoint_ids
    tree = load_tree(open_storage(url), name)
    assert len(tree.leaves) == 3  # the run, the fork, the replay
    assert tree.nodes[forked.fork_checkpoint_id].parent_id == paused_at_tools
    assert tree.nodes[forked.fork_checkpoint_id].source == "update"


def test_an_edit_the_server_state_does_not_hold_is_refused_and_writes_nothing(chat):
    from playground.apps.state_fields import EditRefused
    from playground.runtime.time_travel import edit_state

    url, graph = chat
    name = _thread()
    list(GraphRun(graph, _config(name), _say("hello")))
    before = len(load_tree(open_storage(url), name))
    with pytest.raises(EditRefused, match="unknown key 'topik'"):
        edit_state(graph, _config(name), {"topik": "x"})
    assert len(load_tree(open_storage(url), name)) == before


def test_stop_cancels_the_run_on_the_server(chat):
    url, graph = chat
    name = _thread()
    run = GraphRun(graph, _config(name), _say("hello there"), tokens=True)
    seen: list = []
    first_token = threading.Event()

    def walk() -> None:
        for step in run:
            seen.append(step)
            if step.kind == "token":
                first_token.set()

    walker = threading.Thread(target=walk)
    walker.start()
    assert first_token.wait(60)
    run.halt()
    walker.join(60)
    client = get_sync_client(url=url, api_key=None)
    runs = client.runs.list(server_thread_id(name))
    assert runs[0]["status"] == "interrupted"
    words = [step for step in seen if step.kind == "token"]
    assert len(words) < 15  # the reply was cut short
    # stopped, as every surface says it (issue 51), never failed
    assert run.outcome.status == "stopped", run.outcome
    assert run.outcome.message == "stopped in assistant: Continue runs it on"
    tree = load_tree(open_storage(url), name)
    assert tree.tip_status(tree.head).said == "stopped in assistant: Continue runs it on"
    assert tree.head in tree.stopped and tree.head not in tree.failed


def test_a_second_run_on_a_busy_thread_is_the_servers_409_in_words(chat):
    _, graph = chat
    name = _thread()
    first = GraphRun(graph, _config(name), _say("hello there"), tokens=True)
    steps = iter(first)
    next(steps)  # the first run is going
    second = GraphRun(graph, _config(name), _say("where is A17"))
    list(second)
    assert second.outcome.status == "failed"
    assert "409" in second.outcome.message and "already running" in second.outcome.message
    list(steps)
    assert first.outcome.status == "finished"


def test_a_graph_without_messages_gets_its_input_form_from_the_servers_schema(agent_server):
    from playground.apps.inputs import input_fields, parse_input

    url, _ = agent_server
    app = server_apps(url)["research"]
    assert not app.has_messages
    fields = input_fields(app.template, app.input_schema, app.managed_keys)
    assert [(f.name, f.kind, f.is_text) for f in fields][:2] == [("topic", "str", True),
                                                                 ("questions", "list", False)]
    payload = parse_input(fields, {"topic": "checkpoints"})
    name = _thread()
    run = GraphRun(app.template, _config(name), payload)
    list(run)
    assert run.outcome.status == "finished"
    report = app.template.get_state(_config(name)).values["report"]
    assert report.startswith("Report on checkpoints (2 rounds)")


def test_edit_and_fork_and_regenerate_a_chat_on_the_server(chat):
    from playground.runtime.chat import edit_and_fork, regenerate

    url, graph = chat
    name = _thread()
    list(GraphRun(graph, _config(name), _say("where is A17")))
    said = graph.get_state(_config(name)).values["messages"]
    run = edit_and_fork(graph, _config(name), said[0]["id"], "where is B22")
    list(run)
    assert run.outcome.status == "finished"
    answer = graph.get_state(_config(name)).values["messages"][-1]
    assert answer["content"] == "Your order B22 is processing."
    again = regenerate(graph, _config(name), answer["id"])
    list(again)
    assert again.outcome.status == "finished"
    assert len(load_tree(open_storage(url), name).leaves) == 3


def test_resume_thread_at_a_question_takes_the_answer_and_refuses_none(chat):
    """History's Resume the head on a server (issue 51): no answer is refused before any run
    starts (the head stays), an answer finishes the thread."""
    url, graph = chat
    name = _thread()
    list(GraphRun(graph, _config(name), _say("please refund order A17")))
    head = load_tree(open_storage(url), name).head

    refused = resume_thread(graph, name)
    assert not refused.ok and refused.line.startswith("not resumed, nothing was run: tools asks")
    assert load_tree(open_storage(url), name).head == head

    done = resume_thread(graph, name, "yes")
    assert done.ok and done.line.endswith("finished"), done.line
    assert done.values["messages"][-1]["content"] == "Refunded $40.00 for order A17."
