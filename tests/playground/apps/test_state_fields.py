"""Tests of what a graph's state accepts: its keys and hints, and an edit checked against them."""

from __future__ import annotations

import operator
import typing
from typing import Annotated, Any, Literal, TypedDict

import pytest
from langgraph.channels import LastValue
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.pregel import NodeBuilder, Pregel

from playground.agent.graph import build_agent
from playground.apps.state_fields import (
    EditRefused,
    allows_none,
    is_text_hint,
    state_fields,
    typed_as_json,
    validate_edit,
)
from tests.playground.timetravel.sample_graphs import loop_graph

AGENT_KEYS = "ticket_id, request, etag, priority, changes, outcome"


@pytest.fixture
def agent(saver):
    # No client: these tests only read the graph's schema and nodes.
    return build_agent(None, saver)


# --- state_fields -----------------------------------------------------------------------------


def test_state_fields_of_the_agent_are_its_schema_keys_and_hints(agent) -> None:
    fields = state_fields(agent)

    assert ", ".join(fields) == AGENT_KEYS
    assert fields["changes"] == dict | None


def test_state_fields_keep_the_reducer_annotation() -> None:
    fields = state_fields(loop_graph(None))

    assert fields == {"count": int, "log": Annotated[list, operator.add]}


def test_state_fields_without_schema_are_the_public_channels() -> None:
    node = NodeBuilder().subscribe_only("question").do(lambda q: q.upper()).write_to("answer")
    app = Pregel(
        nodes={"shout": node},
        channels={"question": LastValue(str), "answer": LastValue(str)},
        input_channels="question",
        output_channels="answer",
    )

    assert state_fields(app) == {"question": Any, "answer": Any}


# --- validate_edit ----------------------------------------------------------------------------


class Inner(TypedDict):
    owner: str


class Kinds(TypedDict, total=False):
    text: str
    number: int
    ratio: float
    flag: bool
    mapping: dict
    items: list
    words: list[str]
    scores: dict[str, int]
    maybe: int | None
    level: Literal["low", "high"]
    log: Annotated[list[str], operator.add]
    nested: Inner
    anything: Any
    thing: Exception


def kinds_graph():
    builder = StateGraph(Kinds)
    builder.add_node("step", lambda state: {})
    builder.add_edge(START, "step")
    return builder.compile()


@pytest.mark.parametrize(
    "values",
    [
        {"text": "x"},
        {"number": 3},
        {"ratio": 0.5},
        {"ratio": 2},
        {"flag": False},
        {"mapping": {"a": [1]}},
        {"items": [1, "a"]},
        {"words": ["a", "b"]},
        {"scores": {"a": 1}},
        {"maybe": None},
        {"maybe": 4},
        {"level": "high"},
        {"log": ["appended"]},
        {"nested": {"owner": "ann"}},
        {"anything": [None, 1]},
        {"thing": "coerced elsewhere"},
    ],
    ids=lambda values: next(iter(values)) + "=" + repr(next(iter(values.values()))),
)
def test_edit_that_fits_the_type_hints_is_accepted(values) -> None:
    validate_edit(kinds_graph(), values, None)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"text": 3}, "wrong type for 'text': expected str, got 3 (int)"),
        ({"number": "3"}, "wrong type for 'number': expected int, got '3' (str)"),
        ({"number": True}, "wrong type for 'number': expected int, got True (bool)"),
        ({"number": 1.5}, "wrong type for 'number': expected int, got 1.5 (float)"),
        ({"ratio": False}, "wrong type for 'ratio': expected float, got False (bool)"),
        ({"flag": 1}, "wrong type for 'flag': expected bool, got 1 (int)"),
        ({"mapping": []}, "wrong type for 'mapping': expected dict, got [] (list)"),
        ({"items": {}}, "wrong type for 'items': expected list, got {} (dict)"),
        ({"words": ["a", 2]}, "wrong type for 'words[1]': expected str, got 2 (int)"),
        ({"scores": {"a": "1"}}, "wrong type for 'scores.a': expected int, got '1' (str)"),
        ({"maybe": "4"}, "wrong type for 'maybe': expected int | None, got '4' (str)"),
        ({"text": None}, "wrong type for 'text': expected str, got None (None)"),
        ({"level": "urgent"}, "wrong type for 'level': expected 'low' | 'high', got 'urgent'"),
        ({"log": "appended"}, "wrong type for 'log': expected list[str], got 'appended' (str)"),
        ({"nested": "ann"}, "wrong type for 'nested': expected Inner, got 'ann' (str)"),
    ],
    ids=lambda case: repr(case) if isinstance(case, dict) else "",
)
def test_edit_with_wrong_type_is_refused(values, message) -> None:
    with pytest.raises(EditRefused) as refused:
        validate_edit(kinds_graph(), values, None)

    assert str(refused.value).startswith(message)


def test_every_wrong_value_is_named_in_one_message() -> None:
    with pytest.raises(EditRefused) as refused:
        validate_edit(kinds_graph(), {"text": 1, "flag": "yes"}, None)

    assert str(refused.value) == (
        "wrong type for 'text': expected str, got 1 (int); "
        "wrong type for 'flag': expected bool, got 'yes' (str)"
    )


def test_agent_edit_with_wrong_type_is_refused(agent) -> None:
    with pytest.raises(EditRefused, match=r"'changes': expected dict \| None, got \['high'\]"):
        validate_edit(agent, {"changes": ["high"]}, "plan")


def test_reducer_taking_one_message_accepts_a_single_value() -> None:
    # add_messages declares right: Messages | None, where one message (or a str) is allowed
    builder = StateGraph(MessagesState)
    builder.add_node("chat", lambda state: {})
    builder.add_edge(START, "chat")

    validate_edit(builder.compile(), {"messages": "hello"}, "chat")


def test_empty_edit_is_refused_naming_the_keys(agent) -> None:
    with pytest.raises(EditRefused) as refused:
        validate_edit(agent, {}, None)

    assert str(refused.value) == f"empty edit: set at least one of {AGENT_KEYS}"


def test_unknown_key_is_refused_naming_the_state_keys(agent) -> None:
    with pytest.raises(EditRefused) as refused:
        validate_edit(agent, {"etga": '"v2"'}, None)

    assert str(refused.value) == (
        f"unknown key 'etga': the state has {AGENT_KEYS} (did you mean 'etag'?)"
    )


def test_unknown_keys_are_all_named(agent) -> None:
    with pytest.raises(EditRefused) as refused:
        validate_edit(agent, {"zzz": 1, "prority": "high", "etag": None}, None)

    assert str(refused.value) == (
        f"unknown keys 'zzz', 'prority': the state has {AGENT_KEYS} "
        "(did you mean 'priority' for 'prority'?)"
    )


def test_edit_as_unknown_node_is_refused_naming_the_nodes(agent) -> None:
    with pytest.raises(EditRefused) as refused:
        validate_edit(agent, {"priority": "high"}, "plna")

    assert str(refused.value) == (
        "unknown node 'plna' for as_node: the graph has __start__, read, plan, write "
        "(or leave as_node empty to act as the last node that wrote)"
    )


@pytest.mark.parametrize("pseudo", ["__copy__", "__input__", "__end__"])
def test_edit_as_langgraph_pseudo_node_is_refused(agent, pseudo) -> None:
    # update_state takes these, but "__copy__" drops the values: none of them is an edit
    with pytest.raises(EditRefused, match=f"unknown node '{pseudo}' for as_node"):
        validate_edit(agent, {"priority": "high"}, pseudo)


def test_a_messages_field_is_typed_as_a_list_of_messages_not_a_dozen_classes():
    from langchain_core.messages import AnyMessage, HumanMessage

    from playground.apps.state_fields import describe_hint

    hints = typing.get_type_hints(MessagesState, include_extras=True)
    assert describe_hint(hints["messages"]) == "list[message]"
    assert describe_hint(list[AnyMessage]) == "list[message]"
    assert describe_hint(HumanMessage | None) == "HumanMessage | None"  # one class stays named


# --- how a form types a field -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("hint", "as_text", "nullable"),
    [
        (str, True, False),
        (str | None, True, True),
        (typing.Optional[str], True, True),  # noqa: UP045 (the spelling a schema may use)
        (Literal["low", "high"], True, False),
        (Annotated[str, "a tag"], True, False),
        (int, False, False),
        (dict | None, False, True),
        (list[str], False, False),
        (str | int, False, False),  # "3" could be either: typed as JSON
        (Literal["low", 1], False, False),
        (Annotated[list, operator.add], False, False),
        (Any, False, True),  # a type that says nothing stays JSON
    ],
)
def test_a_str_field_is_typed_as_text_and_none_is_offered_where_the_type_allows_it(
        hint, as_text, nullable) -> None:
    assert is_text_hint(hint) is as_text
    assert allows_none(hint) is nullable


def test_the_agents_text_fields_are_its_str_keys(agent) -> None:
    fields = state_fields(agent)

    assert [key for key, hint in fields.items() if is_text_hint(hint)] == [
        "ticket_id", "request", "etag", "priority", "outcome"]  # changes is a dict: JSON


@pytest.mark.parametrize(("hint", "said"), [
    (int, "int is typed as JSON, like 3"),
    (dict | None, 'dict | None is typed as JSON, like {"a": 1}'),
    (Any, 'this field takes JSON: a string in quotes, like "high"'),
])
def test_text_that_is_not_json_is_told_how_its_type_is_typed(hint, said) -> None:
    assert typed_as_json(hint) == said
