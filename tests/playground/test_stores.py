"""The long-term store a graph gets: its langgraph.json options, and the log of each run's
writes (on a real SQLite file, and on Postgres where a server answers)."""

from __future__ import annotations

from typing import TypedDict

import pytest
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore

from playground.apps.errors import AppLoadError
from playground.runtime.driven import driven
from playground.runtime.loop import shared_loop
from playground.savers import open_async_saver
from playground.stores import changes_of, open_async_store, store_options, store_target
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
    store = loop.run(open_async_store(store_target(target)))
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
    store = loop.run(open_async_store(store_target(target)))
    graph = _graph(saver, store)
    graph.invoke({"said": "hi"}, {"configurable": {"thread_id": "t1"}})
    history = list(graph.get_state_history({"configurable": {"thread_id": "t1"}}))
    keep_step = next(s for s in history if s.next == ("tidy",))  # what keep wrote

    found = loop.run(changes_of(store, "t1",
                                from_checkpoint=keep_step.parent_config["configurable"]
                                ["checkpoint_id"]))

    assert [c.node for c in found] == ["keep"]


def test_the_sqlite_store_lives_beside_the_checkpoint_file_not_in_it(tmp_path):
    assert store_target(tmp_path / "app.sqlite") == str(tmp_path / "app.store.sqlite")
    assert store_target("postgresql://u@h/db") == "postgresql://u@h/db"


def test_ttl_options_are_passed_to_the_store():
    assert store_options({"ttl": {"default_ttl": 60, "refresh_on_read": False}}) == {
        "ttl": {"default_ttl": 60, "refresh_on_read": False}}


@pytest.mark.parametrize(("section", "message"), [
    ({"ttl": {"default_ttl": "soon"}}, r"store.ttl.default_ttl must be a number"),
    ({"ttl": {"forever": True}}, r"store.ttl: unknown key 'forever'"),
    ({"index": {"dims": 8}}, r"store.index needs 'embed' and 'dims'"),
    ({"index": {"dims": -1, "embed": "a:b"}}, r"dims must be a positive integer"),
    ({"vectors": {}}, r"store: unknown key 'vectors'"),
])
def test_a_store_section_that_cannot_be_honoured_is_refused_in_one_line(section, message):
    with pytest.raises(AppLoadError, match=message):
        store_options(section)


def test_an_index_with_a_local_embedding_function_is_loaded_from_the_project(tmp_path):
    (tmp_path / "embed.py").write_text(
        "def embed(texts):\n    return [[float(len(t)), 1.0] for t in texts]\n")

    options = store_options({"index": {"dims": 2, "embed": "./embed.py:embed"}}, tmp_path)

    assert options["index"]["embed"](["abc"]) == [[3.0, 1.0]]


def test_a_node_that_calls_get_store_gets_the_same_logged_store(tmp_path):
    from langgraph.config import get_store

    def note(state: State) -> dict:
        get_store().put(("notes",), "seen", {"said": state["said"]})
        return {}

    loop = shared_loop()
    target = str(tmp_path / "app.sqlite")
    saver = loop.run(open_async_saver(target))
    store = loop.run(open_async_store(store_target(target)))
    builder = StateGraph(State)
    builder.add_node(note)
    builder.add_edge(START, "note")
    graph = driven(builder.compile().copy(update={"checkpointer": saver, "store": store}))

    graph.invoke({"said": "hi"}, {"configurable": {"thread_id": "t1"}})

    assert [c.line() for c in loop.run(changes_of(store, "t1"))] == [
        '+ notes/seen = {"said": "hi"}']
