"""Two branches compared step by step: an edited message, a changed route, an extra loop, a
replay on unchanged code; on every backend."""

from __future__ import annotations

from contextlib import closing
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from playground.standin import StandInChatModel, text_of
from playground.timetravel.compare import (
    CompareRefused,
    compare_branches,
    newest_branches,
)
from playground.timetravel.tree import load_tree
from tests.playground.timetravel.sample_graphs import config, make_forked, pause_graph


class Chat(TypedDict):
    messages: Annotated[list, add_messages]


def echo(messages, tools) -> AIMessage:
    return AIMessage(f"you said: {text_of(messages[-1])}")


def chat_graph(saver):
    """One model node answering the last human message, as a template's call_model does."""
    model = StandInChatModel(rules=echo)

    def call_model(state: Chat) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(Chat)
    builder.add_node("call_model", call_model)
    builder.add_edge(START, "call_model")
    builder.add_edge("call_model", END)
    return builder.compile(checkpointer=saver)


class Routed(TypedDict, total=False):
    size: int
    path: Annotated[list, lambda a, b: a + b]


def routed_graph(saver, threshold: int):
    """triage -> (small | large) -> finish; ``threshold`` decides the route."""
    builder = StateGraph(Routed)
    builder.add_node("triage", lambda s: {"path": ["triage"]})
    builder.add_node("small", lambda s: {"path": ["small"]})
    builder.add_node("large", lambda s: {"path": ["large"]})
    builder.add_node("finish", lambda s: {"path": ["finish"]})
    builder.add_edge(START, "triage")
    builder.add_conditional_edges("triage", lambda s: "large" if s["size"] > threshold
                                  else "small", ["small", "large"])
    builder.add_edge("small", "finish")
    builder.add_edge("large", "finish")
    builder.add_edge("finish", END)
    return builder.compile(checkpointer=saver)


class Counted(TypedDict, total=False):
    count: int
    limit: int


def loop_graph(saver):
    builder = StateGraph(Counted)
    builder.add_node("bump", lambda s: {"count": s.get("count", 0) + 1})
    builder.add_node("done", lambda s: {})
    builder.add_edge(START, "bump")
    builder.add_conditional_edges("bump", lambda s: "bump" if s["count"] < s["limit"] else
                                  "done", ["bump", "done"])
    builder.add_edge("done", END)
    return builder.compile(checkpointer=saver)


def compared(database, thread_id: str, left: str | None = None, right: str | None = None):
    with closing(database.open()) as storage:
        tree = load_tree(storage, thread_id)
        if left is None:
            left, right = newest_branches(tree)
        return tree, compare_branches(storage, tree, left, right)


def test_an_edited_message_fork_differs_first_at_the_edit_then_at_the_reply(database):
    graph = chat_graph(database.saver)
    graph.invoke({"messages": [HumanMessage("where is A17?", id="h1")]}, config("c"))
    before_reply = next(s for s in graph.get_state_history(config("c"))
                        if s.next == ("call_model",))
    edited = graph.update_state(before_reply.config,
                                {"messages": [HumanMessage("where is B22?", id="h1")]})
    graph.invoke(None, edited)

    _, comparison = compared(database, "c")

    assert comparison.difference_line() == (
        "first difference at step 1 after the common ancestor: only the right branch runs "
        "update_state")
    edit, reply = comparison.pairs[-2:]
    assert edit.left is None and edit.right.writes[0][0] == "messages"
    assert reply.left.label == reply.right.label == "call_model" and not reply.same
    assert reply.note == "the paths meet again"
    # the final states, message by message: the human text and the answer changed, by id
    changes = comparison.final.messages["messages"]
    assert any("human: where is A17?" in line and "where is B22?" in line for line in changes)
    assert any("you said: where is B22?" in line for line in changes)


def test_a_changed_route_parts_at_the_router_and_meets_again_at_finish(database):
    routed_graph(database.saver, threshold=10).invoke({"size": 5, "path": []}, config("r"))
    # the fix: the threshold moved, and the thread re-runs from its input on the new code
    new = routed_graph(database.saver, threshold=3)
    history = list(new.get_state_history(config("r")))
    after_input = next(s for s in history if s.next == ("triage",))
    new.invoke(None, after_input.config)

    _, comparison = compared(database, "r")

    left = [p.left.label if p.left else None for p in comparison.pairs]
    right = [p.right.label if p.right else None for p in comparison.pairs]
    assert left == ["triage", "small", "finish"] and right == ["triage", "large", "finish"]
    assert comparison.first_difference == 1
    assert comparison.difference_line() == (
        "first difference at step 2 after the common ancestor: the left branch runs small, "
        "the right runs large")
    assert [p.note for p in comparison.pairs] == [None, "the paths part", "the paths meet again"]
    assert comparison.pairs[0].same and comparison.pairs[2].same  # finish wrote the same
    assert comparison.final.changed["path[1]"] == ("small", "large")


def test_an_extra_loop_stands_alone_and_the_rest_aligns(database):
    graph = loop_graph(database.saver)
    graph.invoke({"count": 0, "limit": 2}, config("l"))
    first = next(s for s in graph.get_state_history(config("l")) if s.next == ("bump",)
                 and s.values.get("count") == 0)
    graph.invoke(None, graph.update_state(first.config, {"limit": 4}))

    _, comparison = compared(database, "l")

    labels = [(p.left.label if p.left else "-", p.right.label if p.right else "-")
              for p in comparison.pairs]
    assert labels == [("-", "update_state"), ("bump", "bump"), ("bump", "bump"),
                      ("-", "bump"), ("-", "bump"), ("done", "done")]
    assert comparison.pairs[3].note == "the paths part"
    assert comparison.pairs[5].note == "the paths meet again"
    assert comparison.final.changed["count"] == (2, 4)


def test_a_replay_on_unchanged_code_is_the_same_up_to_where_it_waits(database):
    graph = pause_graph(database.saver)
    graph.invoke({"ticket": "t7"}, config("p"))
    graph.invoke(None, config("p"))
    after_read = next(s for s in graph.get_state_history(config("p")) if s.next == ("plan",))
    graph.invoke(None, after_read.config)  # the replay pauses before write again
    head = graph.get_state(config("p")).config["configurable"]["checkpoint_id"]
    finished = next(s for s in graph.get_state_history(config("p")) if s.next == ()
                    ).config["configurable"]["checkpoint_id"]

    _, comparison = compared(database, "p", finished, head)

    # plan on both (the replay's starting copy is no step); the replay waits before write
    assert [p.same for p in comparison.pairs] == [True, False]
    assert comparison.pairs[1].right is None and comparison.right_next == ("write",)
    assert comparison.difference_line().endswith("only the left branch runs write")


def test_the_default_pair_is_the_heads_of_the_two_newest_branches(database):
    make_forked(database.saver, "f")

    with closing(database.open()) as storage:
        tree = load_tree(storage, "f")
    left, right = newest_branches(tree)

    tips = sorted(tree.leaves, key=tree.ordinal)
    assert (left, right) == (tips[-2], tips[-1])


def test_a_single_branch_or_an_unknown_checkpoint_is_refused(database):
    pause_graph(database.saver).invoke({"ticket": "t7"}, config("one"))

    with closing(database.open()) as storage:
        tree = load_tree(storage, "one")
        with pytest.raises(CompareRefused, match="has one branch"):
            newest_branches(tree)
        with pytest.raises(CompareRefused, match="no checkpoint 'nope'"):
            compare_branches(storage, tree, tree.head, "nope")


def test_the_comparison_as_text_and_json_says_the_same(database):
    make_forked(database.saver, "f")

    _, comparison = compared(database, "f")
    text, data = "\n".join(comparison.lines()), comparison.to_json()

    assert comparison.difference_line() in text and data["first_difference_line"] in text
    assert data["first_difference"] == comparison.first_difference
    assert len(data["steps"]) == len(comparison.pairs)
    assert data["final"] == comparison.final.lines()
