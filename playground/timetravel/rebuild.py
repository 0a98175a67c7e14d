"""A thread rebuilt from its values, for a place that gives values and not a saver's rows.

An Agent Server's API gives each checkpoint's values, its next nodes, its parent, its metadata
and its tasks' interrupts and errors, but neither the raw writes nor the channel versions its
saver stored. A copy of such a thread is rebuilt, and says so: each checkpoint is constructed
as LangGraph's own ``Checkpoint`` (format v4) and encoded with LangGraph's serializer, as its
savers encode one, so that LangGraph, reading the copy with a graph of the same nodes, gives
the same values and the same next nodes at every checkpoint:

- the values are the server's JSON; a message in it (a dict whose ``type`` is one of
  LangChain's message types, alone or in a list of messages) is stored as LangGraph stores a
  LangChain message, so a graph running on the copy reads messages (LangGraph's prebuilt
  ``ToolNode`` takes no dict). Only the class this table names for the type is written, and
  LangGraph's loader builds only its safe types from it;
- each next node is due as LangGraph finds a node due: its trigger channel (``branch:to:<node>``,
  ``__start__`` for the input) holds a value at a version no node has seen;
- channel versions are made up, newer along every branch (one step a checkpoint), a channel's
  kept from the parent while its value is unchanged;
- each question (``interrupt()``) and node error the history shows is written under its
  checkpoint as LangGraph writes one, under the server's task id, which is the id LangGraph
  gives the same task again (it hashes the checkpoint, step, node and triggers), so a paused
  copy resumes with ``Command(resume=...)``;
- every checkpoint's metadata says it was rebuilt (:data:`REBUILT_KEY`).

What the history does not hold is not invented: the answers runs resumed with, the writes of
nodes that finished (their effect is in the next checkpoint's values), subgraphs' own
checkpoints.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ormsgpack
from langgraph.checkpoint.base import WRITES_IDX_MAP
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from playground.timetravel.msgpack_frames import bin_of
from playground.timetravel.portable import (
    NIL,
    PortableCheckpoint,
    PortableThread,
    PortableWrite,
)
from playground.timetravel.records import state_values
from playground.timetravel.signals import ERROR, INTERRUPT
from playground.timetravel.storage import Storage, StoredCheckpoint, StoredWrite

# Where the metadata of every checkpoint of a copy rebuilt from values says so.
REBUILT_KEY = "playground_clone"
START = "__start__"
# The task path LangGraph stores with a node's writes (a PULL task: the node was due).
_PULL_PATH = "~__pregel_pull, {node}"
# LangGraph's serializer, strict (its safe types only); here it only ever encodes.
_SERDE = JsonPlusSerializer(allowed_msgpack_modules=None)
# LangChain's message classes by the ``type`` a message's JSON carries (its ``model_dump``).
_MESSAGES = {
    "human": ("langchain_core.messages.human", "HumanMessage"),
    "ai": ("langchain_core.messages.ai", "AIMessage"),
    "system": ("langchain_core.messages.system", "SystemMessage"),
    "tool": ("langchain_core.messages.tool", "ToolMessage"),
    "function": ("langchain_core.messages.function", "FunctionMessage"),
    "chat": ("langchain_core.messages.chat", "ChatMessage"),
    "remove": ("langchain_core.messages.modifier", "RemoveMessage"),
    "HumanMessageChunk": ("langchain_core.messages.human", "HumanMessageChunk"),
    "AIMessageChunk": ("langchain_core.messages.ai", "AIMessageChunk"),
    "SystemMessageChunk": ("langchain_core.messages.system", "SystemMessageChunk"),
    "ToolMessageChunk": ("langchain_core.messages.tool", "ToolMessageChunk"),
    "FunctionMessageChunk": ("langchain_core.messages.function", "FunctionMessageChunk"),
    "ChatMessageChunk": ("langchain_core.messages.chat", "ChatMessageChunk"),
}
_EXT_PYDANTIC_V2 = 5  # how LangGraph's serializer stores a pydantic model (a message)


def _message_class(value: Any) -> tuple[str, str] | None:
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    found = _MESSAGES.get(value["type"])
    return found if found and ("content" in value or value["type"] == "remove") else None


def _as_stored(value: Any) -> Any:
    """A value with its messages (a message, or a list of nothing but messages) as LangGraph's
    serializer stores a LangChain message: extension 5, the class and its fields."""
    def message(item: dict, named: tuple[str, str]) -> ormsgpack.Ext:
        return ormsgpack.Ext(_EXT_PYDANTIC_V2, ormsgpack.packb(
            (*named, item, "model_validate_json")))

    named = _message_class(value)
    if named:
        return message(value, named)
    if isinstance(value, list) and value:
        classes = [_message_class(item) for item in value]
        if all(classes):
            return [message(item, found) for item, found in zip(value, classes, strict=True)]
    return value


def _version(step: int) -> str:
    """A channel version in the form LangGraph's savers write (``get_next_version``)."""
    return f"{step:032}.{0.0:016}"


def _encoded(value: Any) -> bytes:
    """A value as msgpack bytes, encoded by LangGraph's own serializer (its messages as
    messages: :func:`_as_stored`)."""
    type_, data = _SERDE.dumps_typed(_as_stored(value))
    if type_ == "null":
        return NIL
    if type_ in ("bytes", "bytearray"):
        return bin_of(data)
    return data


def _in_order(items: dict[str, StoredCheckpoint]) -> list[str]:
    """Checkpoint ids with every parent before its children (then by id): versions grow
    along each branch."""
    children: dict[str | None, list[str]] = {}
    for cid, item in items.items():
        parent = item.parent_id if item.parent_id in items else None
        children.setdefault(parent, []).append(cid)
    order: list[str] = []
    stack = sorted(children.get(None, ()), reverse=True)
    while stack:
        cid = stack.pop()
        order.append(cid)
        stack.extend(sorted(children.get(cid, ()), reverse=True))
    return order


def rebuilt_thread(source: Storage, thread_id: str, keep: Iterable[str] | None,
                   origin: dict[str, Any]) -> PortableThread:
    """The root graph's checkpoints of a thread (or the kept ones) rebuilt from the values
    ``source`` gives (see the module's docstring).

    Args:
        source: a place that gives values (an Agent Server's reads).
        thread_id: the thread.
        keep: the checkpoint ids to rebuild (a branch, with all its ancestors); None for all.
        origin: what each checkpoint's metadata says under :data:`REBUILT_KEY`: where the
            copy came from and how it was made.
    """
    from langgraph.types import Interrupt  # only for a copy rebuilt from values

    wanted = None if keep is None else set(keep)
    items = {item.checkpoint_id: item for item in source.stored_checkpoints(thread_id)
             if wanted is None or item.checkpoint_id in wanted}
    due = {cid: detail.next for cid, detail in source.details(thread_id, items).items()}
    writes: dict[str, list[StoredWrite]] = {}
    for write in source.stored_writes(thread_id, "", list(items)):
        writes.setdefault(write.checkpoint_id, []).append(write)

    thread = PortableThread()
    versions_of: dict[str, dict[str, str]] = {}
    for step, cid in enumerate(_in_order(items), 1):
        item = items[cid]
        values = state_values(item.checkpoint)
        parent = items.get(item.parent_id) if item.parent_id else None
        before = state_values(parent.checkpoint) if parent is not None else {}
        inherited = versions_of.get(item.parent_id or "", {})
        new = _version(step)
        versions = {key: inherited[key] if key in inherited and key in before
                    and before[key] == value else new for key, value in values.items()}
        versions_of[cid] = dict(versions)
        encoded = {key: _encoded(value) for key, value in values.items()}
        for node in due.get(cid, ()):
            if node == START:
                # The input, as the history's __start__ task wrote it (its result).
                given = {w.channel: w.value for w in writes.get(cid, ())
                         if w.writer() == START and ":" not in w.channel}
                encoded[START], versions[START] = _encoded(given), new
            else:
                encoded[f"branch:to:{node}"], versions[f"branch:to:{node}"] = NIL, new
        frame = {"v": 4, "ts": item.checkpoint.get("ts") or "", "id": cid,
                 "channel_versions": versions, "versions_seen": {}, "updated_channels": None}
        metadata = {**item.metadata, REBUILT_KEY: origin}
        thread.checkpoints.append(PortableCheckpoint("", cid, item.parent_id if parent else None,
                                                     frame, encoded, metadata))
        for write in writes.get(cid, ()):
            if write.channel == INTERRUPT:
                asked = write.value if isinstance(write.value, list) else [write.value]
                value = [Interrupt(value=one.get("value"), id=str(one.get("id") or ""))
                         if isinstance(one, dict) else Interrupt(value=one) for one in asked]
            elif write.channel == ERROR:
                value = write.value
            else:
                continue  # a finished node's writes: their effect is the next values
            thread.writes.append(PortableWrite(
                "", cid, write.task_id, _PULL_PATH.format(node=write.writer()),
                WRITES_IDX_MAP[write.channel], write.channel, "msgpack", _encoded(value)))
    return thread
