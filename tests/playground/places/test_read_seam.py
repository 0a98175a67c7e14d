"""Conformance of the read seam: every kind of place gives the engine what LangGraph's own
``get_state_history`` says of the same threads (the oracle), through the door.

The kinds: a SQLite file, a Postgres database (where a server answers), a saver object handed
in by code, and a throwaway in-memory kind registered by one line (memory_kind.py), which
answers only the seam's three questions. A kind that graphs run on joins by adding its target
to ``KIND_TARGETS`` (conftest.py); places only read (LangGraph.js files) are held against
LangGraph.js's own reading in test_other_writers.py.
"""

from __future__ import annotations

from contextlib import closing

import pytest
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

from playground.places.door import open_place
from playground.timetravel.tree import load_tree
from tests.playground.timetravel import sample_graphs
from tests.playground.timetravel.sample_graphs import config

SHAPES = {
    "loop": (sample_graphs.make_loop, sample_graphs.loop_graph),
    "fan": (sample_graphs.make_fan, sample_graphs.fan_graph),
    "forked": (sample_graphs.make_forked, sample_graphs.pause_graph),
}


def oracle(graph, thread_id: str) -> dict[str, tuple]:
    """What LangGraph says of each checkpoint: parent, step, source, next, time."""
    return {snapshot.config["configurable"]["checkpoint_id"]: (
        snapshot.parent_config["configurable"]["checkpoint_id"] if snapshot.parent_config
        else None, snapshot.metadata["step"], snapshot.metadata["source"],
        tuple(sorted(snapshot.next)), snapshot.created_at)
        for snapshot in graph.get_state_history(config(thread_id))}


class Ask(TypedDict, total=False):
    amount: int
    approved: str


def _ask(state: Ask) -> dict:
    return {"approved": interrupt({"question": f"Refund {state['amount']} EUR?"})}


def ask_graph(saver):
    builder = StateGraph(Ask)
    builder.add_node("approve", _ask)
    builder.add_edge(START, "approve")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_kind_reads_the_tree_langgraph_history_gives(target, shape):
    make, build = SHAPES[shape]
    place = open_place(target)
    with place.saver() as saver:
        make(saver, shape)
        expected = oracle(build(saver), shape)
        head = build(saver).get_state(config(shape)).config["configurable"]["checkpoint_id"]

        with closing(place.reads()) as reads:
            tree = load_tree(reads, shape, all_details=True)

    assert {cid: (r.parent_id, r.step, r.source, tree.details[cid].next,
                  tree.details[cid].created_at) for cid, r in tree.nodes.items()} == expected
    assert tree.head == head


def test_every_kind_lists_its_threads_with_their_status(target):
    place = open_place(target)
    with place.saver() as saver:
        sample_graphs.make_forked(saver, "forked")
        sample_graphs.make_loop(saver, "loop")
        with closing(place.reads()) as reads:
            threads = {t.thread_id: t for t in reads.threads()}
            ids = set(reads.thread_ids())

    assert ids == set(threads) == {"forked", "loop"}
    assert threads["forked"].branches == 3 and threads["forked"].head_next == ("write",)
    assert threads["loop"].head_next == ()  # finished: nothing left to run


def test_every_kind_gives_the_values_langgraph_gives_at_each_checkpoint(target):
    place = open_place(target)
    with place.saver() as saver:
        sample_graphs.make_forked(saver, "forked")
        graph = sample_graphs.pause_graph(saver)
        expected = {s.config["configurable"]["checkpoint_id"]: dict(s.values)
                    for s in graph.get_state_history(config("forked"))}
        with closing(place.reads()) as reads:
            got = {cid: reads.values("forked", cid) for cid in expected}

    assert got == expected


def test_every_kind_gives_pending_writes_with_the_node_that_wrote_them(target):
    place = open_place(target)
    with place.saver() as saver:
        graph = ask_graph(saver)
        graph.invoke({"amount": 40}, config("refund"))
        paused = graph.get_state(config("refund"))
        asked = paused.config["configurable"]["checkpoint_id"]
        tasks = {task.name for task in paused.tasks}
        with closing(place.reads()) as reads:
            writes = reads.pending_writes("refund", asked)
            signals = reads.signals("refund")

    assert [(w.node, w.channel) for w in writes] == [("approve", "__interrupt__")]
    assert tasks == {"approve"}
    (question,) = signals[asked]
    assert (question.node, question.kind) == ("approve", "interrupt")
    assert "Refund 40 EUR?" in question.text


def test_every_kind_reads_an_answered_question_and_the_run_after_it(target):
    place = open_place(target)
    with place.saver() as saver:
        graph = ask_graph(saver)
        graph.invoke({"amount": 40}, config("refund"))
        graph.invoke(Command(resume="yes"), config("refund"))
        expected = oracle(graph, "refund")
        final = graph.get_state(config("refund"))
        with closing(place.reads()) as reads:
            tree = load_tree(reads, "refund", all_details=True)
            values = reads.values("refund", tree.head)

    assert {cid: (r.parent_id, r.step, r.source, tree.details[cid].next,
                  tree.details[cid].created_at) for cid, r in tree.nodes.items()} == expected
    assert values == dict(final.values) == {"amount": 40, "approved": "yes"}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_kind_gives_each_checkpoints_time_and_writers_as_langgraph_does(target, shape):
    """The timeline's two reads (a kind may answer them from its rows without decoding):
    every checkpoint's time is LangGraph's ``created_at``, and the writes under a checkpoint
    name the tasks LangGraph says ran from it."""
    make, build = SHAPES[shape]
    place = open_place(target)
    with place.saver() as saver:
        make(saver, shape)
        graph = build(saver)
        history = list(graph.get_state_history(config(shape)))
        with closing(place.reads()) as reads:
            ids = [s.config["configurable"]["checkpoint_id"] for s in history]
            times = reads.checkpoint_times(shape, ids)
            owners = reads.write_owners(shape, ids)

    assert times == {s.config["configurable"]["checkpoint_id"]: s.created_at for s in history}
    ran = {s.config["configurable"]["checkpoint_id"]: {t.id: t.name for t in s.tasks
                                                        if t.result is not None or t.interrupts}
           for s in history}
    owned: dict[str, set] = {}
    for cid, node, task, _ in owners:
        owned.setdefault(cid, set()).add(node)
        assert not task or task in ran[cid]  # a kind that keeps task ids keeps LangGraph's
    assert set(owned) == {cid for cid, tasks in ran.items() if tasks}
    # "?": a Send's task, whose stored path names no node
    assert all(owned[cid] - {"?"} <= set(ran[cid].values()) for cid in owned)


def test_the_memory_kind_answers_only_the_three_questions():
    # Everything else it gives comes from the base class: the proof that a kind is small.
    from tests.playground.places.memory_kind import MemoryStorage

    own = {name for name in vars(MemoryStorage) if not name.startswith("__")}
    assert own == {"kind", "thread_ids", "stored_checkpoints", "stored_writes"}
