"""A thread's messages drawn as a conversation: chat bubbles, tool calls beside their results.

Reads the engine's plain message records (``timetravel.messages``); nothing here decodes.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from playground.timetravel.decode import to_jsonable
from playground.timetravel.messages import ChatMessage, ChatTurn, turns

# st.chat_message names "user" and "assistant" get Streamlit's own avatars.
_BUBBLES = {
    "human": ("user", None),
    "ai": ("assistant", None),
    "tool": ("tool", ":material/build:"),
    "system": ("system", ":material/settings:"),
    "chat": ("chat", ":material/chat:"),
    "remove": ("remove", ":material/delete:"),
}
SHOWN_TURNS = 60  # the newest turns drawn; older ones behind a toggle


def _raw(message: ChatMessage, key: str) -> None:
    with st.popover("Raw", icon=":material/data_object:"):
        st.json(to_jsonable(message.raw), expanded=True)
        st.caption(f"key {key}")


# What a page adds to a bubble (Edit and fork, Regenerate): called inside it with a unique key.
Actions = Callable[[ChatTurn, str], None]


def _bubble(turn: ChatTurn, key: str, actions: Actions | None) -> None:
    message = turn.message
    name, avatar = _BUBBLES.get(message.role, (message.role, None))
    with st.chat_message(name, avatar=avatar):
        if message.role == "tool":
            st.caption(f"tool result · {message.name or 'tool'}"
                       + (f" · {message.status}" if message.status == "error" else ""))
            st.code(message.text or "(empty)", language=None, wrap_lines=True)
        elif message.role == "system":
            st.caption("system prompt")
            st.markdown(message.text or "_(empty)_")
        elif message.role == "remove":
            st.caption(f"removes message `{message.id}`")
        elif message.text:
            st.markdown(message.text)
        for call, reply in turn.results:
            st.markdown(f":material/build: **tool call** `{call.line}`")
            if reply is None:
                st.caption("no result stored yet")
            else:
                st.code(reply.text or "(empty)", language=None, wrap_lines=True)
        raw_col, action_col = st.columns([1, 3]) if actions else (st.container(), None)
        with raw_col:
            _raw(message, key)
        if action_col is not None:
            with action_col:
                actions(turn, key)


def conversation(messages: list[ChatMessage], key: str, actions: Actions | None = None) -> None:
    """Draw messages as chat bubbles, each tool result under the call it answers.

    Args:
        messages: the conversation.
        key: a prefix for widget keys, unique on the page.
        actions: draws a page's buttons inside each bubble.
    """
    chat = turns(messages)
    hidden, first = max(len(chat) - SHOWN_TURNS, 0), 0
    if hidden and not st.toggle(f"Show {hidden:,} earlier turns", key=f"{key}-all"):
        chat, first = chat[hidden:], hidden
    calls = sum(len(turn.results) for turn in chat)
    st.caption(f"{len(messages):,} messages · {calls:,} tool calls shown with their results")
    for index, turn in enumerate(chat, first):  # keys by position in the whole conversation
        _bubble(turn, f"{key}-{index}", actions)
