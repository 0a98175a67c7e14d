"""What a branch of a thread received and answered, read back as a recording to run again.

A thread that went wrong is a recording of everything that made it: the inputs a person typed,
the answers they gave to ``interrupt()`` questions, each reply the chat model gave and each
result a tool returned. Read from the branch's checkpoints and pending writes (through the safe
decoder, as plain data), that is enough to run the same thread again on changed code without a
network and without a person, and to see where the new run departs from the old one.

Everything here is plain data (JSON-ready), so a recording can live inside an exported test
file. Messages keep LangChain's shape as plain dicts (``role``, ``content``, ``id``,
``tool_calls``, ``tool_call_id``, ``name``); :mod:`playground.runtime.answers` turns them back
into LangChain messages when a run needs them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.timetravel.decode import to_jsonable
from playground.timetravel.messages import ChatMessage, ToolCall, as_message, message_list
from playground.timetravel.records import (
    UNKNOWN_NODE,
    is_internal_channel,
    step_nodes,
    written_by,
)
from playground.timetravel.signals import INTERRUPT, RESUME
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, ensure_details

_START = "__start__"


@dataclass(frozen=True)
class Event:
    """Something a person gave the branch: a new input, or the answer to a question.

    Attributes:
        kind: ``input`` (a new run's input) or ``resume`` (an ``interrupt()`` answer).
        value: the input (state keys to values, messages as plain dicts) or the answer.
        node: for an answer, the node whose question it answered (None when the stored write
            does not say: the answer then goes to whichever question waits).
    """

    kind: str
    value: Any
    node: str | None = None


@dataclass(frozen=True)
class ToolResult:
    """One tool call and what it returned, as the branch recorded them."""

    name: str
    args: Any
    content: Any
    tool_call_id: str | None = None


@dataclass(frozen=True)
class Recording:
    """A branch's inputs, answers, model replies and tool results, in the order they came.

    Attributes:
        thread_id: the thread.
        start: the checkpoint the branch is recorded from (a re-run starts there); empty for
            a branch recorded from its thread's first input (a re-run starts a new thread).
        end: the checkpoint it ends at.
        events: inputs and answers after ``start``, in order.
        replies: the chat model's replies (AI messages as plain dicts), in order.
        tool_results: what each tool call returned, in order.
        nodes: the nodes the branch ran after ``start``, in order (one entry per step).
        continues: how many times the branch ran each node: a re-run paused before a static
            breakpoint goes on past it as many times as the original ran that node.
    """

    thread_id: str
    start: str
    end: str
    events: tuple[Event, ...] = ()
    replies: tuple[dict, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    nodes: tuple[tuple[str, ...], ...] = ()
    continues: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The recording as plain JSON data (for an exported test)."""
        return {
            "thread_id": self.thread_id, "start": self.start, "end": self.end,
            "events": [{"kind": e.kind, "value": to_jsonable(e.value), "node": e.node}
                       for e in self.events],
            "replies": [to_jsonable(r) for r in self.replies],
            "tool_results": [{"name": t.name, "args": to_jsonable(t.args),
                              "content": to_jsonable(t.content),
                              "tool_call_id": t.tool_call_id} for t in self.tool_results],
            "nodes": [list(n) for n in self.nodes],
            "continues": dict(self.continues),
        }

    @classmethod
    def from_json(cls, data: Mapping) -> Recording:
        """A recording written by :meth:`to_json`."""
        return cls(
            thread_id=str(data.get("thread_id", "")), start=str(data.get("start", "")),
            end=str(data.get("end", "")),
            events=tuple(Event(str(e["kind"]), e.get("value"), e.get("node"))
                         for e in data.get("events", ())),
            replies=tuple(dict(r) for r in data.get("replies", ())),
            tool_results=tuple(ToolResult(str(t["name"]), t.get("args"), t.get("content"),
                                          t.get("tool_call_id"))
                               for t in data.get("tool_results", ())),
            nodes=tuple(tuple(n) for n in data.get("nodes", ())),
            continues={str(k): int(v) for k, v in dict(data.get("continues", {})).items()},
        )


def record_branch(storage: Storage, tree: CheckpointTree, start: str | None,
                  end: str | None = None) -> Recording:
    """Read what the branch from ``start`` to ``end`` received and answered.

    Args:
        storage: the database the tree was read from.
        tree: the thread's tree.
        start: where a re-run would start (its first step is the one after it); None records
            the branch from the thread's first input (what an exported test replays).
        end: where the branch ends; by default the tip of the branch ``start`` is drawn on
            (:meth:`~playground.timetravel.tree.CheckpointTree.tip_along`).

    Raises:
        ValueError: ``end`` does not descend from ``start``, the branch after ``start`` holds
            a state edit, or (from the first input) the thread does not begin with an input.
    """
    end = end or tree.tip_along(start or tree.path_to(tree.head)[0])
    path = tree.path_to(end)
    if start is None:
        if tree.nodes[path[0]].source != "input":
            raise ValueError(f"thread {tree.thread_id!r} does not begin with an input (its "
                             f"first checkpoint was made by {tree.nodes[path[0]].source}): "
                             "there is nothing to replay it from")
        after = list(path)
    elif start not in path:
        raise ValueError(f"checkpoint {end} is not on a branch that passes {start}")
    else:
        after = list(path[path.index(start) + 1:])
    ensure_details(storage, tree, [*([start] if start else []), *after])
    parents = [start, *after[:-1]]
    writes = storage.pending_writes_of(tree.thread_id, [p for p in parents if p],
                                       tree.checkpoint_ns)
    events: list[Event] = []
    replies: list[dict] = []
    results: list[tuple[str | None, Any, str | None]] = []
    nodes: list[tuple[str, ...]] = []
    continues: dict[str, int] = {}
    # A node may write back messages the state already holds (a subgraph returns its whole
    # state, messages included; a node may rewrite one in place): only a message the branch has
    # not held before is a model's reply or a tool's result.
    seen: set = set()
    if start:
        for value in storage.values(tree.thread_id, start, tree.checkpoint_ns).values():
            seen.update(_key(message) for message in _messages(value))
    for parent, checkpoint_id in zip(parents, after, strict=True):
        record, detail = tree.nodes[checkpoint_id], tree.details.get(checkpoint_id)
        stored = writes.get(parent, []) if parent else []
        events.extend(_answers(stored))
        if record.source == "input":
            given = {w.channel: w.value for w in writes.get(checkpoint_id, ())
                     if w.node == _START and not is_internal_channel(w.channel)}
            for value in given.values():  # the input's own messages are no model's reply
                seen.update(_key(message) for message in _messages(value))
            events.append(Event("input", given))
            continue
        if record.source == "update":
            # An edit is no input, answer or reply: where it happened in the run cannot be
            # played again, so the branch is refused rather than replayed without it.
            number = tree.ordinal(checkpoint_id)
            if start is None:
                raise ValueError(f"the branch holds a state edit (update_state) at #{number}: "
                                 "a test replays a branch from its first input, and an edit "
                                 "is no input to play again; export a branch without edits")
            raise ValueError(f"the branch holds a state edit (update_state) at #{number}: a "
                             "re-run plays inputs, answers and model replies, not edits; start "
                             f"from #{number} or a checkpoint after it")
        writers = detail.writers if detail else ()
        if not writers:
            continue  # a replay's copy: no node ran, nothing was asked or replied
        nodes.append(step_nodes(writers))
        for node in writers:
            continues[node] = continues.get(node, 0) + 1
        for write in stored:
            if not written_by(write.node, writers) or write.node == _START:
                continue
            for message in _messages(write.value):
                if _key(message) in seen:
                    continue
                seen.add(_key(message))
                if message.role == "ai":
                    replies.append(_plain(message))
                elif message.role == "tool":
                    results.append((message.tool_call_id, message.raw.get("content"),
                                    message.name))
    calls = {call.id: call for reply in replies for call in _calls(reply)}
    tool_results = tuple(
        ToolResult(calls[cid].name if cid in calls else (name or "?"),
                   calls[cid].args if cid in calls else None, content, cid)
        for cid, content, name in results)
    return Recording(tree.thread_id, start or "", end, tuple(events), tuple(replies), tool_results,
                     tuple(nodes), continues)


def _answers(stored: list) -> list[Event]:
    """The ``interrupt()`` answers that took a waiting checkpoint on, in the order given.

    What LangGraph stores under the checkpoint that waited (seen on 1.2.24): the latest resume
    command under no node, and per node that asked the list of answers it consumed, which
    for a node that asks twice (two ``interrupt()`` calls) holds all but the last. So a node's
    answers are its list, then the command when it is not the list's last; a command that maps
    interrupt ids to answers (questions asked in parallel) is split by the node that asked
    each.
    """
    asked: dict[str, str] = {}
    for write in stored:
        if write.channel == INTERRUPT:
            for item in write.value if isinstance(write.value, list) else [write.value]:
                if isinstance(item, dict) and isinstance(item.get("id"), str):
                    asked[item["id"]] = write.node
    events = [Event("resume", value, write.node) for write in stored
              if write.channel == RESUME and write.node not in ("", UNKNOWN_NODE)
              and isinstance(write.value, list) for value in write.value]
    commands = [w.value for w in stored if w.channel == RESUME
                and w.node in ("", UNKNOWN_NODE)]
    if commands:
        command = commands[-1]
        if isinstance(command, dict) and command and all(key in asked for key in command):
            given = [Event("resume", value, asked[key]) for key, value in command.items()]
            events += [e for e in given if not _listed(events, e)]
        elif not (events and events[-1].value == command):
            # (a node answered twice with the same value leaves one in its list and the
            # command equal to it: that second answer cannot be told from the first)
            events.append(Event("resume", command, events[-1].node if events else None))
    return events


def _listed(events: list[Event], event: Event) -> bool:
    return any(e.node == event.node and e.value == event.value for e in events)


def _key(message: ChatMessage) -> Any:
    """What makes a message the same one again when a node writes it back: its id; a tool
    result's call id; else what it says, with its tool calls' ids."""
    if message.role == "tool" and message.tool_call_id:
        return ("tool", message.tool_call_id)
    if message.id:
        return message.id
    return (message.said(), tuple(call.id for call in message.tool_calls))


def _messages(value: Any) -> list[ChatMessage]:
    found = message_list(value)
    if found is not None:
        return found
    single = as_message(value)
    return [single] if single is not None else []


def _plain(message: ChatMessage) -> dict:
    """An AI message as plain LangChain-shaped data."""
    return {"role": "ai", "content": message.raw.get("content", message.text),
            "id": message.id,
            "tool_calls": [{"name": c.name, "args": c.args, "id": c.id}
                           for c in message.tool_calls]}


def _calls(reply: dict) -> list[ToolCall]:
    return [ToolCall(c.get("id"), c.get("name", "?"), c.get("args"))
            for c in reply.get("tool_calls") or ()]
