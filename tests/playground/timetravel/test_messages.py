"""Chat messages read from safely decoded state: roles, text, tool calls paired with results."""

from __future__ import annotations

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
)
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from playground.timetravel.decode import decode_typed
from playground.timetravel.diff import diff_states
from playground.timetravel.messages import as_message, conversations, describe, turns

SERDE = JsonPlusSerializer(allowed_msgpack_modules=None)


def _stored(value):
    """A value as a checkpoint database holds it, read back by the safe decoder."""
    return decode_typed(*SERDE.dumps_typed(value))


CHAT = [
    HumanMessage("Where is my order A17?", id="h1"),
    AIMessage("", id="a1", tool_calls=[{"name": "lookup_order", "args": {"order_id": "A17"},
                                        "id": "c1"}]),
    ToolMessage("shipped with DHL", tool_call_id="c1", name="lookup_order", id="t1"),
    AIMessage("Your order A17 has shipped", id="a2"),
]


def test_stored_messages_read_as_roles_text_and_tool_calls():
    messages = conversations({"messages": _stored(CHAT), "topic": "order"})["messages"]

    assert [m.role for m in messages] == ["human", "ai", "tool", "ai"]
    assert messages[1].tool_calls[0].line == 'lookup_order(order_id="A17")'
    assert messages[2].tool_call_id == "c1" and messages[3].text == "Your order A17 has shipped"


def test_each_tool_result_is_placed_beside_its_call():
    chat = turns(conversations({"messages": _stored(CHAT)})["messages"])

    assert [turn.message.role for turn in chat] == ["human", "ai", "ai"]
    call, result = chat[1].results[0]
    assert call.name == "lookup_order" and result.text == "shipped with DHL"


def test_content_blocks_chunks_and_remove_messages_are_read():
    stored = _stored([
        AIMessageChunk(content=[{"type": "text", "text": "Hello"}, {"type": "image_url",
                                                                     "image_url": "x"}], id="c"),
        RemoveMessage(id="h1"),
    ])

    chunk, remove = (as_message(value) for value in stored)

    assert chunk.role == "ai" and chunk.text == "Hello\n[image_url]"
    assert remove.role == "remove" and remove.lines() == ["remove message h1"]


def test_a_typed_value_that_only_looks_like_a_message_is_not_one():
    value = {"__type__": "myapp.Note", "type": "human", "content": "hi"}

    assert as_message(value) is None
    assert describe(value) == 'Note(type="human", content="hi")'


def test_diff_of_two_states_lists_message_changes():
    old = {"messages": _stored(CHAT[:1])}
    new = {"messages": _stored([HumanMessage("Where is my order A17? (edited)", id="h1"),
                                *CHAT[1:]])}

    lines = diff_states(old, new).lines()

    assert lines == [
        "~ human: Where is my order A17? -> human: Where is my order A17? (edited)",
        '+ tool call lookup_order(order_id="A17")',
        "+ tool lookup_order: shipped with DHL",
        "+ ai: Your order A17 has shipped",
    ]


def test_a_value_holding_double_quotes_reads_without_a_backslash():
    state = {"etag": '"v2"', "priority": "high",
             "outcome": 'priority is high at "v2"', "note": """it's "done\""""}

    shown = describe(state, 300)

    assert shown == ('{"etag": "v2", "priority": "high", '
                     """"outcome": 'priority is high at "v2"', "note": 'it''s "done"'}""")
    assert "\\" not in shown
