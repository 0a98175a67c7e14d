"""Aegra 0.11, a second real Agent Server: the same commands as on ``langgraph dev``, checked
against LangGraph's own reading of the PostgreSQL tables Aegra writes.

Aegra runs as its README starts it without Docker (``aegra serve``) on a database of its own
(the ``aegra`` fixture); the threads are the ones the ``langgraph dev`` tests use, made the same
way through langgraph-sdk. The oracle is ``PostgresSaver.list`` on Aegra's own database: the
checkpoints, parents and namespaces the server stored.
"""

from __future__ import annotations

import json
import subprocess
import sys

from playground.places.door import open_storage
from playground.timetravel.tree import load_tree


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


def _stored(database: str, thread_id: str, namespace: str = "") -> dict[str, str | None]:
    """{checkpoint id: parent id} of a thread's namespace, as LangGraph's PostgresSaver reads
    Aegra's tables."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(database) as saver:
        return {item.config["configurable"]["checkpoint_id"]:
                (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
                for item in saver.list({"configurable": {"thread_id": thread_id,
                                                         "checkpoint_ns": namespace}})}


def test_threads_lists_aegras_threads_with_their_status_and_filters(aegra):
    url, made, _ = aegra
    shown = playground("threads", url)
    assert shown.returncode == 0, shown.stderr  # Aegra refuses select: read without it
    lines = shown.stdout.splitlines()
    waiting = next(line for line in lines if line.startswith(made["waiting"]))
    forked = next(line for line in lines if line.startswith(made["forked"]))
    assert waiting.endswith('paused: tools asks "Approve a refund of $40.00 for order A17?"')
    assert forked.endswith("finished") and " 2 " in forked  # two branches
    paused = json.loads(playground("threads", url, "--status", "paused", "--json").stdout)
    listed = [row["thread_id"] for row in paused["threads"]]
    assert made["waiting"] in listed and made["forked"] not in listed
    acme = json.loads(playground("threads", url, "--meta", "user=acme", "--json").stdout)
    assert [row["thread_id"] for row in acme["threads"]] == [made["waiting"]]


def test_the_forked_tree_is_the_one_aegra_stored_in_postgres(aegra):
    url, made, database = aegra

    tree = load_tree(open_storage(url), made["forked"])

    assert {cid: r.parent_id for cid, r in tree.nodes.items()} == \
        _stored(database, made["forked"])
    assert tree.nodes[made["fork"]].parent_id == made["paused"]
    assert len(tree.leaves) == 2
    shown = playground("history", url, "--thread", made["forked"])
    assert shown.returncode == 0, shown.stderr
    assert "fork" in shown.stdout and "HEAD" in shown.stdout


def test_a_subgraphs_namespace_is_found_where_aegra_names_it(aegra):
    url, made, database = aegra
    storage = open_storage(url)

    namespaces = storage.namespaces(made["waiting"])

    assert namespaces[0] == "" and len(namespaces) == 2 and namespaces[1].startswith("triage:")
    assert {cid for cid in load_tree(storage, made["waiting"], namespaces[1]).nodes} == \
        set(_stored(database, made["waiting"], namespaces[1]))


def test_chat_timeline_and_export_read_an_aegra_thread(aegra):
    url, made, database = aegra
    chat = playground("chat", url, "--thread", made["forked"])
    assert chat.returncode == 0, chat.stderr
    assert "human: please refund order A17" in chat.stdout
    assert "Refund of order A17 declined by the reviewer." in chat.stdout  # the head's branch

    timeline = playground("timeline", url, "--thread", made["forked"], "--json")
    assert timeline.returncode == 0, timeline.stderr
    steps = json.loads(timeline.stdout)["steps"]
    assert any(step["kind"] == "wait" and step["note"] == "waited for an answer to tools"
               for step in steps)

    exported = playground("export", url, "--thread", made["forked"])
    assert exported.returncode == 0, exported.stderr
    history = json.loads(exported.stdout)["history"]
    assert len(history) == len(_stored(database, made["forked"]))
