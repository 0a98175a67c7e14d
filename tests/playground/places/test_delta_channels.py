"""State on LangGraph 1.2's DeltaChannel reads as LangGraph reads it, on every kind of place.

The threads are made by real graphs on the real savers (tests/playground/timetravel/
delta_graphs.py); LangGraph's own ``get_state_history`` on the same saver is the oracle, at
every checkpoint of every branch. LangGraph's messages reducer is folded by the engine with no
graph loaded; a reducer of the app's own is folded only when the graph was named, and is shown
as its snapshot and writes otherwise.
"""

from __future__ import annotations

from contextlib import closing

import pytest

from playground.apps.state_fields import delta_reducers
from playground.places.door import open_place, open_storage
from playground.timetravel.compare import compare_branches, newest_branches
from playground.timetravel.decode import to_jsonable
from playground.timetravel.delta import (
    FOLDED_BY_GRAPH,
    FOLDED_BY_MESSAGES,
    UNFOLDED_AT,
    UNFOLDED_SNAPSHOT,
    UNFOLDED_WRITES,
    is_unfolded,
)
from playground.timetravel.messages import message_list
from playground.timetravel.transfer import (
    dumps_export,
    export_thread,
    import_thread,
    loads_export,
)
from playground.timetravel.tree import load_tree
from tests.playground.timetravel import delta_graphs


def _said(messages: list) -> list[tuple]:
    """What a list of LangChain messages, or of decoded ones, says: role, text and id."""
    if messages and not isinstance(messages[0], dict):
        messages = to_jsonable([
            m.model_dump() | {"__type__": f"{type(m).__module__}.{type(m).__name__}"}
            for m in messages])
    return [(m.role, m.text, m.id) for m in message_list(messages) or []]


def _langgraph_values(graph, thread_id: str, ns: str = "") -> dict[str, dict]:
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
    return {s.config["configurable"]["checkpoint_id"]: dict(s.values)
            for s in graph.get_state_history(config)}


@pytest.mark.parametrize("frequency", [1, 3, 100])
def test_a_delta_chat_reads_the_messages_langgraph_loads_at_every_checkpoint(target, frequency):
    place = open_place(target)
    with place.saver() as saver:
        graph = delta_graphs.make_chat(saver, "chat", snapshot_frequency=frequency)
        expected = _langgraph_values(graph, "chat")
        with closing(place.reads()) as reads:
            got = {cid: reads.values("chat", cid) for cid in expected}

    assert set(got) == set(expected)
    for cid, values in expected.items():
        assert _said(got[cid]["messages"]) == _said(values["messages"]), cid
    head = max(expected)
    # the fourth and fifth turns each trimmed the oldest exchange (RemoveMessage)
    assert [text for _, text, _ in _said(got[head]["messages"])] == [
        "it was A17", "echo: it was A17", "thanks", "echo: thanks", "one more thing",
        "echo: one more thing"]


def test_a_rebuilt_value_says_where_it_came_from(target):
    place = open_place(target)
    with place.saver() as saver:
        delta_graphs.make_chat(saver, "chat", snapshot_frequency=3)
        with closing(place.reads()) as reads:
            tree = load_tree(reads, "chat")
            notes = {cid: reads.state("chat", cid).rebuilt for cid in tree.nodes}

    sentences = [r.sentence(tree.ordinal) for found in notes.values() for r in found]
    assert any(s.startswith("messages: rebuilt from the snapshot at #") and
               FOLDED_BY_MESSAGES in s for s in sentences)
    assert any("rebuilt from the empty start" in s for s in sentences)


def test_an_apps_own_reducer_is_folded_only_with_its_graph_and_shown_as_writes_without(target):
    place = open_place(target)
    with place.saver() as saver:
        graph = delta_graphs.make_log(saver, "log")
        fork = delta_graphs.fork_log(graph, "log")
        expected = _langgraph_values(graph, "log")
        with closing(place.reads()) as reads:
            plain = {cid: reads.values("log", cid) for cid in expected}
            reads.reducers = delta_reducers(graph)
            folded = {cid: reads.values("log", cid) for cid in expected}
            notes = {n.folded_by for cid in expected for n in reads.state("log", cid).rebuilt}

    assert folded == expected
    assert fork in expected and any(
        "edited" in entry for entry in expected[max(expected)]["log"])
    assert FOLDED_BY_GRAPH in notes
    unfolded = [v["log"] for v in plain.values() if is_unfolded(v["log"])]
    assert unfolded, "no checkpoint between two snapshots"
    for value in unfolded:
        assert value[UNFOLDED_WRITES] and all(w["node"] for w in value[UNFOLDED_WRITES])
        assert value[UNFOLDED_SNAPSHOT] is None or value[UNFOLDED_AT] in expected
    # where the log is stored whole, it needs no reducer: the snapshot is the value
    assert sum(1 for cid, v in plain.items() if v == expected[cid]) >= 2


def test_a_subgraphs_delta_channel_reads_as_langgraph_reads_its_namespace(target):
    place = open_place(target)
    with place.saver() as saver:
        graph = delta_graphs.make_nested(saver, "nested")
        with closing(place.reads()) as reads:
            namespaces = [ns for ns in reads.namespaces("nested") if ns]
            if not namespaces:
                pytest.skip("this kind lists no subgraph namespace")
            ns = namespaces[0]
            state = graph.get_state({"configurable": {"thread_id": "nested"}}, subgraphs=True)
            inner = state.tasks[0].state
            cid = inner.config["configurable"]["checkpoint_id"]
            got = reads.values("nested", cid, ns)

    assert _said(got["notes"]) == _said(inner.values["notes"])
    assert [text for _, text, _ in _said(got["notes"])] == ["start", "draft"]


def test_an_exported_delta_chat_imports_as_a_thread_langgraph_reads_the_same(tmp_path):
    # SQLite to SQLite (an export imports into a place of its own kind): the copy's history,
    # read by LangGraph on the new file, says what the original's says.
    source, target = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    with open_place(str(source)).saver() as saver:
        graph = delta_graphs.make_chat(saver, "chat", snapshot_frequency=3)
        before = _langgraph_values(graph, "chat")
    with closing(open_storage(str(source))) as reads:
        data = loads_export(dumps_export(export_thread(reads, "chat")))
    with closing(open_storage(str(target), writable=True, create=True)) as writes:
        import_thread(writes, data, "copy")
    with open_place(str(target)).saver() as saver:
        after = _langgraph_values(delta_graphs.chat_graph(saver), "copy")
        with closing(open_storage(str(target))) as reads:
            engine = {cid: reads.values("copy", cid) for cid in after}

    assert set(after) == set(before)
    for cid in before:
        assert _said(after[cid]["messages"]) == _said(before[cid]["messages"])
        assert _said(engine[cid]["messages"]) == _said(before[cid]["messages"])


def test_compare_of_a_fork_mid_chain_holds_the_two_logs_langgraph_loads(target):
    place = open_place(target)
    with place.saver() as saver:
        graph = delta_graphs.make_log(saver, "log")
        delta_graphs.fork_log(graph, "log")
        expected = _langgraph_values(graph, "log")
        with closing(place.reads()) as reads:
            reads.reducers = delta_reducers(graph)
            tree = load_tree(reads, "log")
            left, right = newest_branches(tree)
            compared = compare_branches(reads, tree, left, right)

    said = "\n".join(compared.final.lines())
    assert "DeltaSnapshot" not in said
    # the final difference is the two logs LangGraph loads at the two tips
    assert compared.ancestor is not None and not compared.final.is_empty
    tips = {expected[left]["log"][-1], expected[right]["log"][-1]}
    assert all(tip in said for tip in tips)
