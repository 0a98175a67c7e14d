"""``langgraph.json``: graphs as file paths, module paths and factories, env as a dict or a file,
dependencies on sys.path; each mistake named in one line."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from playground.apps.config import read_config
from playground.apps.launch import AppChoice, load_app, load_apps
from playground.apps.loader import AppLoadError
from tests.playground.apps import user_graphs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _write(folder: Path, data: dict) -> Path:
    path = folder / "langgraph.json"
    path.write_text(json.dumps(data))
    return path


def test_examples_config_names_both_graphs_and_loads_the_factory_one():
    app = load_app(AppChoice(config=str(EXAMPLES / "langgraph.json"), graph_name="research"))

    assert app.name == "research"
    assert app.description == "fan-out research with a loop"
    assert app.nodes == ["plan", "research", "review", "write"]
    assert os.environ["EXAMPLES_GREETING"] == "hello"


def test_module_path_graph_found_through_a_dependency_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    source = tmp_path / "src" / "shop"
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    user_graphs.write_flaky(source, name="agent.py")
    config = _write(tmp_path, {"dependencies": ["./src"], "graphs": {"shop": "shop.agent:graph"}})

    app = load_app(AppChoice(config=str(config)))

    assert app.name == "shop" and "shout" in app.nodes


def test_env_file_is_read_without_overriding_the_shell(tmp_path, monkeypatch):
    monkeypatch.setenv("ALREADY", "from the shell")
    monkeypatch.delenv("FROM_FILE", raising=False)
    (tmp_path / ".env").write_text("# settings\nexport FROM_FILE='yes'\nALREADY=from the file\n")
    user_graphs.write_flaky(tmp_path)
    config = read_config(_write(tmp_path, {"graphs": {"g": "./flaky.py:graph"}, "env": ".env"}))

    config.apply()

    assert os.environ["FROM_FILE"] == "yes" and os.environ["ALREADY"] == "from the shell"


def test_several_graphs_without_a_name_are_all_served():
    apps = load_apps(AppChoice(config=str(EXAMPLES / "langgraph.json")))

    assert list(apps) == ["support_chat", "research"]
    assert apps["research"].description == "fan-out research with a loop"


def test_a_missing_env_file_reads_as_empty_with_one_warning(tmp_path):
    (tmp_path / ".env.example").write_text("KEY=value\n")
    config = read_config(_write(tmp_path, {"graphs": {"g": "./a.py:g"}, "env": ".env"}))

    assert config.env == {}
    assert len(config.warnings) == 1
    assert ".env does not exist: read as empty (copy .env.example" in config.warnings[0]


def test_a_src_layout_dependency_puts_its_src_folder_on_the_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "src").mkdir()

    config = read_config(_write(tmp_path, {"graphs": {"g": "./src/x/a.py:g"},
                                           "dependencies": ["."]}))

    assert config.folders == (tmp_path.resolve(), (tmp_path / "src").resolve())


def test_the_store_section_is_kept_for_the_store(tmp_path):
    store = {"ttl": {"default_ttl": 60}}
    config = read_config(_write(tmp_path, {"graphs": {"g": "./a.py:g"}, "store": store}))

    assert config.store == store


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "'graphs' must map graph names to specs"),
        ({"graphs": {"g": 3}}, "graphs.g must be 'path/file.py:attr'"),
        ({"graphs": {"g": "./a.py:g"}, "env": 3}, "'env' must be an object"),
        ({"graphs": {"g": "./a.py:g"}, "dependencies": ["./nowhere"]}, "is not a folder"),
        ({"graphs": {"g": "./a.py:g"}, "store": ["ttl"]}, "'store' must be an object"),
    ],
)
def test_malformed_config_is_named_in_one_line(tmp_path, data, message):
    with pytest.raises(AppLoadError, match=message):
        read_config(_write(tmp_path, data))


def test_config_that_is_not_json_gives_line_and_column(tmp_path):
    (tmp_path / "langgraph.json").write_text('{"graphs": }')

    with pytest.raises(AppLoadError, match=r"not JSON \(line 1, column 12"):
        read_config(tmp_path / "langgraph.json")
