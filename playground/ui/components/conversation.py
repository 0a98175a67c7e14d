"""A thread's messages drawn as a conversation: chat bubbles, tool calls beside their results.

Reads the engine's plain message records (``timetravel.messages``); nothing here decodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from playground.timetravel.decode import to_jsonable
from playground.timetravel.messages import ChatMessage, ChatTurn, turns
from playground.timetravel.signals import AnsweredQuestion
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


def _answer(answered: AnsweredQuestion) -> None:
    """An ``interrupt()`` question's answer, in the chat where it was given: it is no message
    of the state, yet the person gave it."""
    with st.chat_message("user"):
        st.caption(md_escape(answered.question, 300))
        st.markdown(md_escape(answered.answer, 2000))


def conversation(messages: list[ChatMessage], key: str, actions: Actions | None = None,
                 shown: int = SHOWN_TURNS,
                 answers: Mapping[int, Sequence[AnsweredQuestion]] | None = None) -> None:
    """Draw messages as chat bubbles, each tool result under the call it answers.

    Args:
        messages: the conversation.
        key: a prefix for widget keys, unique on the page.
        actions: draws a page's buttons inside each bubble.
        shown: how many of the newest turns to draw before "Show earlier turns".
        answers: answers to ``interrupt()`` questions, by how many messages the state held
            when the question waited; each is drawn after the turn holding that last message.
    """
    chat = turns(messages)
    hidden, first = max(len(chat) - shown, 0), 0
    if hidden and not st.toggle(f"Show {hidden:,} earlier turns", key=f"{key}-all"):
        chat, first = chat[hidden:], hidden
    calls = sum(len(turn.results) for turn in chat)
    st.caption(f"{_count(len(messages), 'message')} · {_count(calls, 'tool call')} shown with "
               "their results")
    # The stored value of every message, one click away (drawn only when asked: it is long).
    # On a line of its own: in a narrow column beside the count its label was cut short.
    raw = st.toggle("Raw values", key=f"{key}-raw", help="Each message as stored: the plain "
                    "data the safe decoder read, with the type it claims.")
    position = {id(message): n for n, message in enumerate(messages, 1)}
    # answers given among the hidden turns stay hidden with them
    start = position.get(id(chat[0].message), 1) - 1 if chat else 0
    waiting = {n: given for n, given in (answers or {}).items() if n > start}
    for index, turn in enumerate(chat, first):  # keys by position in the whole conversation
        _bubble(turn, f"{key}-{index}", actions, raw)
        held = max(position.get(id(m), 0) for m in (turn.message,
                                                     *(r for _, r in turn.results if r)))
        for count in sorted(n for n in waiting if n <= held):
            for answered in waiting.pop(count):
                _answer(answered)


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
