"""A production-shaped checkpoint database of many threads, made with LangGraph's own savers.

A support agent in the style of LangGraph's templates (``messages`` with ``add_messages``, a
deterministic stand-in model, a tool, an ``interrupt()`` that asks for approval) runs a few
hundred seed threads on a real ``SqliteSaver`` or ``PostgresSaver``:

- **finished**: one to four turns, each asking about an order;
- **paused**: the last turn asks for a refund, and the run waits at the approval question;
- **failed**: the last turn asks about an order the tool cannot find, and the node raises;
- **forked**: a finished thread with an earlier checkpoint edited (``update_state``) and run
  again from it.

Every seed is started with ``metadata={"user": ..., "channel": ...}``, which LangGraph stores
with each checkpoint. Kinds come in turn, or, with ``rare``, as production has them: a failure
and a paused thread among hundreds finished ones (:func:`kind_of`). Then each seed's rows are
copied in the saver's own tables under new thread ids, every other column byte for byte, until
the database holds the threads asked for: what a production database looks like to a reader,
at a fraction of the time a real run would take.

``expected`` says what each thread is (its seed's kind, user and channel), so tests can check
a filter against the truth. Used by the tests (a few thousand threads) and
``bench/many_threads.py`` (100,000).
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt

KINDS = ("finished", "paused", "failed", "forked")
USERS = 50  # seeds are spread over this many users ("u0" .. "u49")
_NAMESPACE = uuid.UUID("6f1c3a52-5b0e-4d43-9d38-0d3c1f1b7a10")


class SupportState(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    order_id: str


def _order_of(text: str) -> str:
    return next((word.strip("?.!,") for word in text.split() if word[:1] == "A"), "A0")


def _assistant(state: SupportState) -> dict:
    """The stand-in model: asks the tool about the order in the newest question."""
    question = state["messages"][-1].content
    order = _order_of(question)
    call = {"name": "lookup_order", "args": {"order_id": order},
            "id": f"call-{uuid.uuid4().hex[:8]}"}
    return {"messages": [AIMessage(content="", tool_calls=[call])], "order_id": order}


def _tools(state: SupportState) -> dict:
    """The tool: an order ending in 9 is not found (the node raises); a refund asks first."""
    call = state["messages"][-1].tool_calls[0]
    order = call["args"]["order_id"]
    if order.endswith("9"):
        raise LookupError(f"order {order} not found")
    if "refund" in state["messages"][-2].content:
        answer = interrupt({"question": f"Approve a refund for order {order}?"})
        text = f"refund of {order}: {answer}"
    else:
        text = f"order {order} is in transit"
    return {"messages": [ToolMessage(content=text, tool_call_id=call["id"])]}


def _reply(state: SupportState) -> dict:
    return {"messages": [AIMessage(content=f"Done: {state['messages'][-1].content}.")]}


def support_graph(saver):
    """The seed threads' graph, compiled on ``saver``."""
    builder = StateGraph(SupportState)
    builder.add_node("assistant", _assistant)
    builder.add_node("tools", _tools)
    builder.add_node("reply", _reply)
    builder.add_edge(START, "assistant")
    builder.add_edge("assistant", "tools")
    builder.add_edge("tools", "reply")
    builder.add_edge("reply", END)
    return builder.compile(checkpointer=saver)


@dataclass(frozen=True)
class Seed:
    """One thread run through the graph: its id, kind, user and channel."""

    thread_id: str
    kind: str
    user: str
    channel: str = "web"


# With ``rare``, one seed in RARE_EVERY fails and one is left paused (0.4% each, spread through
# the table as the copies interleave), one in FORKED_EVERY is forked, the rest finish: a
# production database, where the threads one looks for are few.
RARE_EVERY = 250
FORKED_EVERY = 25
CHANNELS = ("web", "email", "slack")  # the ``channel`` metadata key, in turn


def kind_of(n: int, rare: bool = False) -> str:
    """The kind of seed ``n``: in turn, or with ``rare`` mostly finished."""
    if not rare:
        return KINDS[n % len(KINDS)]
    if n % RARE_EVERY == RARE_EVERY // 2:
        return "failed"
    if n % RARE_EVERY == RARE_EVERY // 5:
        return "paused"
    return "forked" if n % FORKED_EVERY == 1 else "finished"


def run_seeds(saver, count: int, rare: bool = False) -> list[Seed]:
    """Run ``count`` seed threads through the graph on ``saver`` (kinds in turn, or with
    ``rare`` mostly finished: :func:`kind_of`), each started with ``metadata={"user": ...,
    "channel": ...}``."""
    graph = support_graph(saver)
    seeds = []
    for n in range(count):
        kind = kind_of(n, rare)
        seed = Seed(f"seed-{n:04d}", kind, f"u{n % USERS}", CHANNELS[n % len(CHANNELS)])
        config = {"configurable": {"thread_id": seed.thread_id},
                  "metadata": {"user": seed.user, "channel": seed.channel}}
        for turn in range(n % 3):  # earlier turns, all answered
            graph.invoke({"messages": [HumanMessage(f"Where is A{n}{turn}0?")]}, config)
        if kind == "paused":
            graph.invoke({"messages": [HumanMessage(f"Please refund A{n}1")]}, config)
        elif kind == "failed":
            with contextlib.suppress(LookupError):  # the failure is stored; the run ends
                graph.invoke({"messages": [HumanMessage(f"Where is A{n}9?")]}, config)
        else:
            graph.invoke({"messages": [HumanMessage(f"Where is A{n}2?")]}, config)
        if kind == "forked":
            first = list(graph.get_state_history(config))[-3]  # an early checkpoint
            forked = graph.update_state(first.config, {"order_id": f"A{n}5"})
            graph.invoke(None, forked)
        seeds.append(seed)
    return seeds


def copy_id(seed: Seed, copy: int) -> str:
    """A copy's thread id: a uuid, as production apps name threads (derived, so stable)."""
    return str(uuid.uuid5(_NAMESPACE, f"{seed.thread_id}/{copy}"))


def _plan(seeds: list[Seed], threads: int) -> Iterator[tuple[Seed, str]]:
    """(seed, new thread id) for each copy, seeds in turn, so kinds interleave in time."""
    for n in range(threads - len(seeds)):
        seed = seeds[n % len(seeds)]
        yield seed, copy_id(seed, n // len(seeds))


# The saver's tables and the column each names its thread in: copied as they are, the thread id
# replaced.
_SQLITE_TABLES = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id",
                    "type", "checkpoint", "metadata"),
    "writes": ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel",
               "type", "value"),
}
_POSTGRES_TABLES = {
    "checkpoints": ("thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id",
                    "type", "checkpoint", "metadata"),
    "checkpoint_blobs": ("thread_id", "checkpoint_ns", "channel", "version", "type", "blob"),
    "checkpoint_writes": ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx",
                          "channel", "type", "blob", "task_path"),
}


_BATCH = 2_000  # copies made per statement


def _copy_sql(table: str, columns: tuple[str, ...]) -> str:
    """INSERT ... SELECT of the seeds' rows of ``table`` under each new thread id that the
    ``copy_map`` table pairs with a seed (``seed``, ``new``)."""
    rest = ", ".join(f"t.{column}" for column in columns[1:])
    return (f"INSERT INTO {table} ({', '.join(columns)}) SELECT m.new, {rest} FROM copy_map m "
            f"JOIN {table} t ON t.thread_id = m.seed ORDER BY m.n")


def _batches(made: list[Seed], threads: int) -> Iterator[list[tuple[int, str, str]]]:
    """(order, seed id, new id) in batches of :data:`_BATCH`."""
    batch = []
    for n, (seed, new_id) in enumerate(_plan(made, threads)):
        batch.append((n, seed.thread_id, new_id))
        if len(batch) == _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def make_sqlite(path: Path, threads: int, seeds: int = 200,
                progress: Callable[[int, int], None] | None = None,
                rare: bool = False) -> dict[str, Seed]:
    """A SqliteSaver file at ``path`` holding ``threads`` threads (with ``rare``, failed and
    paused ones under 1%); returns each thread's seed."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        made = run_seeds(SqliteSaver(conn), min(seeds, threads), rare)
        by_id = {seed.thread_id: seed for seed in made}
        expected = dict(by_id)
        conn.execute("CREATE TEMP TABLE copy_map (n INTEGER, seed TEXT, new TEXT)")
        for batch in _batches(made, threads):
            conn.execute("DELETE FROM copy_map")
            conn.executemany("INSERT INTO copy_map VALUES (?, ?, ?)", batch)
            for table, columns in _SQLITE_TABLES.items():
                conn.execute(_copy_sql(table, columns))
            conn.commit()
            expected.update((new, by_id[seed]) for _, seed, new in batch)
            if progress:
                progress(len(expected), threads)
    finally:
        conn.close()
    return expected


def make_postgres(url: str, threads: int, seeds: int = 200,
                  progress: Callable[[int, int], None] | None = None,
                  rare: bool = False) -> dict[str, Seed]:
    """A PostgresSaver database at ``url`` (its tables made afresh) holding ``threads`` threads
    (with ``rare``, failed and paused ones under 1%); returns each thread's seed."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    with psycopg.connect(url, autocommit=True) as conn:
        for table in (*_POSTGRES_TABLES, "checkpoint_migrations"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        made = run_seeds(saver, min(seeds, threads), rare)
    by_id = {seed.thread_id: seed for seed in made}
    expected = dict(by_id)
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TEMP TABLE copy_map (n integer, seed text, new text)")
        for batch in _batches(made, threads):
            conn.execute("DELETE FROM copy_map")
            with conn.cursor() as cursor:
                cursor.executemany("INSERT INTO copy_map VALUES (%s, %s, %s)", batch)
            for table, columns in _POSTGRES_TABLES.items():
                conn.execute(_copy_sql(table, columns))
            conn.commit()
            expected.update((new, by_id[seed]) for _, seed, new in batch)
            if progress:
                progress(len(expected), threads)
    with psycopg.connect(url, autocommit=True) as conn:
        # What autovacuum does after a bulk insert (PostgreSQL 13 and later vacuum insert-only
        # tables too): the visibility map that lets an index-only scan skip the heap, and the
        # planner's statistics. A production database has had both long since.
        conn.execute("VACUUM (ANALYZE)")
    return expected

