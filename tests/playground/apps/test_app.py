"""An app's graph runs on the playground's saver, and any stock saver reads what it wrote."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from playground.apps.launch import AppChoice, load_app
from playground.places.door import open_storage
from playground.savers import open_saver
from playground.timetravel.tree import load_tree

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_graph_runs_on_the_playground_saver_not_its_own(tmp_path):
    app = load_app(AppChoice(graph=f"{EXAMPLES}/research.py:graph"))
    with open_saver(tmp_path / "c.sqlite", app.serde()) as saver:
        graph = app.graph(saver)
        graph.invoke({"topic": "forks"}, {"configurable": {"thread_id": "r1"}})

        assert graph.checkpointer is saver
        assert app.template.checkpointer is None  # the loaded graph is left as it was
        assert app.graph(saver) is graph  # one copy per saver, shared by every session


def test_stock_sqlite_saver_reads_the_history_the_playground_tree_shows(tmp_path):
    app = load_app(AppChoice(graph=f"{EXAMPLES}/support_chat.py:graph"))
    path = tmp_path / "chat.sqlite"
    with open_saver(path, app.serde()) as saver:
        graph = app.graph(saver)
        config = {"configurable": {"thread_id": "c1"}}
        graph.invoke({"messages": [("human", "Where is my order A17?")]}, config)
        graph.invoke({"messages": [("human", "Please refund A17")]}, config)

    stock = app.template.copy(update={"checkpointer": SqliteSaver(sqlite3.connect(path))})
    history = {s.config["configurable"]["checkpoint_id"]: (
        (s.parent_config or {}).get("configurable", {}).get("checkpoint_id"), tuple(s.next))
        for s in stock.get_state_history({"configurable": {"thread_id": "c1"}})}
    tree = load_tree(open_storage(path), "c1", all_details=True)

    assert {cid: (r.parent_id, tree.details[cid].next) for cid, r in tree.nodes.items()} == history
    assert tree.signals[tree.head][0].text == "Approve a refund of $40.00 for order A17?"
