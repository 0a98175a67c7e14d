"""``playground run --server URL`` in Chromium, on a real ``langgraph dev`` serving examples/.

What a user of ``langgraph dev`` does in Studio, here locally and with no account: a chat that
streams, a pause before a node, a question answered, an edit forked on History and compared,
the server's store on Memory, and the conflict lesson Studio does not have (a 409, and what
``enqueue`` did). The key the server is given never reaches a page or the playground's log.
"""

from __future__ import annotations

import os

import pytest
from langgraph_sdk import get_sync_client

from playground.places.server_address import server_thread_id
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)
KEY = "lsv2_pt_never-on-a-page-0123456789abcdef"


@pytest.fixture(scope="module")
def studio(agent_server, tmp_path_factory):
    """The playground on the server, started with a key in LANGSMITH_API_KEY; (url, home)."""
    url, _ = agent_server
    home = tmp_path_factory.mktemp("studio")
    # rooms keep each test's threads apart on the one server
    with playground_server(home, "--workshop", "--server", url,
                           env={"LANGSMITH_API_KEY": KEY}) as site:
        yield site, home


def _tab(browser, studio, shots=None, path: str = "") -> ShotTab:
    context = browser.new_context(viewport={"width": 1400, "height": 1900})
    tab = ShotTab(context, f"{studio[0]}", shots)
    return tab.open(path or "?graph=support_chat")


def _answer(tab: ShotTab, text: str) -> None:
    before = tab.runs
    box = tab.page.get_by_label("Answer", exact=True).last
    box.fill(text)
    box.press("Control+Enter")
    tab._wait_for_run_after(before, "committing the answer")


def test_a_chat_on_the_server_asks_is_answered_and_finishes_in_chromium(studio, browser,
                                                                         shots):
    tab = _tab(browser, studio, shots)
    assert "support_chat on http://127.0.0.1:" in tab.text()
    tab.say("please refund order A17")
    assert "tools asks: Approve a refund of $40.00 for order A17?" in tab.text()
    _answer(tab, "yes")
    tab.click("Resume")
    assert "Finished." in tab.text()
    assert "Refunded $40.00 for order A17." in tab.text()
    tab.shot("agent-server-run")


def test_pause_before_a_node_then_continue_on_the_server_in_chromium(studio, browser):
    tab = _tab(browser, studio)
    tab.page.get_by_text("Breakpoints and settings").click()
    tab.choose("Pause before", "tools")
    tab.say("where is my order A17?")
    assert "Paused before tools." in tab.text()
    tab.click("Continue")
    assert "Finished." in tab.text()
    assert "Your order A17 is shipped with DHL." in tab.text()


def test_fork_with_edit_then_compare_on_history_in_chromium(studio, browser, shots):
    tab = _tab(browser, studio, shots)
    tab.say("please refund order A17")
    tab.open("history?graph=support_chat")
    before = tab.checkpoints()
    tab.click("Previous")
    tab.type_into("topic · Any", '"escalated"')  # a type the server does not say: JSON
    tab.click("Fork with edit")
    assert tab.checkpoints() > before
    assert "Forked #" in tab.text()
    tab.shot("agent-server-history")
    tab.segment("Compare")
    shown = tab.text()
    assert "Common ancestor: #" in shown and "First difference at step " in shown


def test_an_action_from_a_page_the_thread_moved_past_is_refused_in_chromium(
        studio, agent_server, browser):
    url, _ = agent_server
    tab = _tab(browser, studio)
    tab.say("hello")
    tab.open("history?graph=support_chat")
    drawn = tab.checkpoints()
    # Another client runs on the same thread behind the page's back.
    client = get_sync_client(url=url, api_key=None)
    thread = server_thread_id(f"{tab.room}/support_chat/thread-1")
    client.runs.wait(thread, "support_chat", input={"messages": [
        {"role": "user", "content": "where is A17"}]})
    tab.click("Replay from here")
    assert "Replay refused, nothing was run" in tab.text()
    assert tab.checkpoints() > drawn  # the page now shows what is there


def test_the_multitask_lesson_shows_a_409_and_what_enqueue_did_in_chromium(studio, browser,
                                                                          shots):
    tab = _tab(browser, studio, shots, "server_conflicts?graph=support_chat")
    tab.click("Play the second tab")
    shown = tab.text()
    assert "reject: second tab 409 Conflict; first run success, second run refused" in shown
    assert "the thread holds only the first tab's message: as langgraph dev does." in shown
    tab.segment("enqueue")
    tab.click("Play the second tab")
    shown = tab.text()
    assert "enqueue: second tab accepted; first run success, second run success" in shown
    assert "second tab: run B success" in shown
    tab.tree_point(9).wait_for()  # the enqueued thread's tree is drawn
    tab.shot("agent-server-conflicts")


def test_the_key_never_reaches_a_page_or_the_log_in_chromium(studio, browser):
    tab = _tab(browser, studio)
    tab.say("hello")
    pages = [tab.page.content()]
    for path in ("history", "memory", "inspect", "server_conflicts"):
        tab.open(f"{path}?graph=support_chat")
        pages.append(tab.page.content())
    assert all(KEY not in page for page in pages)
    log = (studio[1] / "playground.log").read_text()
    assert KEY not in log
    # the module's chats, forks and lessons drew nothing from a fragment's callback
    assert "fragment rerun was triggered with a callback" not in log


def test_history_of_a_thread_with_no_run_yet_is_the_empty_view_in_chromium(studio, browser):
    tab = _tab(browser, studio, path="history?graph=support_chat&thread=never-run")

    shown = tab.text()
    assert "has no checkpoints yet" in shown
    assert "could not be read" not in shown and "404" not in shown
