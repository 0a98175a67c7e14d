"""What the playground reads off a graph, whatever way its author declared it: a chat, its
context or configuration, the keys it computes itself, the fields its forms ask for."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from typing import Annotated, Literal, TypedDict

import pydantic
import pytest
from langchain_core.messages import AnyMessage
from langgraph.graph import START, MessagesState, StateGraph, add_messages
from langgraph.managed import IsLastStep, RemainingSteps

from playground.apps.app import App
from playground.apps.inputs import (
    InputRefused,
    context_fields,
    input_fields,
    parse_input,
    parse_settings,
)
from playground.apps.state_fields import EditRefused, state_fields, validate_edit


def _app(state, **kwargs) -> App:
    builder = StateGraph(state, **kwargs)
    builder.add_node("n", lambda s: {})
    builder.add_edge(START, "n")
    return App("t", "t.py:graph", builder.compile())


class QuickstartState(TypedDict):
    messages: Annotated[list, add_messages]
    summary: str


@dataclasses.dataclass
class DataclassState:
    messages: Annotated[Sequence[AnyMessage], add_messages] = dataclasses.field(
        default_factory=list)
    is_last_step: IsLastStep = dataclasses.field(default=False)
    remaining_steps: RemainingSteps = 25
    count: int = 0


class PydanticState(pydantic.BaseModel):
    messages: Annotated[list[AnyMessage], add_messages] = []
    mood: str = "calm"


class Counting(TypedDict):
    messages: Annotated[list[int], operator.add]


@pytest.mark.parametrize("state", [QuickstartState, MessagesState, DataclassState,
                                   PydanticState])
def test_messages_merged_by_add_messages_is_a_chat_whatever_the_annotation(state):
    assert _app(state).has_messages


def test_a_messages_key_with_another_reducer_is_no_chat():
    assert not _app(Counting).has_messages


def test_managed_values_are_neither_inputs_nor_keys_an_edit_may_set():
    app = _app(DataclassState)

    assert app.managed_keys == {"is_last_step", "remaining_steps"}
    assert [f.name for f in input_fields(app.template, app.input_schema, app.managed_keys)] \
        == ["messages", "count"]
    assert set(state_fields(app.template)) == {"messages", "count"}


def test_edits_of_a_dataclass_state_are_checked_against_its_fields():
    graph = _app(DataclassState).template

    with pytest.raises(EditRefused, match=r"wrong type for 'count': expected int"):
        validate_edit(graph, {"count": "three"})
    with pytest.raises(EditRefused, match=r"unknown key 'is_last_step'"):
        validate_edit(graph, {"is_last_step": True})


def test_edits_of_a_pydantic_state_are_checked_against_its_fields():
    graph = _app(PydanticState).template

    with pytest.raises(EditRefused, match=r"wrong type for 'mood': expected str"):
        validate_edit(graph, {"mood": 3})
    validate_edit(graph, {"mood": "sunny"})


@dataclasses.dataclass(kw_only=True)
class Context:
    model: str = "stand-in/brief"
    max_results: int = 3


class Configuration(pydantic.BaseModel):
    user_id: str = "ana"
    temperature: float = pydantic.Field(default=0.0, ge=0, le=2)

    @classmethod
    def from_runnable_config(cls, config=None):
        return cls(**((config or {}).get("configurable") or {}))


def test_a_context_schema_is_passed_as_context():
    app = _app(MessagesState, context_schema=Context)

    assert app.settings_schema == ("context", Context)
    fields = context_fields(app.template, Context)
    assert [(f.name, f.default) for f in fields] == [("model", "stand-in/brief"),
                                                     ("max_results", "3")]


def test_a_configuration_read_from_the_runnable_config_is_passed_as_configurable():
    app = _app(MessagesState, context_schema=Configuration)

    assert app.settings_schema == ("configurable", Configuration)


def test_settings_of_the_wrong_type_are_refused_in_one_line_naming_the_key():
    fields = context_fields(_app(MessagesState, context_schema=Context).template, Context)

    with pytest.raises(InputRefused, match=r"max_results: not valid JSON \(.*\); int is typed "
                       r"as JSON, like 3"):
        parse_settings(fields, {"model": "m", "max_results": "three"}, Context)
    with pytest.raises(InputRefused, match=r"wrong type for 'max_results': expected int"):
        parse_settings(fields, {"model": "m", "max_results": "2.5"}, Context)
    assert parse_settings(fields, {"model": "m", "max_results": "5"}, Context) == {
        "model": "m", "max_results": 5}


def test_a_pydantic_schemas_own_validation_refuses_before_anything_runs():
    fields = context_fields(_app(MessagesState, context_schema=Configuration).template,
                            Configuration)

    with pytest.raises(InputRefused, match=r"Configuration refused them: temperature: "):
        parse_settings(fields, {"user_id": "ana", "temperature": "5"}, Configuration)


def test_an_empty_json_field_falls_back_to_the_schemas_default():
    fields = context_fields(_app(MessagesState, context_schema=Context).template, Context)

    assert parse_settings(fields, {"model": "m", "max_results": ""}, Context) == {"model": "m"}


@dataclasses.dataclass(kw_only=True)
class Profile:
    user_id: str | None = None
    tone: Literal["plain", "warm"] = "plain"


class TicketInput(TypedDict, total=False):
    ticket_id: str | None
    note: str


def test_null_gives_none_to_an_optional_str_context_field_that_starts_at_null():
    fields = {f.name: f for f in context_fields(_app(MessagesState, context_schema=Profile)
                                                .template, Profile)}

    assert fields["user_id"].nullable and fields["user_id"].default is None  # "null" ticked
    assert not fields["tone"].nullable and fields["tone"].default == "plain"  # no quotes
    assert parse_settings(list(fields.values()), {"user_id": None, "tone": "warm"},
                          Profile) == {"user_id": None, "tone": "warm"}
    assert parse_settings(list(fields.values()), {"user_id": "", "tone": "plain"},
                          Profile)["user_id"] == ""  # an empty box is the empty string


def test_a_text_field_with_choices_refuses_another_word():
    fields = context_fields(_app(MessagesState, context_schema=Profile).template, Profile)

    with pytest.raises(InputRefused, match=r"wrong type for 'tone': expected 'plain' \| 'warm'"):
        parse_settings(fields, {"user_id": None, "tone": "cold"}, Profile)


def test_null_sends_none_as_input_while_an_empty_box_is_left_out():
    fields = {f.name: f for f in input_fields(_app(TicketInput).template, TicketInput)}

    assert fields["ticket_id"].nullable and fields["ticket_id"].default == ""  # not ticked
    assert not fields["note"].nullable
    assert parse_input(list(fields.values()), {"ticket_id": None, "note": "hi"}) == {
        "ticket_id": None, "note": "hi"}
    assert parse_input(list(fields.values()), {"ticket_id": "", "note": "hi"}) == {"note": "hi"}


class _JsonSchemaOnly:
    """A graph known by its JSON schema alone, as an Agent Server describes one."""

    @staticmethod
    def get_input_jsonschema():
        return {"properties": {
            "topic": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "rounds": {"type": "integer"}, "anything": {}}}


def test_a_json_schemas_optional_string_is_a_text_field_with_null():
    fields = {f.name: f for f in input_fields(_JsonSchemaOnly(), None)}

    assert (fields["topic"].kind, fields["topic"].is_text, fields["topic"].nullable) == (
        "str | None", True, True)
    assert not fields["rounds"].is_text and not fields["anything"].is_text
