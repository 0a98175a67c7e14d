"""An Agent Server as a place: a real ``langgraph dev`` read through its HTTP API.

The threads are made through langgraph-sdk as a user makes them (a refund to its question,
answered, then forked with ``update_state`` and answered the other way; a second thread left
waiting). The server's own ``get_history`` is the oracle for the tree.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from langgraph_sdk import get_sync_client

from playground.places.door import open_place, open_storage
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.tree import load_tree


def playground(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120, env=env)


def test_threads_lists_the_servers_threads_with_their_status(agent_server):
    url, made = agent_server
    shown = playground("threads", url)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"{url}: written by a LangGraph Agent Server (its HTTP API)"
    waiting = next(line for line in lines if line.startswith(made["waiting"]))
    forked = next(line for line in lines if line.startswith(made["forked"]))
    assert waiting.endswith('paused: tools asks "Approve a refund of $40.00 for order '
                            'A17?"')  # the question it waits on, as the tree says it
    assert forked.endswith("finished") and " 2 " in forked  # two branches


def _listed(url: str, *filters: str) -> list[str]:
    shown = playground("threads", url, "--json", *filters)
    assert shown.returncode == 0, shown.stderr
    return [row["thread_id"] for row in json.loads(shown.stdout)["threads"]]


def test_threads_filters_a_servers_threads_by_status_and_thread_metadata(agent_server):
    url, made = agent_server
    paused, finished = _listed(url, "--status", "paused"), _listed(url, "--status", "finished")
    assert made["waiting"] in paused and made["forked"] not in paused
    assert made["forked"] in finished and made["waiting"] not in finished
    # text goes to the server as its metadata filter; a number is matched here, as 42 and "42"
    assert _listed(url, "--meta", "user=acme") == [made["waiting"]]
    assert _listed(url, "--meta", "seat=42") == [made["waiting"]]
    assert _listed(url, "--meta", "user=acme", "--status", "finished") == []
    assert _listed(url, "--meta", "user=nobody") == []


def test_count_asks_the_servers_own_threads_count(agent_server):
    url, _ = agent_server
    for filters, wanted in (((), None), (("--meta", "user=acme"), 1),
                            (("--meta", "user=acme", "--status", "paused"), 1),
                            (("--meta", "user=acme", "--status", "finished"), 0)):
        shown = playground("threads", url, "--count", "--json", *filters)
        assert shown.returncode == 0, shown.stderr
        found = json.loads(shown.stdout)
        assert found["scanned"] == 0 and found["exact"]  # the server counted, nothing walked
        if wanted is not None:
            assert found["count"] == wanted, filters
        else:
            assert found["count"] >= 2


def test_threads_pages_a_servers_threads_with_a_cursor_visiting_each_once(agent_server):
    url, _ = agent_server
    every = _listed(url)
    seen, after = [], None
    while True:
        shown = playground("threads", url, "--json", "--limit", "1",
                           *(("--after", after) if after else ()))
        assert shown.returncode == 0, shown.stderr
        answer = json.loads(shown.stdout)
        seen += [row["thread_id"] for row in answer["threads"]]
        after = answer["next"]
        if after is None:
            break
    assert seen == every and len(set(seen)) == len(seen) >= 2


def test_tree_has_the_parents_the_servers_history_gives(agent_server):
    url, made = agent_server
    client = get_sync_client(url=url, api_key=None)
    history = client.threads.get_history(made["forked"], limit=1000)
    expected = {entry["checkpoint_id"]: entry["parent_checkpoint_id"] for entry in history}
    tree = load_tree(open_storage(url), made["forked"])
    assert {cid: record.parent_id for cid, record in tree.nodes.items()} == expected
    assert tree.nodes[made["fork"]].parent_id == made["paused"]
    assert sum(1 for cid in tree.nodes if not tree.children.get(cid)) == 2  # two branch tips


def test_history_shows_the_question_against_the_node_that_asked(agent_server):
    url, made = agent_server
    shown = playground("history", url, "--thread", made["waiting"])
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    asked = next(i for i, line in enumerate(lines) if "asks:" in line)
    assert "tools asks: Approve a refund of $40.00 for order A17?" in lines[asked]
    waits_at = lines[1].index("next")  # the heading's column (a name like "loop · x" has spaces)
    # the checkpoint it hangs under waits on tools
    assert lines[asked - 1][waits_at:].split()[0] == "tools"


def test_chat_diff_and_branches_read_a_server_thread(agent_server):
    url, made = agent_server
    chat = playground("chat", url, "--thread", made["forked"])
    assert chat.returncode == 0, chat.stderr
    assert "human: please refund order A17" in chat.stdout
    assert "Refund of order A17 declined by the reviewer." in chat.stdout  # the head's branch
    diff = playground("diff", url, "--thread", made["forked"], "#1", "#9")
    assert diff.returncode == 0, diff.stderr
    assert "+ tool refund: refund of order A17 declined by the reviewer" in diff.stdout
    branches = playground("branches", url, "--thread", made["forked"], "--json")
    assert branches.returncode == 0, branches.stderr
    compared = json.loads(branches.stdout)
    assert compared["ancestor"] == made["paused"]


def test_export_writes_the_servers_history_and_import_refuses_it(agent_server, tmp_path):
    url, made = agent_server
    exported = playground("export", url, "--thread", made["forked"])
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    assert data["storage"] == "server" and len(data["history"]) == 9
    file = tmp_path / "server.json"
    file.write_text(exported.stdout)
    target = tmp_path / "target.sqlite"
    refused = playground("import", str(target), str(file))
    assert refused.returncode == 2
    assert "Agent Server thread's history" in refused.stderr
    assert "Traceback" not in refused.stderr and not target.exists()


def test_an_unknown_thread_is_one_line(agent_server):
    url, _ = agent_server
    for thread in ("not-a-uuid", "01a23628-63c9-769a-90f9-07d81a68e0ff"):
        shown = playground("history", url, "--thread", thread)
        assert shown.returncode == 2
        assert shown.stderr.strip() == f"playground history: no thread {thread!r} in {url}"


def test_store_items_are_read_through_the_store_api(agent_server):
    url, _ = agent_server
    client = get_sync_client(url=url, api_key=None)
    client.store.put_item(["users", "ada"], "preferences", {"tone": "brief"})
    items = open_storage(url).store_items()
    assert any(item.namespace == ("users", "ada") and item.key == "preferences"
               and item.value == {"tone": "brief"} for item in items)


def test_a_server_place_refuses_to_run_a_local_graph_or_be_written(agent_server):
    url, _ = agent_server
    place = open_place(url)
    for attempt in (place.check_runnable, lambda: place.reads(writable=True)):
        with pytest.raises(CheckpointDbError, match="Agent Server"):
            attempt()


def test_a_history_longer_than_a_page_is_read_page_by_page_and_whole(agent_server,
                                                                     monkeypatch):
    from playground.places import agent_server as kind

    url, made = agent_server
    monkeypatch.setattr(kind, "PAGE", 4)  # nine checkpoints: three pages with `before`
    tree = load_tree(open_storage(url), made["forked"])
    assert len(tree.nodes) == 9
    assert tree.nodes[made["fork"]].parent_id == made["paused"]


def test_a_subgraphs_checkpoints_are_a_namespace_of_their_own(agent_server):
    url, made = agent_server
    storage = open_storage(url)
    namespaces = storage.namespaces(made["waiting"])
    assert namespaces[0] == "" and len(namespaces) == 2
    assert namespaces[1].startswith("triage:")
    shown = playground("history", url, "--thread", made["waiting"], "--ns", namespaces[1])
    assert shown.returncode == 0, shown.stderr
    assert "3 checkpoints, 1 branches" in shown.stdout
    assert "classify" in shown.stdout  # the subgraph's own node
