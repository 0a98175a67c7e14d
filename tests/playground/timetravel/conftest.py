"""A checkpoint file written by graphs of several shapes, shared by the engine's tests."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

_SPEC = importlib.util.spec_from_file_location(
    "sample_graphs", Path(__file__).with_name("sample_graphs.py")
)
sample_graphs = importlib.util.module_from_spec(_SPEC)
# Registered so its postponed annotations resolve and test modules can `import sample_graphs`.
sys.modules.setdefault("sample_graphs", sample_graphs)
_SPEC.loader.exec_module(sample_graphs)


@pytest.fixture
def samples():
    """The sample_graphs module (graph builders and thread makers)."""
    return sample_graphs


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory) -> tuple[Path, dict]:
    """A SqliteSaver file holding one thread per sample shape; returns (path, thread -> graph)."""
    path = tmp_path_factory.mktemp("samples") / "checkpoints.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    graphs = {
        "loop": sample_graphs.make_loop(saver),
        "fan": sample_graphs.make_fan(saver),
        "nested": sample_graphs.make_nested(saver),
        "forked": sample_graphs.make_forked(saver),
        "long": sample_graphs.make_long(saver),
    }
    conn.close()
    # Reopen each graph on its own connection so tests read the file, not a live session.
    fresh = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    builders = {
        "loop": sample_graphs.loop_graph,
        "fan": sample_graphs.fan_graph,
        "nested": sample_graphs.nested_graph,
        "forked": sample_graphs.pause_graph,
        "long": sample_graphs.pause_graph,
    }
    graphs = {thread: builders[thread](fresh) for thread in graphs}
    return path, graphs
