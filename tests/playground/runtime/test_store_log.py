"""The long-term store a graph gets from its place, and the log of each run's
writes (on a real SQLite file, and on Postgres where a server answers)."""

from __future__ import annotations

from typing import TypedDict

import pytest
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from playground.event_loop import shared_loop
from playground.places.door import open_place
from playground.runtime.driven import driven
from playground.runtime.store_log import changes_of, open_recording_store
from playground.savers import open_async_saver
from tests.postgres import SKIP_REASON, database_url, throwaway_database


class State(TypedDict, total=False):
    said: str


def keep(state: State, store: BaseStore) -> dict:  # sync, with a store parameter
    store.put(("notes", "ana"), "said", {"text": state["said"]})
    return {}


async def tidy(state: State, runtime: Runtime) -> dict:  # async, through runtime.store
    await runtime.store.aput(("notes", "ana"), "seen", {"count": 1})
    await runtime.store.adelete(("notes", "ana"), "old")
    return {}


def _graph(saver, store):
    builder = StateGraph(State)
    builder.add_node(keep)
    builder.add_node(tidy)
    builder.add_edge(START, "keep")
    builder.add_edge("keep", "tidy")
    return driven(builder.compile().copy(update={"checkpointer": saver, "store": store}))


@pytest.fixture(params=["sqlite", "postgres"])
def target(request, tmp_path):
    if request.param == "sqlite":
        yield str(tmp_path / "app.sqlite")
        return
    if not database_url():
        pytest.skip(SKIP_REASON)
    with throwaway_database() as url:
        yield url


def test_every_write_of_a_run_is_logged_with_its_node_and_the_value_before(target):
    loop = shared_loop()
    saver = loop.run(open_async_saver(target))
    store = loop.run(open_recording_store(open_place(target)))
    loop.run(store.aput(("notes", "ana"), "old", {"text": "stale"}))  # not a run's: not logged
    graph = _graph(saver, store)

    collected: list = []
    list(graph.stream({"said": "hi"}, {"configurable": {"thread_id": "t1"}},
                      store_changes=collected))

    logged = loop.run(changes_of(store, "t1"))
    assert [c.line() for c in logged] == [
        '+ notes/ana/said = {"text": "hi"}',
        '+ notes/ana/seen = {"count": 1}',
        '- notes/ana/old (was {"text": "stale"})',
    ]
    assert [c.node for c in logged] == ["keep", "tidy", "tidy"]
    assert collected == logged


def test_a_steps_writes_are_found_by_the_checkpoint_it_ran_from(target):
    loop = shared_loop()
    saver = loop.run(open_async_saver(target))
    store = loop.run(open_recording_store(open_place(target)))
    graph = _graph(saver, store)
    graph.invoke({"said": "hi"}, {"configurable": {"thread_id": "t1"}})
    history = list(graph.get_state_history({"configurable": {"thread_id": "t1"}}))
    keep_step = next(s for s in history if s.next == ("tidy",))  # what keep wrote

    found = loop.run(changes_of(store, "t1",
                                from_checkpoint=keep_step.parent_config["configurable"]
                                ["checkpoint_id"]))

    assert [c.node for c in found] == ["keep"]


def test_the_sqlite_store_lives_beside_the_checkpoint_file_not_in_it(tmp_path):
    assert open_place(tmp_path / "app.sqlite").store_place() == str(tmp_path / "app.store.sqlite")
    assert open_place("postgresql://u:pw@h/db").store_place() == "postgresql://u:***@h/db"


def test_a_node_that_calls_get_store_gets_the_same_logged_store(tmp_path):
    from langgraph.config import get_store

    def note(state: State) -> dict:
        get_store().put(("notes",), "seen", {"said": state["said"]})
        return {}

    loop = shared_loop()
    target = str(tmp_path / "app.sqlite")
    saver = loop.run(open_async_saver(target))
    store = loop.run(open_recording_store(open_place(target)))
    builder = StateGraph(State)
    builder.add_node(note)
    builder.add_edge(START, "note")
    graph = driven(builder.compile().copy(update={"checkpointer": saver, "store": store}))

    graph.invoke({"said": "hi"}, {"configurable": {"thread_id": "t1"}})

    assert [c.line() for c in loop.run(changes_of(store, "t1"))] == [
        '+ notes/seen = {"said": "hi"}']
