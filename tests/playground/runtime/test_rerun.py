"""Re-run a thread on changed code from its recording: model calls answered in order, tools
real or recorded, a call the recording cannot answer stops it, and Compare shows where the new
branch parts from the old. On every backend."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import InjectedState, ToolNode
from langgraph.types import Command, interrupt

from playground.places.door import open_storage
from playground.runtime.answers import Answerer, answering
from playground.runtime.rerun import rerun
from playground.standin import StandInChatModel, text_of
from playground.timetravel.compare import compare_branches
from playground.timetravel.recording import record_branch
from playground.timetravel.tree import load_tree
from tests.playground.timetravel.sample_graphs import config

CALLS: list[str] = []


@tool
def lookup_order(order_id: str) -> str:
    """Where an order is."""
    CALLS.append(order_id)
    return f"{order_id} shipped on Monday"


def support_rules(messages, tools) -> AIMessage:
    """Ask the tool about the order in the question, then answer from its result."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(f"Your order: {text_of(last)}")
    order = text_of(last).split()[-1].strip("?")
    return AIMessage("", tool_calls=[{"name": "lookup_order", "args": {"order_id": order},
                                      "id": f"call-{order}"}])


def other_rules(messages, tools) -> AIMessage:
    return AIMessage("a model that was asked for real")


class Chat(TypedDict):
    messages: Annotated[list, add_messages]


def support_graph(saver, rules=support_rules, review: bool = False, shout: bool = False):
    """call_model -> tools -> call_model, as a ReAct template wires it; ``review`` puts a node
    before the tools (the routing change), ``shout`` rewrites the tool call's arguments."""
    model = StandInChatModel(rules=rules).bind_tools([lookup_order])

    def call_model(state: Chat) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def review_calls(state: Chat) -> dict:
        last = state["messages"][-1]
        if not shout:
            return {}
        calls = [{**c, "args": {"order_id": c["args"]["order_id"].upper() + "!"}}
                 for c in last.tool_calls]
        return {"messages": [AIMessage(last.content, tool_calls=calls, id=last.id)]}

    builder = StateGraph(Chat)
    builder.add_node("call_model", call_model)
    builder.add_node("tools", ToolNode([lookup_order]))
    builder.add_edge(START, "call_model")
    after = "review" if review else "tools"
    if review:
        builder.add_node("review", review_calls)
        builder.add_edge("review", "tools")
    builder.add_conditional_edges("call_model", lambda s: after if s["messages"][-1].tool_calls
                                  else END, [after, END])
    builder.add_edge("tools", "call_model")
    return builder.compile(checkpointer=saver)


@pytest.fixture
def original(database) -> str:
    """A support thread of two questions, each answered through the tool: the recording."""
    graph = support_graph(database.saver)
    graph.invoke({"messages": [HumanMessage("where is A17?", id="h1")]}, config("s"))
    graph.invoke({"messages": [HumanMessage("and B22?", id="h2")]}, config("s"))
    return "s"


def first_checkpoint(database, thread_id: str):
    with closing(database.open()) as storage:
        tree = load_tree(storage, thread_id)
    return tree, tree.path_to(tree.head)[0]


def recorded(database, thread_id: str, start: str | None = None):
    with closing(database.open()) as storage:
        tree = load_tree(storage, thread_id)
        start = start or tree.path_to(tree.head)[0]
        return tree, record_branch(storage, tree, start)


def test_a_recording_holds_the_inputs_replies_and_tool_results_in_order(database, original):
    _, recording = recorded(database, original)

    assert [e.kind for e in recording.events] == ["input"]  # the second question; the first
    # came with the checkpoint the recording starts from
    assert [r["tool_calls"][0]["args"] for r in recording.replies if r["tool_calls"]] == [
        {"order_id": "A17"}, {"order_id": "B22"}]
    assert [r["content"] for r in recording.replies if not r["tool_calls"]] == [
        "Your order: A17 shipped on Monday", "Your order: B22 shipped on Monday"]
    assert [(t.name, t.args, t.content) for t in recording.tool_results] == [
        ("lookup_order", {"order_id": "A17"}, "A17 shipped on Monday"),
        ("lookup_order", {"order_id": "B22"}, "B22 shipped on Monday")]


def test_a_rerun_on_changed_routing_answers_from_the_recording_and_parts_at_the_change(
        database, original):
    _, recording = recorded(database, original)
    changed = support_graph(database.saver, rules=other_rules, review=True)
    CALLS.clear()

    outcome = rerun(changed, recording)

    assert outcome.status == "done", outcome.message
    assert outcome.replies_used == 4 and outcome.real_model_calls == 0
    assert CALLS == ["A17", "B22"]  # tools ran for real
    with closing(database.open()) as storage:
        tree = load_tree(storage, "s")
        comparison = compare_branches(storage, tree, recording.end, tree.head)
    assert comparison.difference_line().endswith(
        "only the right branch runs review")  # the model's call came back the same
    labels = [(p.left.label if p.left else "-", p.right.label if p.right else "-")
              for p in comparison.pairs]
    assert labels[:4] == [("input", "input"), ("call_model", "call_model"), ("-", "review"),
                          ("tools", "tools")]
    assert comparison.final.is_empty  # the same answers, though this model says otherwise


def test_tools_answered_from_the_recording_are_not_called(database, original):
    _, recording = recorded(database, original)
    CALLS.clear()

    outcome = rerun(support_graph(database.saver), recording, tools_from_recording=True)

    assert outcome.status == "done", outcome.message
    assert CALLS == []


def test_a_tool_called_with_other_arguments_stops_the_rerun_and_says_where(database, original):
    _, recording = recorded(database, original)

    outcome = rerun(support_graph(database.saver, review=True, shout=True), recording,
                    tools_from_recording=True)

    assert outcome.status == "stopped"
    assert outcome.message == ('stopped in tools: the tool lookup_order was called with other '
                               'arguments ({"order_id": "A17!"}) than recorded '
                               '({"order_id": "A17"})')


def test_more_model_calls_than_recorded_stop_unless_the_real_model_may_answer(database):
    graph = support_graph(database.saver)
    graph.invoke({"messages": [HumanMessage("where is A17?", id="h1")]}, config("one"))
    _, recording = recorded(database, "one")

    def loop_once_more(messages, tools) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": "lookup_order", "args": {"order_id": "C3"},
                                          "id": "call-C3"}])

    # the recording holds two replies; this graph asks the model a third time after them
    stopped = rerun(_asking_twice(database.saver, loop_once_more), recording)
    assert stopped.status == "stopped"
    assert "the model was called 3 times, and the recording holds 2 replies" in stopped.message

    CALLS.clear()
    real = rerun(_asking_twice(database.saver, loop_once_more), recording,
                 real_model_after=True)
    assert real.status == "done" and real.replies_used == 2 and real.real_model_calls == 1


def _asking_twice(saver, rules):
    """call_model -> tools -> call_model -> second_opinion (another model call) -> END."""
    model = StandInChatModel(rules=rules)

    def call_model(state: Chat) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def second_opinion(state: Chat) -> dict:
        reply = model.invoke(state["messages"])
        return {"messages": [AIMessage(f"second opinion: {text_of(reply)}")]}

    builder = StateGraph(Chat)
    builder.add_node("call_model", call_model)
    builder.add_node("tools", ToolNode([lookup_order]))
    builder.add_node("second_opinion", second_opinion)
    builder.add_edge(START, "call_model")
    builder.add_conditional_edges(
        "call_model", lambda s: "tools" if s["messages"][-1].tool_calls and not any(
            isinstance(m, ToolMessage) for m in s["messages"]) else "second_opinion",
        ["tools", "second_opinion"])
    builder.add_edge("tools", "call_model")
    builder.add_edge("second_opinion", END)
    return builder.compile(checkpointer=saver)


class Approval(TypedDict, total=False):
    request: str
    approved: bool


def approval_graph(saver):
    builder = StateGraph(Approval)
    builder.add_node("ask", lambda s: {"approved": interrupt(f"approve {s['request']}?")})
    builder.add_node("act", lambda s: {})
    builder.add_edge(START, "ask")
    builder.add_edge("ask", "act")
    builder.add_edge("act", END)
    return builder.compile(checkpointer=saver)


def test_interrupt_answers_are_fed_back_in_order(database):
    from langgraph.types import Command

    graph = approval_graph(database.saver)
    graph.invoke({"request": "a refund"}, config("a"))
    graph.invoke(Command(resume=True), config("a"))
    _, recording = recorded(database, "a")

    assert [(e.kind, e.value) for e in recording.events] == [("resume", True)]
    outcome = rerun(approval_graph(database.saver), recording)

    assert outcome.status == "done", outcome.message
    assert graph.get_state(config("a")).values["approved"] is True


def test_other_runs_are_not_answered_while_a_rerun_is(database, original):
    _, recording = recorded(database, original)
    answerer = Answerer(recording)
    model = StandInChatModel(rules=other_rules)

    with answering(answerer):
        inside = model.invoke([HumanMessage("hi")])
    outside = model.invoke([HumanMessage("hi")])

    assert inside.tool_calls and outside.content == "a model that was asked for real"


EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _example(name: str, graph_name: str):
    from playground.apps.launch import AppChoice, load_app

    return load_app(AppChoice(config=str(EXAMPLES / name / "langgraph.json"),
                              graph_name=graph_name))


@pytest.mark.parametrize(("name", "graph_name", "turns", "settings"), [
    # async nodes, Runtime context, an async tool, a model streamed token by token
    ("react_agent", "agent", [{"messages": [HumanMessage("What is LangGraph?")]},
                              {"messages": [HumanMessage("And checkpoints?")]}],
     {"model": "stand-in/brief"}),
    # create_agent with HumanInTheLoopMiddleware: an interrupt() answered
    ("approval_agent", "assistant", [{"messages": [HumanMessage("Email Ada about the launch")]},
                                     Command(resume={"decisions": [{"type": "approve"}]})],
     None),
    # the long-term store, written by one node and read by the next
    ("memory_chat", "memory", [{"messages": [HumanMessage("Remember that I like tea")]},
                               {"messages": [HumanMessage("What do I like?")]}], None),
], ids=["react_agent", "approval_agent", "memory_chat"])
def test_a_rerun_of_an_example_on_unchanged_code_grows_an_identical_branch(
        tmp_path, name, graph_name, turns, settings):
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.memory import InMemoryStore

    from playground.runtime.driven import RunSettings, driven

    app = _example(name, graph_name)
    path = tmp_path / "checkpoints.sqlite"
    with SqliteSaver.from_conn_string(str(path)) as saver:
        graph = driven(app.graph(saver, store=InMemoryStore()),
                       RunSettings(context=settings) if settings else None)
        for turn in turns:
            graph.invoke(turn, config("t"))
        with closing(open_storage(str(path))) as storage:
            tree = load_tree(storage, "t")
            recording = record_branch(storage, tree, tree.path_to(tree.head)[0])

        outcome = rerun(graph, recording)

        assert outcome.status == "done", outcome.message
        assert outcome.replies_used == len(recording.replies) > 0
        with closing(open_storage(str(path))) as storage:
            tree = load_tree(storage, "t")
            comparison = compare_branches(storage, tree, recording.end, tree.head)
    assert len(comparison.pairs) >= 4  # the whole branch again, step by step
    assert comparison.identical, "\n".join(comparison.lines())


class Asked(TypedDict, total=False):
    a: str
    b: str


def _rerun_identical(database, graph, thread: str, **options) -> None:
    """Record the thread from its first checkpoint, re-run it, and check the new branch is the
    original step for step and value for value."""
    tree, recording = recorded(database, thread)
    outcome = rerun(graph, recording, **options)
    assert outcome.status == "done", outcome.message
    with closing(database.open()) as storage:
        tree = load_tree(storage, thread)
        comparison = compare_branches(storage, tree, recording.end, tree.head)
    assert comparison.identical, "\n".join(comparison.lines())


def test_two_questions_of_one_node_are_answered_again_in_the_order_asked(database):
    builder = StateGraph(Asked)
    builder.add_node("ask", lambda s: {"a": interrupt("first?"), "b": interrupt("second?")})
    builder.add_edge(START, "ask")
    graph = builder.compile(checkpointer=database.saver)
    graph.invoke({"a": ""}, config("two"))
    graph.invoke(Command(resume="yes"), config("two"))
    graph.invoke(Command(resume="no"), config("two"))
    assert graph.get_state(config("two")).values == {"a": "yes", "b": "no"}

    _rerun_identical(database, graph, "two")


def test_questions_asked_in_parallel_are_answered_by_their_interrupt_ids(database):
    builder = StateGraph(Asked)
    builder.add_node("left", lambda s: {"a": interrupt("left?")})
    builder.add_node("right", lambda s: {"b": interrupt("right?")})
    builder.add_edge(START, "left")
    builder.add_edge(START, "right")
    graph = builder.compile(checkpointer=database.saver)
    graph.invoke({"a": ""}, config("par"))
    waiting = graph.get_state(config("par")).interrupts
    answers = {i.id: ("L" if "left" in str(i.value) else "R") for i in waiting}
    graph.invoke(Command(resume=answers), config("par"))
    assert graph.get_state(config("par")).values == {"a": "L", "b": "R"}

    _rerun_identical(database, graph, "par")


def test_two_tool_results_that_say_the_same_are_both_recorded(database):
    def twice(messages, tools) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage("done")
        return AIMessage("", tool_calls=[
            {"name": "lookup_order", "args": {"order_id": "Z1"}, "id": "call-1"},
            {"name": "lookup_order", "args": {"order_id": "Z2"}, "id": "call-2"}])

    graph = support_graph(database.saver, rules=twice)
    graph.invoke({"messages": [HumanMessage("check both")]}, config("both"))
    _, recording = recorded(database, "both")

    assert [(t.args, t.tool_call_id) for t in recording.tool_results] == [
        ({"order_id": "Z1"}, "call-1"), ({"order_id": "Z2"}, "call-2")]


def test_a_tool_with_injected_state_is_answered_from_the_recording(database):
    asked: list = []

    @tool
    def count_messages(prefix: str, state: Annotated[dict, InjectedState]) -> str:
        """How many messages the conversation holds."""
        asked.append(prefix)
        return f"{prefix}{len(state['messages'])}"

    def rules(messages, tools) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(text_of(messages[-1]))
        return AIMessage("", tool_calls=[{"name": "count_messages", "args": {"prefix": "n="},
                                          "id": "call-n"}])

    model = StandInChatModel(rules=rules).bind_tools([count_messages])
    builder = StateGraph(Chat)
    builder.add_node("call_model", lambda s: {"messages": [model.invoke(s["messages"])]})
    builder.add_node("tools", ToolNode([count_messages]))
    builder.add_edge(START, "call_model")
    builder.add_conditional_edges("call_model", lambda s: "tools" if s["messages"][-1].tool_calls
                                  else END, ["tools", END])
    builder.add_edge("tools", "call_model")
    graph = builder.compile(checkpointer=database.saver)
    graph.invoke({"messages": [HumanMessage("how long is this chat?")]}, config("inj"))
    asked.clear()

    _rerun_identical(database, graph, "inj", tools_from_recording=True)
    assert asked == []  # answered from the recording, though ToolNode injected the state
