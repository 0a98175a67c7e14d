"""``playground run --server URL`` in Chromium on Aegra 0.11, a second real Agent Server: a chat
that asks and is answered, History's fork and subgraph namespace, and the multitask lesson saying
what Aegra did rather than what ``langgraph dev`` would have done."""

from __future__ import annotations

import os

import pytest

from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


@pytest.fixture(scope="module")
def site(aegra, tmp_path_factory):
    """The playground on Aegra; its URL."""
    url, _, _ = aegra
    # rooms keep each test's threads apart on the one server
    with playground_server(tmp_path_factory.mktemp("on-aegra"), "--workshop", "--server",
                           url) as served:
        yield served


def _tab(browser, site, shots=None, path: str = "?graph=support_chat") -> ShotTab:
    context = browser.new_context(viewport={"width": 1400, "height": 1900})
    return ShotTab(context, site, shots).open(path)


def test_a_chat_on_aegra_asks_is_answered_and_finishes_in_chromium(site, browser, shots):
    tab = _tab(browser, site, shots)
    tab.say("please refund order A17")
    assert "tools asks: Approve a refund of $40.00 for order A17?" in tab.text()
    before = tab.runs
    box = tab.page.get_by_label("Answer", exact=True).last
    box.fill("yes")
    box.press("Control+Enter")
    tab._wait_for_run_after(before, "committing the answer")
    tab.click("Resume")
    assert "Finished." in tab.text()
    assert "Refunded $40.00 for order A17." in tab.text()
    tab.shot("aegra-run")


def test_history_on_aegra_draws_a_fork_and_offers_the_subgraphs_namespace_in_chromium(
        site, browser):
    tab = _tab(browser, site)
    tab.say("please refund order A17")  # triage is a subgraph: a namespace of its own
    tab.open("history?graph=support_chat")
    before = tab.checkpoints()
    tab.click("Previous")
    tab.type_into("topic · Any", '"escalated"')  # a type the server does not say: JSON
    tab.click("Fork with edit")
    assert tab.checkpoints() > before and "Forked #" in tab.text()
    assert tab.page.locator(".ht-row .ht-tip:not(:empty)").count() == 2  # two branch tips
    tab.select("Namespace", "triage (subgraph")
    assert "classify" in tab.text()  # the subgraph's own node, in its own tree


def test_the_multitask_lesson_on_aegra_says_what_aegra_did_in_chromium(site, browser, shots):
    tab = _tab(browser, site, shots, "server_conflicts?graph=support_chat")
    tab.click("Play the second tab")  # reject
    shown = tab.text()
    assert "reject: second tab accepted; first run success, second run success" in shown
    assert "This server did otherwise." in shown
    assert "accepted the second run and ran both" in shown
    assert "langgraph dev would have answered 409 Conflict and run the first alone." in shown
    tab.shot("aegra-conflicts")
