"""An Agent Server already returns DeltaChannel values as LangGraph rebuilds them: a real
``langgraph dev`` serving the delta chat example gives, through the door, the conversation and
the app's own folded notes at every checkpoint, with no stored marker and nothing walked here."""

from __future__ import annotations

import json
import shutil
from contextlib import closing
from pathlib import Path

import pytest

from playground.places.door import open_place
from playground.testing.agent_server import (
    SKIP_REASON,
    agent_server_missing,
    langgraph_dev,
    settled,
)
from playground.timetravel.decode import to_jsonable
from playground.timetravel.messages import message_list
from playground.timetravel.tree import load_tree

EXAMPLE = Path(__file__).parents[3] / "examples" / "delta_chat.py"
QUESTIONS = ("hello", "where is my order?", "it was A17")

pytestmark = [pytest.mark.server, pytest.mark.skipif(agent_server_missing(), reason=SKIP_REASON)]


@pytest.fixture(scope="module")
def delta_server(tmp_path_factory):
    """``langgraph dev`` serving only the delta chat, and a thread of three turns on it."""
    from langgraph_sdk import get_sync_client

    app = tmp_path_factory.mktemp("delta-app")
    shutil.copy(EXAMPLE, app / "delta_chat.py")
    (app / "langgraph.json").write_text(json.dumps(
        {"dependencies": ["."], "graphs": {"delta_chat": "./delta_chat.py:graph"}}))
    with langgraph_dev(tmp_path_factory.mktemp("delta-server"), app=app) as url:
        client = get_sync_client(url=url, api_key=None)
        thread = client.threads.create()["thread_id"]
        for question in QUESTIONS:
            client.runs.wait(thread, "delta_chat",
                             input={"messages": [{"role": "user", "content": question}]})
            settled(client, thread)
        history = client.threads.get_history(thread, limit=100)
        client.close()
        yield url, thread, history


def test_a_servers_delta_values_are_the_ones_its_langgraph_rebuilt(delta_server):
    url, thread, history = delta_server
    with closing(open_place(url).reads()) as reads:
        tree = load_tree(reads, thread)
        states = {cid: reads.state(thread, cid) for cid in tree.nodes}

    server = {entry["checkpoint_id"]: entry["values"] for entry in history}
    assert set(states) == set(server)
    for cid, state in states.items():
        assert state.rebuilt == ()  # the server rebuilt them: nothing is walked here
        assert to_jsonable(state.values) == to_jsonable(server[cid])
    head = states[tree.head].values
    assert [m.text for m in message_list(head["messages"])][::2] == list(QUESTIONS)
    assert head["notes"] == [f"{n}. general: {q}" for n, q in enumerate(QUESTIONS, 1)]
    assert "DeltaSnapshot" not in json.dumps(to_jsonable(list(server.values())))
