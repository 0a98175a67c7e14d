"""AppTest fixtures: the playground app on temporary checkpoint and ticket files."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.playground.ui.browser import ARGS, CHROMIUM

APP = Path(__file__).resolve().parents[3] / "playground" / "ui" / "app.py"


@pytest.fixture
def app(tmp_path, monkeypatch):
    """A factory: ``app()`` returns a run AppTest on the Start page, in a fresh room.

    Settings reach the app through environment variables, as ``playground run`` passes them.
    The embedded API is a ``st.cache_resource`` shared by every AppTest in the process.
    """
    monkeypatch.setenv("PLAYGROUND_CHECKPOINTS", str(tmp_path / "checkpoints.sqlite"))
    monkeypatch.setenv("PLAYGROUND_TICKETS_DB", str(tmp_path.parent / "tickets.sqlite"))

    def make(**query: str) -> AppTest:
        at = AppTest.from_file(str(APP), default_timeout=60)
        for key, value in query.items():
            at.query_params[key] = value
        return at.run()

    return make


EXAMPLES = APP.parents[2] / "examples"


@pytest.fixture
def graph_app(app, monkeypatch):
    """A factory: ``graph_app(spec)`` is ``app()`` on a server started with ``--graph spec``."""

    def make(spec: str, **query: str) -> AppTest:
        monkeypatch.setenv("PLAYGROUND_GRAPH", spec)
        return app(**query)

    return make


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def compare_steps(at):
    """Compare's step-by-step table (the page also has the two branches' time and tokens)."""
    return next(frame.value for frame in at.dataframe if "paths" in frame.value.columns)


def rendered(markdown: str) -> str:
    """Markdown source as a reader sees it: backslash escapes (``md_escape``) resolved, and
    the invisible word joiners that keep a bare URL from becoming a link left out."""
    return _ESCAPED.sub(r"\1", markdown).replace("\u2060", "")


@pytest.fixture
def config_app(app, monkeypatch):
    """A factory: ``config_app(path)`` is ``app()`` on a server started with ``--config path``
    (every graph of the langgraph.json, or ``graph_name``'s)."""

    def make(config: str | Path, graph_name: str | None = None, **query: str) -> AppTest:
        monkeypatch.setenv("PLAYGROUND_GRAPH_CONFIG", str(config))
        if graph_name:
            monkeypatch.setenv("PLAYGROUND_GRAPH_NAME", graph_name)
        return app(**query)

    return make


class UiHelpers:
    """What tests look for on a page, by what a user sees."""

    @staticmethod
    def button(at: AppTest, label: str):
        """The button with this exact label (workshop scripts rely on labels)."""
        matches = [b for b in at.button if b.label == label]
        assert matches, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
        return matches[0]

    @staticmethod
    def text_area(at: AppTest, label: str):
        """The first text area with this exact label."""
        matches = [t for t in at.text_area if t.label == label]
        assert matches, f"no text area {label!r}; text areas: {[t.label for t in at.text_area]}"
        return matches[0]

    @staticmethod
    def timeline(at: AppTest) -> dict:
        """The data of the page's timeline drawing: its ``rows`` (one bar per step), ``lanes``,
        ``kinds`` and ``nodes`` (the table per node: ``columns`` and ``rows``)."""
        import json

        drawings = [element.proto for element in at.get("bidi_component")
                    if element.proto.component_name == "playground.timeline"]
        assert len(drawings) == 1, f"{len(drawings)} timelines on the page"
        return json.loads(drawings[0].json)

    @staticmethod
    def tree(at: AppTest, index: int = 0) -> tuple[dict, list[dict]]:
        """The data and rows of the page's ``index``-th history tree (one row per checkpoint,
        oldest first: ``node`` is what wrote it, ``tip`` its branch's label, ``kind`` its
        kind's name, ``id`` the checkpoint id...)."""
        import json

        from playground.ui.components.history_tree import ROW_FIELDS

        drawings = [element.proto for element in at.get("bidi_component")
                    if element.proto.component_name == "playground.history_tree"]
        assert len(drawings) > index, f"{len(drawings)} history tree(s) on the page"
        data = json.loads(drawings[index].json)
        rows = [dict(zip(ROW_FIELDS, row, strict=True)) for row in data["rows"]]
        for row in rows:
            row["kind"] = data["kinds"][row["kind"]][0]
        return data, rows

    @staticmethod
    def blocks(at: AppTest) -> str:
        """Every text block on the page (what text_block shows: a diff, a tool's result, the
        store's namespaces), joined."""
        return "\n".join(str(element.value) for element in at.text)

    @staticmethod
    def texts(at: AppTest) -> str:
        """Every message a user reads on the page (markdown, alerts, captions), joined."""
        parts = []
        for kind in ("markdown", "success", "error", "warning", "info", "caption"):
            parts += [rendered(str(element.value)) for element in getattr(at, kind)]
        return "\n".join(parts)


@pytest.fixture
def client_for():
    """A factory: the ticket API client of an AppTest's room, acting as ``actor``."""
    from playground.agent.client import TicketClient
    from playground.ui import resources

    clients = []

    def make(at: AppTest, actor: str = "test") -> TicketClient:
        client = TicketClient(resources.api_url(), tenant=f"room-{at.query_params['room']}",
                              actor=actor)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def ui() -> UiHelpers:
    """Helpers to find buttons and read texts."""
    return UiHelpers()


SHOTS_ENV = "PLAYGROUND_SCREENSHOTS"  # a folder to keep the browser tests' screenshots in


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where screenshots go: $PLAYGROUND_SCREENSHOTS if set, else a temporary folder."""
    folder = os.environ.get(SHOTS_ENV)
    return Path(folder) if folder else tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright, one per test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()
