"""A thread's messages drawn as a conversation: chat bubbles, tool calls beside their results.

Reads the engine's plain message records (``timetravel.messages``); nothing here decodes.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from playground.timetravel.decode import to_jsonable
from playground.timetravel.messages import ChatMessage, ChatTurn, turns
from playground.ui.components.text_block import text_block
from playground.ui.markup import md_escape

# st.chat_message names "user" and "assistant" get Streamlit's own avatars.
_BUBBLES = {
    "human": ("user", None),
    "ai": ("assistant", None),
    "tool": ("tool", ":material/build:"),
    "system": ("system", ":material/settings:"),
    "chat": ("chat", ":material/chat:"),
    "remove": ("remove", ":material/delete:"),
}
# The newest turns drawn; older ones behind a toggle. Each bubble costs a few milliseconds of
# script time, so a page rerun on a long chat stays near a short chat's (bench/graph_run.py).
SHOWN_TURNS = 20


# What a page adds to a bubble (Edit and fork, Regenerate): called inside it with a unique key.
Actions = Callable[[ChatTurn, str], None]


def _bubble(turn: ChatTurn, key: str, actions: Actions | None, raw: bool) -> None:
    message = turn.message
    name, avatar = _BUBBLES.get(message.role, (message.role, None))
    with st.chat_message(name, avatar=avatar):
        # Every text of a message is the database's (or a model's): shown escaped, never as
        # markdown, so an image in a message never makes the viewer's browser fetch a URL.
        if message.role == "tool":
            st.caption(f"tool result · {md_escape(message.name or 'tool', 200)}"
                       + (" · error" if message.status == "error" else ""))
            text_block(message.text or "(empty)")
        elif message.role == "system":
            st.caption("system prompt")
            st.markdown(md_escape(message.text) if message.text else "_(empty)_")
        elif message.role == "remove":
            st.caption(f"removes message {md_escape(message.id, 200)}")
        elif message.text:
            st.markdown(md_escape(message.text))
        for call, reply in turn.results:
            st.markdown(f":material/build: **tool call** {md_escape(call.line, 2000)}")
            if reply is None:
                st.caption("no result stored yet")
            else:
                text_block(reply.text or "(empty)")
        if raw:
            st.json(to_jsonable(message.raw), expanded=False)
        if actions is not None:
            actions(turn, key)


def conversation(messages: list[ChatMessage], key: str, actions: Actions | None = None,
                 shown: int = SHOWN_TURNS) -> None:
    """Draw messages as chat bubbles, each tool result under the call it answers.

    Args:
        messages: the conversation.
        key: a prefix for widget keys, unique on the page.
        actions: draws a page's buttons inside each bubble.
        shown: how many of the newest turns to draw before "Show earlier turns".
    """
    chat = turns(messages)
    hidden, first = max(len(chat) - shown, 0), 0
    if hidden and not st.toggle(f"Show {hidden:,} earlier turns", key=f"{key}-all"):
        chat, first = chat[hidden:], hidden
    calls = sum(len(turn.results) for turn in chat)
    st.caption(f"{len(messages):,} messages · {calls:,} tool calls shown with their results")
    # The stored value of every message, one click away (drawn only when asked: it is long).
    # On a line of its own: in a narrow column beside the count its label was cut short.
    raw = st.toggle("Raw values", key=f"{key}-raw", help="Each message as stored: the plain "
                    "data the safe decoder read, with the type it claims.")
    for index, turn in enumerate(chat, first):  # keys by position in the whole conversation
        _bubble(turn, f"{key}-{index}", actions, raw)
