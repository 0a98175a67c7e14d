"""State kept on LangGraph's ``DeltaChannel``, rebuilt the way LangGraph rebuilds it.

A channel declared ``Annotated[list, DeltaChannel(reducer, snapshot_frequency=N)]`` (LangGraph
1.2, beta) stores its whole value only every N updates, as a ``_DeltaSnapshot`` in the
checkpoint's ``channel_values``. At every other checkpoint the channel has a version but no
stored value, and LangGraph loads it by walking the parent chain to the nearest checkpoint that
holds a value (the *seed*; the empty start when none does), taking every write to the channel
stored under the checkpoints walked (oldest first; within one checkpoint in LangGraph's
``writes_sort_key`` order: task path, task id, index) and folding them through the channel's
reducer: ``reducer(seed, [write, ...])``.

The engine does the same walk on the rows every place gives (:meth:`Storage.state`), and folds
without running anything the data names:

- **LangGraph's messages reducer** (``_messages_delta_reducer``: add by id, replace on the same
  id, ``RemoveMessage``, remove-all) is applied here, on the safely decoded messages. A file does
  not name its reducer, so it is applied where the seed and every write are messages: the only
  reducer LangGraph ships for a channel of messages, and the one its docs give for chats.
- **The graph's own reducer**, when the person who started the playground named the graph
  (``Storage.reducers``, set by the edge that loaded it): called as LangGraph calls it, on the
  decoded plain values.
- **Anything else** (a reducer only the writer's app knows) is shown as it is stored: the
  snapshot, the checkpoint that holds it, and the writes since, in order, labelled as writes
  the app's reducer folds (:func:`unfolded`), with what to do to see the value it makes in the
  words of the surface showing it (:data:`TO_FOLD`: a page, a command, the MCP server). Never
  empty, never a stored marker type.

Pure: nothing here imports LangGraph or reads a database. See docs/architecture.md,
"DeltaChannel".
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playground.timetravel.decode import DELTA_SNAPSHOT_TYPE, TYPE_KEY, type_name
from playground.timetravel.messages import as_message, describe

# The reducer name an edge gives for LangGraph's own ``_messages_delta_reducer`` (the engine
# folds it itself, on decoded messages, rather than calling LangGraph's on plain dicts).
MESSAGES_REDUCER = "messages"
# What LangGraph's messages reducer reads as "remove every message before this one".
REMOVE_ALL_MESSAGES = "__remove_all__"
# How a rebuilt value was folded, as a person reads it.
FOLDED_BY_MESSAGES = "rebuilt as LangGraph's messages reducer folds them"
FOLDED_BY_GRAPH = "rebuilt with the graph's own reducer"
NOTHING_TO_FOLD = "no write since to fold"
# Where a value is shown: each surface says what works there to see the value an app's own
# reducer makes (a page's storages say the page's words unless their edge says otherwise).
ON_PAGE, ON_CLI, ON_MCP = "page", "cli", "mcp"
TO_FOLD = {
    ON_PAGE: "restart the playground with the app's graph (playground run ... --graph SPEC, or "
             "--config langgraph.json) to see the value it makes",
    ON_CLI: "add --graph SPEC (or --config langgraph.json) to this command to see the value it "
            "makes",
    ON_MCP: "start the server with the app's graph (playground mcp PLACE --graph SPEC, or "
            "--config langgraph.json) to see the value it makes",
}
NOT_FOLDED_BY = "the app's own reducer folds these writes"
# The keys of an unfolded value (plain data: pages, diffs and --json read it as any mapping).
UNFOLDED_SNAPSHOT = "snapshot"
UNFOLDED_AT = "snapshot_checkpoint"
UNFOLDED_WRITES = "writes since"
UNFOLDED_NOTE = "folded by"

Reducer = Callable[[Any, list], Any] | str


@dataclass(frozen=True)
class DeltaWrite:
    """One stored write to a DeltaChannel, as the rebuild replays it.

    Attributes:
        checkpoint_id: the checkpoint it is stored under (the step that made it ran from there).
        node: the node that wrote it ("" where nothing names it).
        value: the written value, plain data from the safe decoder.
    """

    checkpoint_id: str
    node: str
    value: Any


@dataclass(frozen=True)
class Rebuild:
    """How one channel's value at a checkpoint was made, for the line a page shows.

    Attributes:
        channel: the state key.
        snapshot_at: the checkpoint whose stored value the rebuild starts from; None for the
            empty start (no ancestor holds one).
        writes: how many stored writes were replayed on it.
        folded_by: :data:`FOLDED_BY_MESSAGES`, :data:`FOLDED_BY_GRAPH`,
            :data:`NOTHING_TO_FOLD`, or "" when the writes are shown unfolded.
        problem: why the graph's reducer gave no value (it raised on the stored data), or None.
        shown_on: the surface the line is shown on (:data:`ON_PAGE`, :data:`ON_CLI`,
            :data:`ON_MCP`): an unfolded value's line says what works there.
    """

    channel: str
    snapshot_at: str | None
    writes: int
    folded_by: str = ""
    problem: str | None = None
    shown_on: str = ON_PAGE

    def sentence(self, ordinal: Callable[[str], int | None] = lambda _: None) -> str:
        """``messages: rebuilt from the snapshot at #9 and 2 writes (rebuilt as ...)``."""
        where = "the empty start"
        if self.snapshot_at is not None:
            number = ordinal(self.snapshot_at)
            where = f"the snapshot at #{number}" if number else "a snapshot"
        writes = f"{self.writes} write{'' if self.writes == 1 else 's'}"
        # The graph was named and its reducer raised: naming it again would not help.
        how = self.folded_by or ("shown unfolded" if self.problem else
                                 "shown unfolded: " + not_folded(self.shown_on))
        said = f"{self.channel}: rebuilt from {where} and {writes} ({how})"
        return f"{said}; the graph's reducer failed: {self.problem}" if self.problem else said


@dataclass(frozen=True)
class StateAt:
    """A checkpoint's state values as LangGraph loads them, and how each rebuilt one was made.

    Attributes:
        values: state key -> value (plain data); a DeltaChannel's value rebuilt, or, for a
            reducer the engine cannot apply, an :func:`unfolded` mapping.
        rebuilt: one :class:`Rebuild` per channel that was not stored whole at the checkpoint.
    """

    values: dict
    rebuilt: tuple[Rebuild, ...] = field(default=())


def not_folded(shown_on: str = ON_PAGE) -> str:
    """What an unfolded value says of itself on a surface: the app's own reducer folds its
    writes, and what to do there to see the value it makes (:data:`TO_FOLD`)."""
    return f"{NOT_FOLDED_BY}; {TO_FOLD.get(shown_on, TO_FOLD[ON_PAGE])}"


def is_snapshot(value: Any) -> bool:
    """True for a decoded ``_DeltaSnapshot`` blob."""
    return type_name(value) == DELTA_SNAPSHOT_TYPE


def stored_value(value: Any) -> Any:
    """The value a stored channel value stands for: a snapshot's contents, else itself."""
    return value.get("value") if is_snapshot(value) else value


def channels_to_rebuild(checkpoint: Mapping, state_keys: Iterable[str]) -> list[str]:
    """State keys LangGraph rebuilds from ancestor writes at this checkpoint: written on this
    branch (a channel version) yet with nothing stored in ``channel_values``. (Every other
    channel that has a version stores its value at each checkpoint; LangGraph rebuilds
    exactly these, for a DeltaChannel or a reducer channel that was one.)"""
    versions = checkpoint.get("channel_versions")
    values = checkpoint.get("channel_values")
    if not isinstance(versions, Mapping):
        return []
    held = values if isinstance(values, Mapping) else {}
    keys = set(state_keys)
    return sorted(key for key in versions if key in keys and key not in held)


def _overwritten(value: Any) -> tuple[bool, Any]:
    """(True, value) for a write that replaces the channel's value (LangGraph's ``Overwrite``
    as the decoder gives it, or its sentinel dict forms)."""
    if isinstance(value, Mapping):
        name = type_name(value)
        if name is not None and name.rsplit(".", 1)[-1] == "Overwrite":
            return True, value.get("value")
        if "__overwrite__" in value and len(value) == 1:
            return True, value["__overwrite__"]
        if value.get("type") == "__overwrite__" and "value" in value and len(value) == 2:
            return True, value["value"]
    return False, None


def _as_messages(items: Sequence[Any]) -> list | None:
    """Each item read as a message (:func:`as_message`), or None when one is not a message."""
    messages = [as_message(item) for item in items]
    return None if any(message is None for message in messages) else messages


def fold_messages(state: list, writes: Sequence[Any]) -> list | None:
    """``state`` with ``writes`` folded in as LangGraph's ``_messages_delta_reducer`` folds
    them: every write a message or a list of them (lists flattened); a message whose id is
    already there replaces it in place, a ``RemoveMessage`` drops its id, one with id
    ``__remove_all__`` drops everything before it, a message without an id is appended. None
    when the state or a write is not messages (the caller shows the writes instead)."""
    flat = [item for write in writes
            for item in (write if isinstance(write, list) else [write])]
    held = _as_messages(state) if isinstance(state, list) else None
    messages = _as_messages(flat)
    if held is None or messages is None:
        return None
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "remove" and messages[index].id == REMOVE_ALL_MESSAGES:
            state, held = [], []
            flat, messages = flat[index + 1:], messages[index + 1:]
            break
    result: list[Any] = list(state)
    position = {message.id: index for index, message in enumerate(held)
                if message.id is not None}
    for item, message in zip(flat, messages, strict=True):
        if message.id is None:
            result.append(item)
        elif message.role == "remove":
            if message.id in position:
                result[position.pop(message.id)] = None
        elif message.id in position:
            result[position[message.id]] = item
        else:
            position[message.id] = len(result)
            result.append(item)
    return [item for item in result if item is not None]


def unfolded(seed: Any, seed_at: str | None, writes: Sequence[DeltaWrite],
             shown_on: str = ON_PAGE, problem: str | None = None) -> dict:
    """A value only the app's own reducer can fold, as plain data a page, ``--json`` and MCP
    show: the stored snapshot (None for the empty start), where it is stored, the writes since,
    oldest first, each with its checkpoint and node, and what to do on ``shown_on`` to see the
    value it makes (or, where the graph was named and its reducer raised, why it did not)."""
    note = (f"{NOT_FOLDED_BY}; the graph's reducer failed on them: {problem}" if problem
            else not_folded(shown_on))
    return {
        UNFOLDED_SNAPSHOT: seed,
        UNFOLDED_AT: seed_at,
        UNFOLDED_WRITES: [{"checkpoint": write.checkpoint_id, "node": write.node,
                           "value": write.value} for write in writes],
        UNFOLDED_NOTE: note,
    }


def is_unfolded(value: Any) -> bool:
    """True for a value :func:`unfolded` made, on any surface (and in a recording exported
    before each surface had its own words: they start the same)."""
    note = value.get(UNFOLDED_NOTE) if isinstance(value, Mapping) else None
    return (isinstance(note, str) and note.startswith(NOT_FOLDED_BY) and TYPE_KEY not in value
            and UNFOLDED_WRITES in value)


def describe_unfolded(value: Mapping, ordinal: Callable[[str], int | None] = lambda _: None,
                      limit: int = 300) -> str:
    """An unfolded value in one line a person reads: ``snapshot at #5 ["start"], then writes
    the app's reducer folds: #6 record ["item-1"]; #8 __start__ []``."""
    def at(cid: Any) -> str:
        number = ordinal(cid) if isinstance(cid, str) else None
        return f"#{number}" if number else "a checkpoint"

    seed = value.get(UNFOLDED_SNAPSHOT)
    start = ("the empty start" if value.get(UNFOLDED_AT) is None else
             f"snapshot at {at(value.get(UNFOLDED_AT))} {describe(seed, limit // 2)}")
    writes = value.get(UNFOLDED_WRITES) or []
    listed = "; ".join(f"{at(w.get('checkpoint'))} {w.get('node') or '?'} "
                       f"{describe(w.get('value'), 80)}" for w in writes[:20])
    more = f"; and {len(writes) - 20} more" if len(writes) > 20 else ""
    text = f"{start}, then writes the app's reducer folds: {listed}{more}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fold(channel: str, seed: Any, seed_at: str | None, writes: Sequence[DeltaWrite],
         reducer: Reducer | None = None, shown_on: str = ON_PAGE) -> tuple[Any, Rebuild]:
    """A DeltaChannel's value from its seed and the writes since, and how it was made.

    Args:
        channel: the state key.
        seed: the stored value the walk stopped at (a snapshot's contents), or None for the
            empty start.
        seed_at: the checkpoint holding the seed, or None.
        writes: the writes since, oldest first, in LangGraph's order.
        reducer: the graph's own reducer for the channel, :data:`MESSAGES_REDUCER` for
            LangGraph's messages reducer, or None when no graph was named.
        shown_on: the surface the value is shown on, for what an unfolded one says there.
    """
    base = [] if seed is None else seed
    values = [write.value for write in writes]
    # An Overwrite resets the value: the last one is the new start (DeltaChannel.replay_writes).
    start = 0
    for index, value in enumerate(values):
        replaced, new = _overwritten(value)
        if replaced:
            base, start = ([] if new is None else new), index + 1
    remaining = values[start:]
    if not remaining:
        return base, Rebuild(channel, seed_at, len(writes), NOTHING_TO_FOLD)
    if reducer is not None and reducer != MESSAGES_REDUCER and callable(reducer):
        try:
            return reducer(copy.deepcopy(base), remaining), Rebuild(
                channel, seed_at, len(writes), FOLDED_BY_GRAPH)
        except Exception as exc:  # the graph's own code, on data it may not expect
            problem = f"{type(exc).__name__}: {exc}"[:300]
            return unfolded(seed, seed_at, writes, shown_on, problem), Rebuild(
                channel, seed_at, len(writes), problem=problem, shown_on=shown_on)
    folded = fold_messages(base, remaining)
    if folded is not None:
        return folded, Rebuild(channel, seed_at, len(writes), FOLDED_BY_MESSAGES)
    return unfolded(seed, seed_at, writes, shown_on), Rebuild(channel, seed_at, len(writes),
                                                              shown_on=shown_on)
