"""Loading a user's graph from a spec: files, modules, StateGraphs, factories, and every failure
as one line (``playground run`` exits 2 with it before anything is written)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.pregel import Pregel

from playground.apps.loader import AppLoadError, load_graph, parse_spec, reload_graph
from tests.playground.apps import user_graphs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_file_spec_gives_the_compiled_graph():
    graph = load_graph(parse_spec(f"{EXAMPLES}/support_chat.py:graph"))

    assert isinstance(graph, Pregel)
    assert {"triage", "assistant", "tools"} <= set(graph.nodes)


def test_uncompiled_state_graph_is_compiled(tmp_path):
    graph = load_graph(parse_spec(f"{user_graphs.write_loop(tmp_path)}:graph"))

    assert isinstance(graph, Pregel) and "spin" in graph.nodes


def test_factory_without_a_config_argument_is_called_with_nothing():
    graph = load_graph(parse_spec(f"{EXAMPLES}/research.py:build_graph"))

    assert "research" in graph.nodes


def test_factory_taking_a_config_gets_one(tmp_path):
    (tmp_path / "made.py").write_text(
        "from langgraph.graph import StateGraph, START\n"
        "from typing import TypedDict\n"
        "class S(TypedDict):\n    x: int\n"
        "seen = []\n"
        "def make(config):\n"
        "    seen.append(config)\n"
        "    b = StateGraph(S); b.add_node('a', lambda s: s); b.add_edge(START, 'a')\n"
        "    return b\n"
    )

    graph = load_graph(parse_spec(f"{tmp_path}/made.py:make"))

    assert "a" in graph.nodes
    assert sys.modules["made"].seen == [{"configurable": {}}]


def _module_of(path: Path):
    return next(m for m in list(sys.modules.values())
                if getattr(m, "__file__", None) and Path(m.__file__).resolve() == path.resolve())


def test_async_factory_is_awaited_and_its_graph_runs(tmp_path):
    from playground.runtime.driven import driven

    path = user_graphs.write_async_factories(tmp_path)

    graph = load_graph(parse_spec(f"{path}:make_graph"))

    assert _module_of(path).events == ["made"]
    assert driven(graph).invoke({"text": "hi"}) == {"text": "hi!"}


def test_async_context_manager_is_held_open_until_a_reload_replaces_it(tmp_path):
    path = user_graphs.write_async_factories(tmp_path)
    spec = parse_spec(f"{path}:with_resources")

    graph = load_graph(spec)
    first = _module_of(path)
    assert "echo" in graph.nodes
    assert first.events == ["opened"]

    reload_graph(spec)

    assert first.events == ["opened", "closed"]  # the old graph's resources were released
    assert _module_of(path).events == ["opened"]  # the new one holds its own


def test_sync_context_manager_yielding_a_state_graph_is_entered_and_compiled(tmp_path):
    path = user_graphs.write_async_factories(tmp_path)

    graph = load_graph(parse_spec(f"{path}:with_sync_resources"))

    assert isinstance(graph, Pregel) and "echo" in graph.nodes
    assert _module_of(path).events == ["sync opened"]


def test_module_spec_imports_from_sys_path(tmp_path, monkeypatch):
    package = tmp_path / "myapp"
    package.mkdir()
    (package / "__init__.py").write_text("")
    user_graphs.write_flaky(package, name="agent.py")
    monkeypatch.syspath_prepend(str(tmp_path))

    graph = load_graph(parse_spec("myapp.agent:graph"))

    assert "shout" in graph.nodes


def test_reload_imports_the_edited_file(tmp_path):
    path = user_graphs.write_flaky(tmp_path, broken=True, name="editable.py")
    spec = parse_spec(f"{path}:graph")
    load_graph(spec)
    assert sys.modules["editable"].BROKEN is True

    user_graphs.write_flaky(tmp_path, broken=False, name="editable.py")
    reload_graph(spec)

    assert sys.modules["editable"].BROKEN is False


BAD_SPECS = [
    ("missing.py:graph", "missing.py: no such file"),
    ("no_colon", "is not a graph spec"),
    ("not_a_module_anywhere:graph", "no module named 'not_a_module_anywhere'"),
    ("{tmp}/syntax.py:graph", "syntax.py: syntax error at {tmp}/syntax.py, line 2"),
    ("{tmp}/raises.py:graph", "importing it raised RuntimeError: no database here"),
    ("{tmp}/flaky.py:grph", "has no attribute 'grph' (it has: builder, graph, prepare, shout)"),
    ("{tmp}/flaky.py:State", "State is a _TypedDictMeta, not a LangGraph graph"),
    ("{tmp}/factory.py:make", "the factory make() raised KeyError: 'OPENAI_API_KEY'"),
    ("{tmp}/factory.py:three", "three() takes 3 arguments"),
]


@pytest.fixture
def bad_files(tmp_path) -> Path:
    (tmp_path / "syntax.py").write_text("x = 1\ndef broken(:\n")
    (tmp_path / "raises.py").write_text("raise RuntimeError('no database here')\n")
    (tmp_path / "factory.py").write_text(
        "import os\n"
        "def make(config):\n    return os.environ['OPENAI_API_KEY']\n"
        "def three(a, b, c):\n    pass\n"
    )
    user_graphs.write_flaky(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS, ids=[m for _, m in BAD_SPECS])
def test_bad_spec_is_one_line_naming_what_and_why(bad_files, spec, message):
    with pytest.raises(AppLoadError) as caught:
        load_graph(parse_spec(spec.format(tmp=bad_files), base=bad_files))

    assert message.format(tmp=bad_files) in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS[:4] + BAD_SPECS[6:7],
                         ids=[m for _, m in BAD_SPECS[:4] + BAD_SPECS[6:7]])
def test_playground_run_exits_2_on_a_bad_spec_and_writes_nothing(bad_files, spec, message):
    before = sorted(p.name for p in bad_files.iterdir())

    result = subprocess.run(
        [sys.executable, "-m", "playground.cli", "run", "--graph", spec.format(tmp=bad_files)],
        capture_output=True, text=True, timeout=120, cwd=bad_files,
    )

    assert result.returncode == 2
    assert result.stderr.startswith("playground run: ") and result.stderr.count("\n") == 1
    assert message.format(tmp=bad_files) in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in bad_files.iterdir() if p.name != "__pycache__") == before
