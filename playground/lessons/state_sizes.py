"""What the ways of carrying state between turns cost in bytes.

Every approach answers the same conversation: each turn reads ticket t7 once, as an agent does when
the user asks about it again. Two numbers per approach and turn count:

* resume loads: what the next turn must load to carry on. For LangGraph, the length of the newest
  checkpoint blob.
* stored: everything kept for the conversation. For LangGraph, the checkpoint and metadata blobs
  plus the pending-write values, summed over every checkpoint of the thread.

The LangGraph rows use a START -> read -> END graph on a real SqliteSaver, one invoke per turn.
The two chat rows carry the same turn as messages (the question, the tool's result, the reply):
once with ``add_messages``, whose whole list every checkpoint stores again, and once on LangGraph
1.2's ``DeltaChannel``, which stores the list whole only every ``snapshot_frequency`` updates
and otherwise keeps only the turn's writes; to resume, LangGraph loads the newest checkpoint,
the nearest snapshot and the writes since.
Channel versions carry ``random.random()`` digits, so the byte counts drift by a few bytes unless
the generator is seeded, which ``seed`` does before each approach.
"""

from __future__ import annotations

import json
import operator
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer, add_messages

from playground.agent.client import ApiResult
from playground.serde import graph_serde
from playground.timetravel.decode import decode_checkpoint

FetchTicket = Callable[[], ApiResult]

APPROACHES = (
    "LangGraph state, ids and etag",
    "LangGraph state, whole responses",
    "message history only",
    "external store by conversation id",
)

# The conversation as messages in LangGraph state: the whole list in every checkpoint, and the
# same list on a DeltaChannel (LangGraph 1.2, beta; its default snapshot every 100 updates).
MESSAGE_APPROACHES = (
    "LangGraph messages, whole list",
    "LangGraph messages, DeltaChannel",
)
DELTA_SNAPSHOT_EVERY = 100

# Measured only when a Postgres URL is given: the same two LangGraph states on PostgresSaver,
# which stores each channel value once per version instead of inside every checkpoint blob.
POSTGRES_APPROACHES = (
    "PostgresSaver, ids and etag",
    "PostgresSaver, whole responses",
)

ALL_APPROACHES = (*APPROACHES, *MESSAGE_APPROACHES, *POSTGRES_APPROACHES)

DEFINITIONS = (
    "resume loads: bytes the next turn loads to carry on (LangGraph: the newest checkpoint blob)",
    "stored: bytes kept for the conversation (LangGraph: checkpoint + metadata blobs + writes)",
)


class IdsState(TypedDict, total=False):
    ticket_id: str
    etag: str
    priority: str


class ResponsesState(TypedDict, total=False):
    ticket_id: str
    # The anti-pattern under measurement: every response appended, so every checkpoint copies all.
    responses: Annotated[list, operator.add]


class ChatState(TypedDict, total=False):
    ticket_id: str
    messages: Annotated[list, add_messages]


class DeltaChatState(TypedDict, total=False):
    ticket_id: str
    messages: Annotated[list, DeltaChannel(_messages_delta_reducer,
                                           snapshot_frequency=DELTA_SNAPSHOT_EVERY)]


@dataclass(frozen=True)
class Measure:
    """Bytes of one approach after some turns."""

    approach: str
    turns: int
    resume_loads: int
    stored: int


def _stored_bytes(conn: sqlite3.Connection, thread_id: str) -> tuple[int, int]:
    newest = conn.execute(
        "SELECT length(checkpoint) FROM checkpoints WHERE thread_id = ? "
        "ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    ).fetchone()[0]
    blobs = conn.execute(
        "SELECT coalesce(sum(length(checkpoint) + length(metadata)), 0) FROM checkpoints "
        "WHERE thread_id = ?",
        (thread_id,),
    ).fetchone()[0]
    writes = conn.execute(
        "SELECT coalesce(sum(length(value)), 0) FROM writes WHERE thread_id = ?", (thread_id,)
    ).fetchone()[0]
    return newest, blobs + writes


def _delta_resume_bytes(conn: sqlite3.Connection, thread_id: str, channel: str) -> int:
    """What LangGraph loads to resume a thread whose ``channel`` is a DeltaChannel: the newest
    checkpoint blob, then, parent by parent, the channel's writes under each ancestor up to the
    nearest one whose blob holds the channel (its snapshot), and that blob."""
    rows = {cid: (parent, type_, blob) for cid, parent, type_, blob in conn.execute(
        "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint FROM checkpoints "
        "WHERE thread_id = ? AND checkpoint_ns = ''", (thread_id,))}
    writes: dict[str, int] = {}
    for cid, size in conn.execute(
            "SELECT checkpoint_id, sum(length(value)) FROM writes WHERE thread_id = ? AND "
            "channel = ? GROUP BY checkpoint_id", (thread_id, channel)):
        writes[cid] = size
    def holds(type_: str, blob: bytes) -> bool:
        return channel in decode_checkpoint(type_, blob)[0].get("channel_values", {})

    newest = max(rows)
    at, type_, blob = rows[newest]
    loads = len(blob)
    if holds(type_, blob):  # a snapshot in the newest checkpoint: nothing more to load
        return loads
    while at in rows:
        parent, type_, blob = rows[at]
        loads += writes.get(at, 0)
        if holds(type_, blob):
            return loads + len(blob)
        at = parent
    return loads


def _postgres_bytes(conn, thread_id: str) -> tuple[int, int]:
    """(resume loads, stored) on PostgresSaver: the head row plus the blobs it refers to; and
    every row, blob and write of the thread, each counted once."""
    key = {"t": thread_id}
    head = conn.execute(
        "SELECT octet_length(checkpoint::text) AS size, checkpoint->'channel_versions' AS v "
        "FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = '' "
        "ORDER BY checkpoint_id DESC LIMIT 1", key,
    ).fetchone()
    blobs = {
        (row["channel"], row["version"]): row["size"] or 0
        for row in conn.execute(
            "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
            "WHERE thread_id = %(t)s", key,
        )
    }
    loads = head["size"] + sum(
        blobs.get((channel, str(version)), 0) for channel, version in (head["v"] or {}).items()
    )
    rows = conn.execute(
        "SELECT coalesce(sum(octet_length(checkpoint::text) + octet_length(metadata::text)), 0) "
        "AS n FROM checkpoints WHERE thread_id = %(t)s", key,
    ).fetchone()["n"]
    writes = conn.execute(
        "SELECT coalesce(sum(octet_length(blob)), 0) AS n FROM checkpoint_writes "
        "WHERE thread_id = %(t)s", key,
    ).fetchone()["n"]
    return int(loads), int(rows) + sum(blobs.values()) + int(writes)


def _postgres_series(
    url: str, state_type: type, read: Callable[[dict], dict], turns: list[int],
    tick: Callable[[], None],
) -> list[tuple[int, int, int]]:
    import uuid

    from playground.places.door import open_place

    thread_id = f"compare-{uuid.uuid4().hex}"
    # The place's own saver (tables set up); the byte counts read its tables with raw SQL,
    # which is the point of the lesson.
    with open_place(url).saver(graph_serde()) as saver, saver.conn.connection() as conn:
        graph = _read_graph(state_type, read).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": thread_id}}
        series = []
        try:
            for turn in range(1, max(turns) + 1):
                graph.invoke({"ticket_id": "t7"}, config)
                tick()
                if turn in turns:
                    series.append((turn, *_postgres_bytes(conn, thread_id)))
        finally:
            saver.delete_thread(thread_id)  # a measurement leaves nothing behind
        return series


def _read_graph(state_type: type, read: Callable[[dict], dict]) -> StateGraph:
    builder = StateGraph(state_type)
    builder.add_node("read", read)
    builder.add_edge(START, "read")
    builder.add_edge("read", END)
    return builder


def _langgraph_series(
    state_type: type, read: Callable[[dict], dict], turns: list[int], tick: Callable[[], None],
    delta_channel: str | None = None,
) -> list[tuple[int, int, int]]:
    builder = _read_graph(state_type, read)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        graph = builder.compile(checkpointer=SqliteSaver(conn, serde=graph_serde()))
        config = {"configurable": {"thread_id": "conversation-1"}}
        series = []
        for turn in range(1, max(turns) + 1):
            graph.invoke({"ticket_id": "t7"}, config)
            tick()
            if turn in turns:
                newest, stored = _stored_bytes(conn, "conversation-1")
                if delta_channel:
                    newest = _delta_resume_bytes(conn, "conversation-1", delta_channel)
                series.append((turn, newest, stored))
        return series
    finally:
        conn.close()


def compare(
    fetch: FetchTicket,
    turns: list[int],
    seed: int | None = 0,
    progress: Callable[[int, int], None] | None = None,
    postgres_url: str | None = None,
) -> list[Measure]:
    """Measure every approach after each turn count in ``turns``.

    Args:
        fetch: reads ticket t7 from the API (status, ETag, body).
        turns: turn counts to report, e.g. ``[1, 10]``.
        seed: seeds ``random`` before each approach so the table repeats; None leaves it unseeded.
        progress: called with (done, total) after every simulated turn.
        postgres_url: when given, also measure both LangGraph states on PostgresSaver there
            (in a thread of its own, deleted afterwards).
    """
    if not turns or min(turns) < 1:
        raise ValueError("turns must be positive whole numbers, such as 1,10")
    last = max(turns)
    total, done = (7 if postgres_url else 5) * last, 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    def read_ids(state: dict) -> dict:
        result = fetch()
        return {"etag": result.etag, "priority": result.body.get("priority")}

    def read_whole(state: dict) -> dict:
        return {"responses": [fetch().body]}

    def read_chat(state: dict) -> dict:
        # the turn as a chat holds it: the question, the tool's whole result, the reply
        result = fetch()
        turn = len(state.get("messages") or ()) // 3
        return {"messages": [
            HumanMessage("what is the state of t7?", id=f"q{turn}"),
            ToolMessage(json.dumps(result.body), tool_call_id=f"call{turn}", id=f"r{turn}"),
            AIMessage(f"t7 is {result.body.get('priority')} at {result.etag}", id=f"a{turn}")]}

    measures: list[Measure] = []
    for approach, state_type, read in (
        (APPROACHES[0], IdsState, read_ids),
        (APPROACHES[1], ResponsesState, read_whole),
    ):
        if seed is not None:
            random.seed(seed)
        for turn, loads, stored in _langgraph_series(state_type, read, turns, tick):
            measures.append(Measure(approach, turn, loads, stored))
    for approach, state_type, delta in (
        (MESSAGE_APPROACHES[0], ChatState, None),
        (MESSAGE_APPROACHES[1], DeltaChatState, "messages"),
    ):
        if seed is not None:
            random.seed(seed)
        for turn, loads, stored in _langgraph_series(state_type, read_chat, turns, tick, delta):
            measures.append(Measure(approach, turn, loads, stored))
    if postgres_url:
        for approach, state_type, read in (
            (POSTGRES_APPROACHES[0], IdsState, read_ids),
            (POSTGRES_APPROACHES[1], ResponsesState, read_whole),
        ):
            if seed is not None:
                random.seed(seed)
            for turn, loads, stored in _postgres_series(postgres_url, state_type, read, turns,
                                                        tick):
                measures.append(Measure(approach, turn, loads, stored))

    # Message history: the transcript is the state. Each turn adds the user's question, the tool
    # result (the whole response, as text) and the reply; the next turn resends all of it.
    transcript: list[dict] = []
    for turn in range(1, last + 1):
        result = fetch()
        reply = f"t7 is {result.body.get('priority')} at {result.etag}"
        transcript += [
            {"role": "user", "content": "what is the state of t7?"},
            {"role": "tool", "content": json.dumps(result.body)},
            {"role": "assistant", "content": reply},
        ]
        tick()
        if turn in turns:
            size = len(json.dumps(transcript).encode())
            measures.append(Measure(APPROACHES[2], turn, size, size))

    # External store: one row per conversation, overwritten each turn, with the two values the
    # next turn needs.
    result = fetch()
    row = {"conversation_id": "conversation-1", "ticket_id": "t7", "etag": result.etag}
    size = len(json.dumps(row, separators=(",", ":")).encode())
    for turn in sorted(set(turns)):
        measures.append(Measure(APPROACHES[3], turn, size, size))
    return measures


def format_table(measures: list[Measure], ticket_bytes: int) -> str:
    """Render the measures as the plain-text table the CLI prints."""
    turns = sorted({m.turns for m in measures})
    by_key = {(m.approach, m.turns): m for m in measures}
    width = max(len(a) for a in ALL_APPROACHES) + 2
    head1 = "bytes for one conversation".ljust(width) + "".join(
        f"{'resume loads':>14}{'stored':>14}" for _ in turns
    )
    head2 = " " * width + "".join(
        f"{'after ' + str(t) + (' turn' if t == 1 else ' turns'):>28}" for t in turns
    )
    lines = [head1, head2]
    present = {m.approach for m in measures}
    for approach in (a for a in ALL_APPROACHES if a in present):
        cells = "".join(
            f"{by_key[(approach, t)].resume_loads:>14,}{by_key[(approach, t)].stored:>14,}"
            for t in turns
        )
        lines.append(approach.ljust(width) + cells)
    lines.append(f"ticket t7 as one response: {ticket_bytes:,} bytes")
    return "\n".join(lines)
