"""The lessons on a Postgres-backed server: checkpoints in PostgresSaver, the same pages.

Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it); skipped without it.
"""

from __future__ import annotations

import os

import pytest

from tests.playground.ui.conftest import UiHelpers

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set")


@pytest.fixture
def pg_app(app, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_DATABASE_URL", URL)
    return app


def test_schema_lesson_strands_and_repairs_a_thread_on_postgres(pg_app, ui):
    at = pg_app()
    at.switch_page("views/schema.py").run()

    for label in ("Pause a thread under etag", "Deploy the rename and resume",
                  "Preview the repair (dry run)", "Apply the repair",
                  "Resume with the version schema"):
        ui.button(at, label).click().run()
        assert not at.exception, (label, at.exception)

    assert "Repaired and written" in ui.texts(at)


def test_prune_on_a_postgres_backed_server_frees_bytes_and_keeps_the_head(pg_app, ui):
    at = pg_app()
    at.switch_page("views/agent.py").run()
    ui.button(at, "Run turn").click().run()
    ui.button(at, "Resume").click().run()
    ui.button(at, "Run turn").click().run()
    at.switch_page("views/sizes.py").run()

    ui.button(at, "Prune").click().run()

    assert not at.exception
    assert "Pruned" in ui.texts(at)
    at.switch_page("views/agent.py").run()
    ui.button(at, "Resume").click().run()
    assert 'priority is high at "v3"' in ui.texts(at)


def test_an_async_graph_with_a_store_runs_on_postgres_and_memory_lists_it(app, config_app,
                                                                          monkeypatch, ui):
    from tests.playground.ui.conftest import EXAMPLES

    # Its own database: the store's tables and log are shared by every test otherwise.
    from tests.postgres import throwaway_database

    with throwaway_database(URL) as url:
        monkeypatch.setenv("PLAYGROUND_DATABASE_URL", url)
        at = config_app(EXAMPLES / "memory_chat" / "langgraph.json")
        at.chat_input(key="run-message").set_value("remember that I like green tea").run()

        assert not at.exception, at.exception
        assert "Noted, I will remember that." in ui.texts(at)
        assert "Store writes of the last run**: 1 added" in ui.texts(at)
        at.switch_page("views/memory.py").run()
        assert "memories\n  └ anonymous" in UiHelpers.blocks(at)
        at.switch_page("views/history.py").run()
        assert not at.exception
