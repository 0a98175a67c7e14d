"""Threads that failed in a few ways, rarely, written by a real graph on a real saver: what
``threads --group-by error``, MCP's ``list_threads(group_by="error")`` and Inspect's groups are
tested on.

:func:`make_threads` runs a two-node graph (``lookup``, then ``model``) once per thread on the
saver given (SqliteSaver, PostgresSaver). Most threads finish; one in a few dozen fails, in one
of five ways whose messages differ from thread to thread in a number, an id or a uuid, as a
production app's do. Two of them differ only in their exception's type, two only in their HTTP
status: each of the five is a group of its own (:data:`GROUPS`, with their exact counts).
"""

from __future__ import annotations

import contextlib
import uuid
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

THREADS = 300


class ProviderError(Exception):
    """A model provider's refusal, as an SDK raises one."""


class _State(TypedDict, total=False):
    n: int
    ticket: str
    answer: str


def _failure(n: int) -> tuple[str, Exception] | None:
    """The node thread ``n`` fails in and what it raises, or None (it finishes)."""
    if n % 50 == 7:
        return "lookup", RuntimeError(f"ticket {4000 + 13 * n} not found")
    if n % 100 == 19:
        return "lookup", ValueError(f"ticket {n} not found")
    if n % 50 == 23:
        return "model", ProviderError(f"HTTP 503 (upstream overloaded), request "
                                      f"req_{n:03d}{n * 7919 % 65536:04x}")
    if n % 150 == 99:
        return "model", ProviderError(f"HTTP 429 (rate limited), request "
                                      f"req_{n:03d}{n * 104729 % 65536:04x}")
    if n % 150 == 41:
        return "model", KeyError(f"no session {uuid.uuid5(uuid.NAMESPACE_URL, str(n))}")
    return None


# Each group (its key as the engine says it: the masked error) and how many of the THREADS
# threads fail so, in the order a list gives them: the largest first, the group of the newest
# thread first among equals.
GROUPS = {
    "ProviderError('HTTP 503 (upstream overloaded), request <id>')": 6,
    "RuntimeError('ticket <n> not found')": 6,
    "ValueError('ticket <n> not found')": 3,
    "ProviderError('HTTP 429 (rate limited), request <id>')": 2,
    "KeyError('no session <uuid>')": 2,
}
# The node each group's threads failed in.
NODES = {key: "lookup" if "ticket" in key else "model" for key in GROUPS}


def _graph(saver):
    def lookup(state: _State) -> dict:
        failing = _failure(state["n"])
        if failing and failing[0] == "lookup":
            raise failing[1]
        return {"ticket": f"T-{state['n']}"}

    def model(state: _State) -> dict:
        failing = _failure(state["n"])
        if failing and failing[0] == "model":
            raise failing[1]
        return {"answer": f"done {state['ticket']}"}

    builder = StateGraph(_State)
    builder.add_node("lookup", lookup)
    builder.add_node("model", model)
    builder.add_edge(START, "lookup")
    builder.add_edge("lookup", "model")
    builder.add_edge("model", END)
    return builder.compile(checkpointer=saver)


def thread_id(n: int) -> str:
    return f"job-{n:04d}"


def make_threads(saver, threads: int = THREADS) -> dict[str, str | None]:
    """Run ``threads`` threads on ``saver``; each thread's group key (:data:`GROUPS`), or None
    for the threads that finished."""
    graph = _graph(saver)
    made: dict[str, str | None] = {}
    for n in range(threads):
        failing = _failure(n)
        with contextlib.suppress(RuntimeError, ValueError, ProviderError, KeyError):
            graph.invoke({"n": n}, {"configurable": {"thread_id": thread_id(n)}})
        made[thread_id(n)] = None if failing is None else _key(*failing)
    return made


def _key(node: str, error: Exception) -> str:
    masked = {RuntimeError: "RuntimeError('ticket <n> not found')",
              ValueError: "ValueError('ticket <n> not found')",
              KeyError: "KeyError('no session <uuid>')"}.get(type(error))
    if masked is None:
        status = "503 (upstream overloaded)" if "503" in str(error) else "429 (rate limited)"
        masked = f"ProviderError('HTTP {status}, request <id>')"
    assert NODES[masked] == node
    return masked


def stored_error(n: int) -> str:
    """Thread ``n``'s error as LangGraph stores it (the exception's repr)."""
    failing = _failure(n)
    assert failing is not None
    return repr(failing[1])
