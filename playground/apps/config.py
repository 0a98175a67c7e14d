"""Read the ecosystem's ``langgraph.json``: which graphs an app has, its env, its folders.

The file LangGraph's own CLI reads::

    {"dependencies": ["."], "graphs": {"agent": "./src/agent.py:graph"}, "env": ".env"}

``graphs`` maps a name to ``"./path/file.py:attr"`` (a path, relative to the file's folder) or
``"package.module:attr"``, or to ``{"path": ..., "description": ...}``. ``env`` is a dict or
the path of a ``KEY=VALUE`` file; a missing file reads as empty, as ``langgraph dev`` reads it
(templates ship only ``.env.example``), with a warning. ``dependencies`` lists local folders (put
on ``sys.path``, and their ``src/`` when they are a src-layout project, as installing them
would) or packages (expected to be installed already). The config's own folder goes on
``sys.path``. ``store`` configures the long-term store a graph gets: ``ttl`` and ``index``
(:mod:`playground.apps.store_config` checks it).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from playground.apps.loader import AppLoadError, GraphSpec, parse_spec


@dataclass(frozen=True)
class AppConfig:
    """What a ``langgraph.json`` says.

    Attributes:
        path: the file.
        graphs: graph name -> spec text, in file order.
        descriptions: graph name -> description, where given.
        env: environment variables to set before the graph is imported.
        folders: local folders to put on ``sys.path`` (the config's folder first).
        store: the ``store`` section (``index``, ``ttl``), or None.
        warnings: what a person should know but that does not stop the app (a missing env file).
    """

    path: Path
    graphs: dict[str, str]
    descriptions: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    folders: tuple[Path, ...] = ()
    store: dict | None = None
    warnings: tuple[str, ...] = ()

    def spec(self, name: str | None = None) -> tuple[str, GraphSpec]:
        """The graph called ``name`` (the only one when there is one), and its spec.

        Raises:
            AppLoadError: no such graph, or several and none named.
        """
        if name is None:
            if len(self.graphs) != 1:
                raise AppLoadError(
                    f"{self.path} has {len(self.graphs)} graphs ({', '.join(self.graphs)}): "
                    "choose one with --graph-name"
                )
            name = next(iter(self.graphs))
        if name not in self.graphs:
            raise AppLoadError(
                f"{self.path} has no graph {name!r}; it has {', '.join(self.graphs)}"
            )
        return name, parse_spec(self.graphs[name], base=self.path.parent)

    def apply(self) -> None:
        """Set the env (without overriding what the shell set) and put the folders on sys.path."""
        for key, value in self.env.items():
            os.environ.setdefault(key, value)
        for folder in reversed(self.folders):
            if str(folder) not in sys.path:
                sys.path.insert(0, str(folder))


def parse_env_file(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines (``export`` and quotes allowed, ``#`` comments skipped).

    Raises:
        AppLoadError: the file cannot be read, or a line has no ``=``.
    """
    try:
        text = path.read_text()
    except OSError as exc:
        raise AppLoadError(f"env file {path}: {exc.strerror or exc}") from None
    env = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        if not sep or not key.strip():
            raise AppLoadError(f"env file {path}, line {number}: expected KEY=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        env[key.strip()] = value
    return env


def read_config(path: str | Path) -> AppConfig:
    """Read and check a ``langgraph.json``.

    Raises:
        AppLoadError: the file is missing, not JSON, or its graphs, env or dependencies are not
            of the shapes above; the message names the key.
    """
    path = Path(path).expanduser().resolve()
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise AppLoadError(f"{path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise AppLoadError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno}: "
                           f"{exc.msg})") from None
    if not isinstance(data, dict):
        raise AppLoadError(f"{path}: expected a JSON object with a 'graphs' key")
    raw_graphs = data.get("graphs")
    if not isinstance(raw_graphs, dict) or not raw_graphs:
        raise AppLoadError(f"{path}: 'graphs' must map graph names to specs "
                           '(for example {"agent": "./agent.py:graph"})')
    graphs, descriptions = {}, {}
    for name, entry in raw_graphs.items():
        if isinstance(entry, dict):
            spec, description = entry.get("path"), entry.get("description")
            if isinstance(description, str):
                descriptions[name] = description
        else:
            spec = entry
        if not isinstance(spec, str) or ":" not in spec:
            raise AppLoadError(f"{path}: graphs.{name} must be 'path/file.py:attr' or "
                               "'package.module:attr' (or an object with that as 'path')")
        graphs[name] = spec
    base = path.parent
    env_entry = data.get("env", {})
    warnings = []
    if isinstance(env_entry, str):
        env_path = base / env_entry
        if env_path.exists():
            env = parse_env_file(env_path)
        else:  # as `langgraph dev` (python-dotenv) reads it: empty
            env = {}
            example = env_path.with_name(env_path.name + ".example")
            warnings.append(f"env file {env_path} does not exist: read as empty"
                            + (f" (copy {example.name} to set its values)"
                               if example.exists() else ""))
    elif isinstance(env_entry, dict):
        env = {str(k): str(v) for k, v in env_entry.items()}
    else:
        raise AppLoadError(f"{path}: 'env' must be an object or the path of a .env file")
    dependencies = data.get("dependencies", [])
    if not isinstance(dependencies, list) or not all(isinstance(d, str) for d in dependencies):
        raise AppLoadError(f"{path}: 'dependencies' must be a list of folders or package names")
    folders = [base]
    for dependency in dependencies:
        # "." and "./src" are folders of this project; anything else names a package, which
        # must be installed in this virtualenv already.
        if dependency.startswith((".", "/")):
            folder = (base / dependency).resolve()
            if not folder.is_dir():
                raise AppLoadError(f"{path}: dependency {dependency!r} is not a folder")
            folders.append(folder)
            # A src-layout project (pyproject.toml beside src/): `langgraph dev` installs it,
            # which puts src/ on the path; the playground puts it there without installing.
            src = folder / "src"
            if src.is_dir() and any((folder / f).exists() for f in ("pyproject.toml",
                                                                     "setup.py")):
                folders.append(src)
    store = data.get("store")
    if store is not None and not isinstance(store, dict):
        raise AppLoadError(f"{path}: 'store' must be an object (with 'index' and/or 'ttl')")
    return AppConfig(path, graphs, descriptions, env, tuple(dict.fromkeys(folders)), store,
                     tuple(warnings))
