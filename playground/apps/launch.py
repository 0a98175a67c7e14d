"""Which app a process runs: the graph named on the command line, or the built-in agent.

``playground run --graph SPEC`` or ``--config langgraph.json [--graph-name NAME]`` chooses; the
choice travels to the Streamlit server in environment variables that only the person starting
it sets (a browser can never name code to run). Both the CLI and the server load it the same
way, so a spec that does not load is reported by the CLI before the server starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from playground.apps.app import App
from playground.apps.builtin import ticket_agent
from playground.apps.config import read_config
from playground.apps.loader import GraphSpec, load_graph, parse_spec, reload_graph

GRAPH_ENV = "PLAYGROUND_GRAPH"
CONFIG_ENV = "PLAYGROUND_GRAPH_CONFIG"
NAME_ENV = "PLAYGROUND_GRAPH_NAME"


@dataclass(frozen=True)
class AppChoice:
    """What the server was told to run: a spec, a langgraph.json (and a graph in it), or None."""

    graph: str | None = None
    config: str | None = None
    graph_name: str | None = None

    @property
    def builtin(self) -> bool:
        """True when nothing was named: the ticket agent runs."""
        return not (self.graph or self.config)

    def to_env(self) -> dict[str, str]:
        """The environment variables that carry this choice to the server process."""
        env = {}
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
                     os.environ.get(NAME_ENV) or None)


def _spec(choice: AppChoice) -> tuple[str, GraphSpec, str]:
    """(name, spec, description) of a user's graph; the config's env and folders applied."""
    if choice.config:
        config = read_config(choice.config)
        config.apply()
        name, spec = config.spec(choice.graph_name)
        return name, spec, config.descriptions.get(name, "")
    spec = parse_spec(choice.graph or "")
    return spec.default_name, spec, ""


def load_app(choice: AppChoice) -> App:
    """The app a choice names, loaded (the user's code is imported here).

    Raises:
        AppLoadError: the spec or config does not give a graph; one line.
    """
    if choice.builtin:
        return ticket_agent()
    name, spec, description = _spec(choice)
    return App(name, spec.text, load_graph(spec), description=description)


def reload_app(app: App, choice: AppChoice) -> App:
    """The same app with its module imported again (after the user edited it).

    Raises:
        AppLoadError: the edited code does not give a graph; the old app is still usable.
    """
    if app.builtin:
        return app
    name, spec, description = _spec(choice)
    return App(name, spec.text, reload_graph(spec), description=description)
