"""Graphs driven through LangGraph's async API from sync code: async and sync nodes, context,
settings recorded in checkpoints, stock sync savers."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from dataclasses import dataclass
from typing import TypedDict

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from playground.event_loop import shared_loop
from playground.runtime.driven import RunSettings, driven, settings_in
from playground.savers import open_async_saver


@dataclass
class Context:
    model: str = "stand-in/small"


class State(TypedDict, total=False):
    steps: list[str]


async def plan(state: State, runtime: Runtime[Context]) -> dict:
    await asyncio.sleep(0)
    return {"steps": [*state.get("steps", []), f"plan with {runtime.context.model}"]}


def act(state: State) -> dict:  # a sync node: LangGraph runs it in its executor under astream
    return {"steps": [*state["steps"], f"act in {threading.current_thread().name}"]}


def _builder() -> StateGraph:
    builder = StateGraph(State, context_schema=Context)
    builder.add_node(plan)
    builder.add_node(act)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "act")
    builder.add_edge("act", END)
    return builder


@pytest.fixture
def async_saver(tmp_path):
    saver = shared_loop().run(open_async_saver(tmp_path / "checkpoints.sqlite"))
    yield saver
    shared_loop().run(saver.conn.close())


def _thread(name: str) -> dict:
    return {"configurable": {"thread_id": name}}


def test_async_and_sync_nodes_run_with_the_context_they_are_given(async_saver):
    graph = driven(_builder().compile(checkpointer=async_saver),
                   RunSettings(context={"model": "stand-in/large"}))

    graph.invoke({"steps": []}, _thread("t1"))

    steps = graph.get_state(_thread("t1")).values["steps"]
    assert steps[0] == "plan with stand-in/large"
    assert steps[1].startswith("act in ") and "playground-loop" not in steps[1]


def test_every_checkpoint_of_a_run_records_the_context_it_ran_with(async_saver):
    graph = driven(_builder().compile(checkpointer=async_saver),
                   RunSettings(context={"model": "stand-in/large"}))

    graph.invoke({"steps": []}, _thread("t1"))

    history = list(graph.get_state_history(_thread("t1")))
    assert len(history) == 4
    assert {settings_in(s.metadata).context["model"] for s in history} == {"stand-in/large"}


def test_a_stock_sync_saver_reads_what_the_async_saver_wrote(async_saver, tmp_path):
    graph = driven(_builder().compile(checkpointer=async_saver),
                   RunSettings(context={"model": "m"}))
    graph.invoke({"steps": []}, _thread("t1"))

    stock = SqliteSaver(sqlite3.connect(tmp_path / "checkpoints.sqlite"))
    tuples = list(stock.list(_thread("t1")))
    stock.conn.close()
    assert len(tuples) == 4
    assert tuples[0].checkpoint["channel_values"]["steps"][0] == "plan with m"


def test_stream_yields_each_nodes_update_in_order(async_saver):
    graph = driven(_builder().compile(checkpointer=async_saver), RunSettings(context={}))

    updates = [next(iter(chunk)) for chunk in graph.stream({"steps": []}, _thread("t1"))]

    assert updates == ["plan", "act"]


def test_closing_a_stream_after_one_step_leaves_the_thread_paused_before_the_next(async_saver):
    graph = driven(_builder().compile(checkpointer=async_saver), RunSettings(context={}))

    events = graph.stream({"steps": []}, _thread("t1"))
    assert next(iter(next(events))) == "plan"
    events.close()

    snapshot = graph.get_state(_thread("t1"))
    assert snapshot.next in (("act",), ())  # act may have finished before the close
    graph.invoke(None, _thread("t1"))
    assert len(graph.get_state(_thread("t1")).values["steps"]) == 2


def test_update_state_writes_a_checkpoint_through_the_async_saver(async_saver):
    graph = driven(_builder().compile(checkpointer=async_saver), RunSettings(context={}))
    graph.invoke({"steps": []}, _thread("t1"))

    graph.update_state(_thread("t1"), {"steps": ["edited"]}, as_node="act")

    assert graph.get_state(_thread("t1")).values["steps"] == ["edited"]
    assert graph.get_state(_thread("t1")).metadata["source"] == "update"


def test_a_graph_on_a_stock_sync_saver_is_driven_through_a_threaded_copy(tmp_path):
    saver = SqliteSaver(sqlite3.connect(tmp_path / "c.sqlite", check_same_thread=False))
    compiled = _builder().compile(checkpointer=saver)
    graph = driven(compiled, RunSettings(context={"model": "m"}))

    graph.invoke({"steps": []}, _thread("t1"))

    assert compiled.get_state(_thread("t1")).values["steps"][0] == "plan with m"
    saver.conn.close()


def test_settings_in_ignores_metadata_that_is_not_what_the_playground_wrote():
    assert settings_in({"playground_context": "not json"}) is None
    assert settings_in({"playground_context": "[1, 2]"}) is None
    assert settings_in({"source": "loop"}) is None
    assert settings_in("text") is None
    found = settings_in({"playground_configurable": '{"user_id": "ana"}'})
    assert found == RunSettings(None, {"user_id": "ana"})


def test_configurable_values_reach_the_config_but_never_replace_the_thread(async_saver):
    seen = {}

    def read(state: State, config) -> dict:
        seen.update(config["configurable"])
        return {"steps": ["read"]}

    builder = StateGraph(State)
    builder.add_node(read)
    builder.add_edge(START, "read")
    graph = driven(builder.compile(checkpointer=async_saver),
                   RunSettings(configurable={"user_id": "ana", "thread_id": "evil"}))

    graph.invoke({"steps": []}, _thread("t1"))

    assert seen["user_id"] == "ana" and seen["thread_id"] == "t1"
