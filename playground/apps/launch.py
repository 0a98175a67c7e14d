"""Which app a process runs: the graph named on the command line, or the built-in agent.

``playground run --graph SPEC`` or ``--config langgraph.json [--graph-name NAME]`` chooses (a
config without a name serves every graph it lists, each with its own threads); the
choice travels to the Streamlit server in environment variables that only the person starting
it sets (a browser can never name code to run). Both the CLI and the server load it the same
way, so a spec that does not load is reported by the CLI before the server starts.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playground.apps.app import App
from playground.apps.builtin import ticket_agent
from playground.apps.config import AppConfig, read_config
from playground.apps.errors import AppLoadError
from playground.apps.loader import GraphSpec, load_graph, parse_spec, reload_graph
from playground.apps.state_fields import delta_reducers

SERVER_ENV = "PLAYGROUND_SERVER_URL"  # the same name playground.places.server_client reads
GRAPH_ENV = "PLAYGROUND_GRAPH"
CONFIG_ENV = "PLAYGROUND_GRAPH_CONFIG"
NAME_ENV = "PLAYGROUND_GRAPH_NAME"


@dataclass(frozen=True)
class AppChoice:
    """What the server was told to run: a spec, a langgraph.json (and a graph in it), or None."""

    graph: str | None = None
    config: str | None = None
    graph_name: str | None = None
    server: str | None = None  # an Agent Server's URL: its graphs, run there

    @property
    def several(self) -> bool:
        """True when a langgraph.json is served whole (no --graph-name): a Graph picker shows."""
        return bool(self.config) and not self.graph_name

    @property
    def builtin(self) -> bool:
        """True when nothing was named: the ticket agent runs."""
        return not (self.graph or self.config or self.server)

    def to_env(self) -> dict[str, str]:
        """The environment variables that carry this choice to the server process."""
        env = {}
        if self.server:
            env[SERVER_ENV] = self.server
        if self.graph:
            env[GRAPH_ENV] = self.graph
        if self.config:
            env[CONFIG_ENV] = str(Path(self.config).resolve())
        if self.graph_name:
            env[NAME_ENV] = self.graph_name
        return env


def choice_from_env() -> AppChoice:
    """The choice ``playground run`` put in this process's environment."""
    return AppChoice(os.environ.get(GRAPH_ENV) or None, os.environ.get(CONFIG_ENV) or None,
                     os.environ.get(NAME_ENV) or None, os.environ.get(SERVER_ENV) or None)


def _specs(choice: AppChoice) -> tuple[list[tuple[str, GraphSpec, str]], AppConfig | None]:
    """(name, spec, description) of each graph a user's choice names, and its config (whose env
    and folders are applied): every graph of a langgraph.json unless one is named."""
    if choice.config:
        config = read_config(choice.config)
        config.apply()
        names = [choice.graph_name] if choice.graph_name else list(config.graphs)
        found = []
        for name in names:
            name, spec = config.spec(name)
            found.append((name, spec, config.descriptions.get(name, "")))
        return found, config
    spec = parse_spec(choice.graph or "")
    return [(spec.default_name, spec, "")], None


def _folders(spec: GraphSpec, config: AppConfig | None) -> tuple[Path, ...]:
    """Where an app's own source files are: its config's folders, or its file's folder (or its
    module's package folder)."""
    if config is not None:
        return config.folders
    if spec.is_file:
        return (Path(spec.target).parent,)
    module = sys.modules.get(spec.target)
    file = getattr(module, "__file__", None)
    return (Path(file).parent,) if file else ()


def _app(name: str, spec: GraphSpec, description: str, config: AppConfig | None,
         graph) -> App:
    if config is not None and config.store:
        # A store section that cannot be honoured stops `playground run` here, in one line.
        from playground.apps.store_config import store_options

        store_options(config.store, config.path.parent)
    return App(name, spec.text, graph, description=description,
               store_config=config.store if config else None,
               warnings=config.warnings if config else (), folders=_folders(spec, config))


def load_apps(choice: AppChoice) -> dict[str, App]:
    """Every app a choice names, by name, in the config's order (the user's code is imported
    here): one for ``--graph``, each graph of a ``--config`` unless ``--graph-name`` picks one.

    Raises:
        AppLoadError: a spec or the config does not give a graph; one line.
    """
    if choice.builtin:
        agent = ticket_agent()
        return {agent.name: agent}
    if choice.server:
        from playground.apps.server_app import server_apps

        return server_apps(choice.server)
    found, config = _specs(choice)
    return {name: _app(name, spec, description, config, load_graph(spec))
            for name, spec, description in found}


def load_app(choice: AppChoice) -> App:
    """The first app a choice names (see :func:`load_apps`)."""
    return next(iter(load_apps(choice).values()))


def one_app(choice: AppChoice, used: str) -> App:
    """The one graph ``--graph``, or ``--config`` (with ``--graph-name`` when it lists
    several), names for a command that reads or runs it: ``playground mcp`` and the read
    commands. Its code is imported here, only because the person who typed the command named
    it; anything it prints goes to stderr (a command's stdout is its output, or MCP's
    protocol).

    Args:
        choice: what the command line named.
        used: what the graph is for, as a refusal of several says it ("the write tools run").

    Raises:
        AppLoadError: it does not load, or the langgraph.json lists several and none is named
            (one line).
    """
    with contextlib.redirect_stdout(sys.stderr):
        apps = load_apps(choice)
    if len(apps) > 1:
        names = ", ".join(apps)
        names = names if len(names) <= 200 else names[:199] + "…"
        raise AppLoadError(f"{choice.config} lists {len(apps)} graphs ({names}): name the one "
                           f"{used} with --graph-name")
    return next(iter(apps.values()))


def reading_reducers(choice: AppChoice) -> dict[str, Callable[..., Any] | str]:
    """The reducers of the DeltaChannels of the graph a read names (``--graph``, ``--config``),
    by state key, for ``Storage.reducers``: stored values then fold as the app folds them. None
    named: none (the engine folds what it can without running anything).

    Raises:
        AppLoadError: the graph does not load, or several are named (:func:`one_app`).
    """
    if not (choice.graph or choice.config):
        return {}
    return delta_reducers(one_app(choice, "whose reducers fold the values").template)


def reload_app(app: App, choice: AppChoice) -> App:
    """The same app with its module imported again (after the user edited it).

    Raises:
        AppLoadError: the edited code does not give a graph; the old app is still usable.
    """
    if app.builtin or app.runs_on_server:
        return app  # nothing of its code is here: the server reloads its own
    found, config = _specs(choice)
    for name, spec, description in found:
        if name == app.name:
            return _app(name, spec, description, config, reload_graph(spec, app.folders))
    raise AppLoadError(f"graph {app.name!r} is no longer in {choice.config}")
