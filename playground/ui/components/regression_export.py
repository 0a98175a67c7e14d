"""History's **Export as test**: the selected checkpoint's branch as a pytest file to download.

The file is :func:`playground.timetravel.regression_file.regression_test`'s; this names the
graph the way the server was started (``--graph SPEC``, or ``--config FILE`` and the graph's
name, as typed, relative to the folder ``playground run`` ran in, which is where the test is
meant to run) and builds the file only when the button is clicked.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from playground.apps.app import App
from playground.apps.launch import AppChoice
from playground.places.door import open_storage
from playground.runtime.driven import RunSettings
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.regression_file import refused_test, regression_test
from playground.timetravel.tree import load_tree

EXPORT_AS_TEST = "Export as test"


def graph_named(app: App, choice: AppChoice) -> dict[str, str]:
    """How the exported test loads the app's graph: the spec or the config the server got
    (the built-in ticket agent by its name: the test starts the bundled ticket API)."""
    if app.builtin:
        return {"builtin": app.name}
    if choice.config:
        config = Path(choice.config)
        try:
            shown = os.path.relpath(config, Path.cwd())
        except ValueError:  # another drive
            shown = str(config)
        return {"config": shown if not shown.startswith("..") else str(config),
                "graph_name": app.name}
    return {"graph": choice.graph or app.spec}


def settings_data(settings: RunSettings) -> dict:
    """The thread's context or configurable values, as the file holds them."""
    found: dict = {}
    if settings.context is not None:
        found["context"] = dict(settings.context)
    if settings.configurable:
        found["configurable"] = dict(settings.configurable)
    return found


def export_test_button(target: str, thread_id: str, checkpoint: str, ordinal: int,
                       file_stem: str, app: App, choice: AppChoice, settings: RunSettings,
                       key: str) -> None:
    """The button; the branch from the thread's first input to ``checkpoint`` is read when
    it is clicked, from a connection of its own."""
    graph = graph_named(app, choice)

    def build() -> str:
        try:
            storage = open_storage(target)
            try:
                tree = load_tree(storage, thread_id)
                return regression_test(storage, tree, checkpoint, graph,
                                       settings_data(settings))
            finally:
                storage.close()
        except (CheckpointDbError, ValueError) as exc:
            # Built after the page was sent: the file itself says why.
            return refused_test(f"not exported: {exc}")

    safe = "".join(c if c.isalnum() else "_" for c in file_stem).strip("_") or "thread"
    st.download_button(EXPORT_AS_TEST, data=build, file_name=f"test_{safe}_{ordinal}.py",
                       mime="text/x-python", icon=":material/science:", key=key,
                       on_click="ignore",
                       help="This checkpoint's branch, from the thread's first input, as a "
                       "pytest file: it replays the inputs and answers with the model's replies "
                       "and the tools' results from the recording it holds, and checks the "
                       "nodes and the final state. "
                       "Run it with pytest where `playground run` was started.")
