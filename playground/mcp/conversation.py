"""``get_conversation``: the messages a thread's state holds at one checkpoint, each tool call
beside its result, as ``playground chat`` shows them.

The engine finds every state key holding a list of messages
(:func:`~playground.timetravel.messages.conversations`, usually just ``messages``) and pairs
each tool result with the call it answers (:func:`~playground.timetravel.messages.turns`). A
turn is a message, with its tool calls and their results inside it; turns page oldest first.
"""

from __future__ import annotations

from typing import Any

from playground.mcp.answers import Answer
from playground.mcp.arguments import checkpoint_in
from playground.mcp.bounds import (
    DATA_BUDGET,
    clip,
    cursor_for,
    cut,
    json_size,
    jsonable,
    position_of,
    take,
)
from playground.mcp.checkpoints import named
from playground.mcp.reads import thread_tree
from playground.mcp.threads import ID_CAP, signal_json
from playground.timetravel.messages import ChatMessage, ChatTurn, conversations, turns
from playground.timetravel.storage import Storage
from playground.timetravel.tree import TreeCache


def _result(reply: ChatMessage | None) -> dict[str, Any] | None:
    if reply is None:
        return None  # the call has no result yet (the run stopped, or waits, before it)
    return {"text": cut(reply.text), "status": reply.status, "message_id": reply.id,
            "name": reply.name}


def turn_json(channel: str, index: int, turn: ChatTurn) -> dict[str, Any]:
    """One turn: the message (role, text, id, name) and each tool call it made, with the
    result that answers it (None when there is none yet)."""
    message = turn.message
    return {
        "channel": channel, "index": index, "role": message.role,
        "text": cut(message.text), "id": message.id, "name": message.name,
        "tool_call_id": message.tool_call_id, "status": message.status,
        "tool_calls": [{"id": call.id, "name": call.name, "args": cut(jsonable(call.args)),
                        "result": _result(reply)}
                       for call, reply in turn.results],
    }


def get_conversation(storage: Storage, *, thread_id: str, checkpoint: str | None = None,
                     limit: int, cursor: str | None = None, trees: TreeCache | None = None
                     ) -> Answer:
    """The conversation at a checkpoint (the head by default), oldest turn first, a page at a
    time; the questions, answers and errors stored under the checkpoint beside it.

    Raises:
        UnknownThread: no such thread.
        ValueError: a checkpoint that no (or more than one) checkpoint matches, or a cursor
            this tool did not give.
    """
    start = position_of(cursor, "get_conversation")
    tree = thread_tree(storage, thread_id, trees)
    at = checkpoint_in(tree, checkpoint)
    found = conversations(storage.values(thread_id, at))
    every = [(channel, index, turn) for channel, messages in found.items()
             for index, turn in enumerate(turns(messages))]
    answer: dict[str, Any] = {
        "thread_id": cut(thread_id, ID_CAP), **named(tree, at),
        "channels": {channel: len(messages) for channel, messages in found.items()},
        "turns_total": len(every),
        "signals": [signal_json(signal) for signal in tree.signals.get(at, ())],
    }
    if start > len(every):
        raise ValueError(f"the cursor goes past the conversation's {len(every)} turns: start "
                         "again without a cursor")
    room = DATA_BUDGET - json_size(answer) - 256
    page, _ = take((turn_json(*item) for item in every[start:]), limit, room)
    end = start + len(page)
    answer["turns"] = page
    answer["next_cursor"] = cursor_for("get_conversation", end) if end < len(every) else None
    said = (f"thread {clip(thread_id)} at #{tree.ordinal(at)}: "
            + (f"{sum(len(m) for m in found.values())} messages in "
               f"{', '.join(clip(c, 40) for c in found)}; turns {start + 1} to {end} of "
               f"{len(every)}" if found else "no messages in this checkpoint's state")
            + (f"; more with cursor={answer['next_cursor']}" if answer["next_cursor"] else ""))
    for signal in tree.signals.get(at, ()):
        said += f"; {clip(signal.line, 200)}"
    return Answer(said, answer)
