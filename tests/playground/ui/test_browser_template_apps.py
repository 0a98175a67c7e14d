"""Apps written as LangGraph's templates write them, in a real browser: ``playground run
--config langgraph.json`` on each template-style example, unchanged and with no ``.env``.

The async agent answers and its Context changes the answer; tokens stream onto the page while
the model writes; the memory chat's store shows on Memory with the run's writes; a
human-in-the-loop review is approved; an edit of a tool file reloads the graph; Stop ends an
async run between two steps; two tabs run async graphs at once. Screenshots of the context
form and of Memory are kept for the README by ``make screenshots``.
"""

from __future__ import annotations

import os
import re
import shutil

import pytest

from tests.playground.apps import user_graphs
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)

# The stand-in model waits this long between tokens, so the stream is there to be seen.
SLOW_TOKENS = {"STANDIN_TOKEN_DELAY": "0.12"}


def _tab(browser, server, shots=None) -> ShotTab:
    context = browser.new_context(viewport={"width": 1400, "height": 1900})
    return ShotTab(context, server, shots).open()


def _open_context(tab: ShotTab) -> None:
    """Open the Context expander, unless a rerun left it open."""
    field = tab.page.get_by_label("model", exact=True)
    if not field.is_visible():
        tab.page.get_by_text("Context", exact=True).click()
        field.wait_for(state="visible")


@pytest.fixture(scope="module")
def react_server(tmp_path_factory):
    with playground_server(tmp_path_factory.mktemp("react"), "--workshop", "--config",
                           str(EXAMPLES / "react_agent" / "langgraph.json"),
                           env=SLOW_TOKENS) as url:
        yield url


def test_async_agent_answers_and_a_context_change_changes_the_answer(react_server, browser,
                                                                      shots):
    tab = _tab(browser, react_server, shots)
    tab.say("Where can I park?")
    assert "Finished." in tab.text()
    assert "Parking is in the basement, level -2" in tab.text()

    _open_context(tab)
    tab.type_into("model", "stand-in/thorough")
    tab.shot("run-context")
    tab.click("New thread")
    _open_context(tab)
    tab.type_into("model", "stand-in/thorough")
    tab.say("When is lunch?")

    assert "From the handbook: (lunch) Lunch is served in the canteen" in tab.text()


def test_tokens_stream_onto_the_page_while_the_model_writes(react_server, browser):
    tab = _tab(browser, react_server)
    box = tab.page.get_by_placeholder("Message")
    box.fill("Where is the printer?")
    box.press("Enter")

    # The growing message ends in a cursor while tokens arrive: seen mid-run, not after it.
    tab.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')]"
        ".some(e => e.innerText.includes('printer') && e.innerText.trim().endsWith('▌'))",
        timeout=60_000)
    assert tab.page.locator('[data-testid="stApp"][data-test-script-state="running"]').count()
    tab.page.get_by_text("Finished.").first.wait_for(timeout=60_000)
    tab.page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]')
    assert "The printer on floor 2 needs your badge" in tab.text()
    assert "▌" not in tab.text()


def test_memory_chat_store_shows_on_memory_with_the_runs_writes(browser, shots, tmp_path):
    with playground_server(tmp_path, "--config",
                           str(EXAMPLES / "memory_chat" / "langgraph.json")) as server:
        tab = _tab(browser, server, shots)
        tab.say("my name is Ana")
        tab.say("remember that I like green tea")
        assert "Store writes of the last run: 1 added, 0 changed, 0 removed" in tab.text()
        assert '+ memories/anonymous/i-like-green-tea = {"fact": "I like green tea"}' in \
            tab.text()
        tab.open("memory")

        assert "memories\n  └ anonymous" in tab.text()
        tab.page.get_by_label("Item").click()  # the items of the namespace, by key
        listed = tab.page.locator('[role="option"]').all_inner_texts()
        tab.page.keyboard.press("Escape")
        assert sorted(listed) == ["i-like-green-tea", "name"]
        value = tab.page.get_by_label("Value (JSON object)").first.input_value()
        assert '"fact":' in value
        tab.shot("memory")


def test_human_review_is_approved_and_the_agent_sends_the_mail(browser, tmp_path):
    with playground_server(tmp_path, "--config",
                           str(EXAMPLES / "approval_agent" / "langgraph.json")) as server:
        tab = _tab(browser, server)
        tab.say("email carla about the budget")
        assert "Review send_email: Outgoing mail needs your approval" in tab.text()
        tab.click("Resume")  # Approve is the decision picked first

        assert "Done: I sent 'The budget' to carla@example.org." in tab.text()


def test_an_edit_of_a_tool_file_reloads_the_graph_and_the_page_says_so(browser, tmp_path):
    project = tmp_path / "react_agent"
    shutil.copytree(EXAMPLES / "react_agent", project)
    with playground_server(tmp_path, "--config", str(project / "langgraph.json")) as server:
        tab = _tab(browser, server)
        tab.say("Where can I park?")
        assert "Parking is in the basement" in tab.text()
        tools = project / "src" / "react_agent" / "tools.py"
        tools.write_text(tools.read_text().replace("basement, level -2", "courtyard"))
        tab.page.wait_for_timeout(1100)  # the server looks at the files once a second
        tab.open("")

        sidebar = tab.page.inner_text('[data-testid="stSidebar"]')
        assert "Graph reloaded at " in sidebar and ": tools.py changed." in sidebar
        tab.say("Where can I park now?")
        assert "Parking is in the courtyard" in tab.text()


def test_stop_ends_an_async_run_between_two_steps(browser, tmp_path):
    spec = f"{user_graphs.write_slow_async(tmp_path)}:graph"
    with playground_server(tmp_path, "--graph", spec) as server:
        tab = _tab(browser, server)
        tab.page.get_by_label("n · int").fill("0")
        tab.page.get_by_role("button", name="Run").click()
        tab.page.get_by_text("running tick").first.wait_for(timeout=60_000)
        tab.click("Stop")

        assert "Stopped: the thread keeps every step that finished" in tab.text()
        assert "Stopped in tick: Continue runs it on." in tab.text(), tab.text()[:1500]
        tab.click("Continue")
        # A Continue that lands while the stopped run's last step is still being written is
        # refused in words ("... refused, nothing was run" / "... not done"): the page then
        # shows where the thread stands, and a person clicks Continue again.
        said = tab.page.get_by_text(re.compile(r"Finished\.|refused, nothing was run|not done"))
        said.first.wait_for(timeout=60_000)
        if "Finished." not in tab.text():
            tab.click("Continue")
        # The rest of the run streams in (11 ticks of 0.4 s): wait for its end, as a person
        # watching the page would, rather than for the first run the click finished.
        tab.page.get_by_text("Finished.").first.wait_for(timeout=60_000)
        assert "Finished." in tab.text()


def test_two_tabs_run_async_graphs_at_once(browser, tmp_path):
    spec = f"{user_graphs.write_slow_async(tmp_path)}:graph"
    running = '[data-testid="stApp"][data-test-script-state="running"]'
    with playground_server(tmp_path, "--graph", spec) as server:
        first, second = _tab(browser, server), _tab(browser, server)
        # A debugger's tabs share its threads, as the app's would: the second works on one of
        # its own.
        second.click("New thread")
        for tab in (first, second):
            tab.page.get_by_label("n · int").fill("0")
        for tab in (first, second):
            tab.page.get_by_role("button", name="Run").click()
        # A run is 12 ticks of 0.4 s. Had the server run them one after the other, the
        # second tab would only start ticking once the first had finished.
        second.page.get_by_text("running tick").first.wait_for(timeout=60_000)
        assert first.page.locator(running).count() == 1, "the first run was over already"
        for tab in (first, second):
            tab.page.get_by_text("Finished.").first.wait_for(timeout=60_000)
