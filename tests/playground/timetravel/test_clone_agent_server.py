"""Clone from a real ``langgraph dev``: its API gives values, not rows, so the copy is rebuilt
from them. LangGraph, reading the copy with the app's own graph, gives the server's values,
next nodes and questions at every checkpoint of the thread (or of one branch), every checkpoint
says it was rebuilt, and a copy paused at a question resumes with its answer."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from langgraph.types import Command

from playground.apps.loader import load_graph, parse_spec
from playground.places.door import open_place, open_storage
from playground.timetravel.clone import FROM_VALUES, clone_thread
from playground.timetravel.rebuild import REBUILT_KEY
from tests.playground.databases import saver_on
from tests.playground.timetravel.sample_graphs import config

EXAMPLE = Path(__file__).parents[3] / "examples" / "support_chat.py"


def as_json(value):
    """A value as the server's JSON shows it: a LangChain message as its ``model_dump``."""
    if hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value


def server_history(url: str, thread_id: str) -> dict[str, dict]:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=url, api_key=None)
    try:
        return {entry["checkpoint_id"]: entry
                for entry in client.threads.get_history(thread_id, limit=1000)}
    finally:
        client.close()


def clone_from(url: str, target: Path, thread_id: str, **options):
    place = open_place(url)
    try:
        with closing(place.reads()) as reads, \
                closing(open_storage(str(target), writable=True, create=True)) as writes:
            return clone_thread(reads, writes, thread_id, **options)
    finally:
        place.close()


def copied_states(target: Path, thread_id: str) -> dict[str, tuple]:
    """(values, next, questions, metadata) at each checkpoint, as LangGraph reads the copy
    with the app's own graph."""
    graph = load_graph(parse_spec(f"{EXAMPLE}:graph"))
    with saver_on(str(target), "sqlite") as saver:
        app = graph.copy(update={"checkpointer": saver})
        return {s.config["configurable"]["checkpoint_id"]: (
            as_json(s.values), list(s.next), [(i.id, i.value) for i in s.interrupts],
            s.metadata) for s in app.get_state_history(config(thread_id))}


def test_a_server_thread_cloned_holds_its_values_and_next_at_every_checkpoint(agent_server,
                                                                            tmp_path):
    url, threads = agent_server
    target = tmp_path / "copy.sqlite"
    for name in ("forked", "waiting"):
        report = clone_from(url, target, threads[name])
        server = server_history(url, threads[name])

        copied = copied_states(target, threads[name])

        assert report.how == FROM_VALUES and report.checkpoints == len(server)
        assert set(copied) == set(server)
        for cid, (values, next_, questions, metadata) in copied.items():
            entry = server[cid]
            assert values == entry["values"]
            assert next_ == entry["next"]
            assert questions == [(i["id"], i["value"]) for task in entry["tasks"]
                                 for i in task.get("interrupts") or ()]
            assert metadata[REBUILT_KEY]["how"] == FROM_VALUES
            assert metadata[REBUILT_KEY]["thread_id"] == threads[name]


def test_a_server_branch_clone_holds_the_branch_and_a_paused_copy_resumes(agent_server,
                                                                        tmp_path):
    url, threads = agent_server
    target = tmp_path / "copy.sqlite"
    report = clone_from(url, target, threads["forked"], to_checkpoint=threads["paused"],
                        as_id="paused-copy")
    server = server_history(url, threads["forked"])
    branch, at = [], threads["paused"]
    while at:
        branch.append(at)
        parent = server[at]["parent_checkpoint"]
        at = parent["checkpoint_id"] if parent else None

    copied = copied_states(target, "paused-copy")
    assert report.tip == threads["paused"] and sorted(copied) == sorted(branch)
    assert copied[threads["paused"]][1] == ["tools"] and copied[threads["paused"]][2]

    graph = load_graph(parse_spec(f"{EXAMPLE}:graph"))
    with saver_on(str(target), "sqlite") as saver:
        app = graph.copy(update={"checkpointer": saver})
        answer = app.invoke(Command(resume="yes"), config("paused-copy"))
    assert answer["messages"][-1].content == "Refunded $40.00 for order A17."

