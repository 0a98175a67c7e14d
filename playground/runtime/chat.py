"""Chat actions on a thread: edit a human message and fork, regenerate an AI message.

Both go back to the checkpoint just before the message entered the state and run on from
there, so the old conversation stays as one branch and the new one grows beside it (History
shows both). Found by walking the thread's current branch from its head: the checkpoint before
a message is the newest one on the branch that does not hold it yet.

Verified on LangGraph 1.2.24: ``update_state(config_of_input_checkpoint, {"messages": [m]},
as_node="__start__")`` replaces the input that checkpoint was about to apply, and ``next``
becomes the entry node; replaying the checkpoint before an AI message re-runs the node that
wrote it.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from playground.runtime.run import Breakpoints, GraphRun
from playground.runtime.time_travel import edit_state

START = "__start__"


class ChatActionRefused(ValueError):
    """A chat action that cannot be done on this thread; nothing was written."""


def _id(message: Any) -> Any:
    # A message object (a local run), or a plain dict (an Agent Server's state).
    return message.get("id") if isinstance(message, dict) else getattr(message, "id", None)


def _holds(snapshot: Any, message_id: str, key: str) -> bool:
    return any(_id(m) == message_id for m in snapshot.values.get(key) or ())


def checkpoint_before(graph: Any, thread_config: dict, message_id: str,
                      key: str = "messages") -> Any:
    """The snapshot on the current branch just before ``message_id`` entered ``key``.

    Raises:
        ChatActionRefused: the head does not hold the message (it is on another branch).
    """
    snapshot = graph.get_state(thread_config)
    if not _holds(snapshot, message_id, key):
        raise ChatActionRefused(
            f"message {message_id} is not in the thread's current conversation: pick its "
            "branch's head on History first"
        )
    while _holds(snapshot, message_id, key):
        parent = snapshot.parent_config
        if parent is None:
            raise ChatActionRefused(f"message {message_id} is in the thread's first checkpoint: "
                                    "there is nothing before it to fork from")
        snapshot = graph.get_state(parent)
    return snapshot


def edit_and_fork(graph: Any, thread_config: dict, message_id: str, text: str,
                  breakpoints: Breakpoints | None = None, key: str = "messages") -> GraphRun:
    """Fork the conversation with a human message's text replaced; returns the run to stream.

    Raises:
        ChatActionRefused: an empty text, or a message not on the current branch.
    """
    if not text.strip():
        raise ChatActionRefused("the edited message is empty: type what the user says")
    before = checkpoint_before(graph, thread_config, message_id, key)
    edited = edit_state(graph, before.config, {key: [HumanMessage(text)]}, as_node=START)
    return GraphRun(graph, edited, None, breakpoints or Breakpoints())


def regenerate(graph: Any, thread_config: dict, message_id: str,
               breakpoints: Breakpoints | None = None, key: str = "messages") -> GraphRun:
    """Run the node that wrote an AI message again, from the checkpoint before it.

    Raises:
        ChatActionRefused: a message not on the current branch.
    """
    before = checkpoint_before(graph, thread_config, message_id, key)
    return GraphRun(graph, before.config, None, breakpoints or Breakpoints())
