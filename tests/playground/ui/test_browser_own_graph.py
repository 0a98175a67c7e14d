"""A user's graph in a real browser: ``playground run --graph`` on each example, in Chromium.

The support chat runs to its refund question, is answered and finishes; a ``Pause before``
breakpoint stops it and ``Continue`` goes on; ``Edit and fork`` grows a branch that History
draws. The research graph fans out and loops to its report. Screenshots of both are kept for
the README by ``make screenshots``.
"""

from __future__ import annotations

import os

import pytest

from tests.playground.apps import user_graphs
from tests.playground.ui.browser import ShotTab, chromium_missing, playground_server
from tests.playground.ui.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(
    chromium_missing() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (bash .ci/run installs it)",
)


@pytest.fixture(scope="module")
def chat_server(tmp_path_factory):
    with playground_server(tmp_path_factory.mktemp("chat"), "--workshop", "--graph",
                           f"{EXAMPLES}/support_chat.py:graph") as url:
        yield url


def _tab(browser, server, shots=None) -> ShotTab:
    context = browser.new_context(viewport={"width": 1400, "height": 1900})
    return ShotTab(context, server, shots).open()


def _fill(tab: ShotTab, label: str, text: str) -> None:
    """Type into a text area and commit it (Ctrl+Enter), waiting for the run that follows."""
    before = tab.runs
    box = tab.page.get_by_label(label, exact=True).last
    box.fill(text)
    box.press("Control+Enter")
    tab._wait_for_run_after(before, f"committing {label!r}")


def test_chat_question_answer_and_resume_in_chromium(chat_server, browser, shots):
    tab = _tab(browser, chat_server, shots)

    tab.say("Please refund A17")
    assert "tools asks: Approve a refund of $40.00 for order A17?" in tab.text()
    tab.shot("run-chat")
    _fill(tab, "Answer", "yes")
    tab.click("Resume")

    assert "Finished." in tab.text()
    assert "Refunded $40.00 for order A17." in tab.text()
    # the answer stays in the chat, in a bubble of its own under the question it answered
    answer = tab.page.locator('[data-testid="stChatMessage"]').filter(
        has_text="tools asks: Approve a refund of $40.00 for order A17?")
    assert answer.count() == 1 and answer.inner_text().strip().endswith("yes")


def test_the_support_chat_walked_as_a_newcomer_reads_one_page_at_a_time(browser, tmp_path):
    """Issue 29's walk of the debugger, at 1440 px and on a phone: after each action, no
    banner of the page before, no green box for a failure, no label cut short."""
    with playground_server(tmp_path, "--graph", f"{EXAMPLES}/support_chat.py:graph") as url:
        for width in (1440, 390):
            context = browser.new_context(viewport={"width": width, "height": 1900})
            tab = ShotTab(context, url).open()
            seen = tab.reads_as_one_page()
            tab.say("Please refund A17")
            seen = tab.reads_as_one_page()
            _fill(tab, "Answer", "yes")
            tab.click("Resume")
            assert "Refunded $40.00 for order A17." in tab.text()
            seen = tab.reads_as_one_page()
            for page in ("history", "memory", "sizes", "start", "run"):
                tab.open(page)
                assert "Traceback" not in tab.text()
                seen = tab.reads_as_one_page(seen)
            tab.open("history").click("Previous").click("Replay from here")
            seen = tab.reads_as_one_page(seen)
            tab.segment("Compare")
            seen = tab.reads_as_one_page()
            # a debugger on loopback: its Start page says what is open, with no tour and no
            # room, and the terminal command it gives shows the file's path as it is
            start = tab.open("start").text()
            assert "support_chat" in start and "Where to begin" in start
            assert "steps done" not in start and "Room code" not in start
            assert "checkpoints.sqlite --status failed" in start
            context.close()


def test_pause_before_then_continue_in_chromium(chat_server, browser):
    tab = _tab(browser, chat_server)
    tab.page.get_by_text("Breakpoints and settings").click()
    tab.choose("Pause before", "tools")

    tab.say("Where is my order A17?")
    assert "Paused before tools." in tab.text()
    tab.click("Continue")

    assert "Finished." in tab.text()
    assert "Your order A17 is shipped with DHL." in tab.text()


def test_edit_and_fork_grows_a_branch_history_draws_in_chromium(chat_server, browser, shots):
    tab = _tab(browser, chat_server)
    tab.say("Where is my order A17?")

    tab.page.get_by_role("button", name="Edit and fork").first.click()
    _fill(tab, "Edited message", "Where is my order B22?")
    if not tab.page.get_by_text("Fork from here").first.is_visible():  # the rerun closed it
        tab.page.get_by_role("button", name="Edit and fork").first.click()
    tab.click("Fork from here")
    assert "Your order B22 is processing." in tab.text()
    tab.open("history")

    assert " · 2 branches · " in tab.text()
    # The tree is drawn in the browser after the run has finished: wait for its newest row.
    tab.tree_point(tab.checkpoints()).wait_for()
    assert tab.checkpoints() >= 10


def test_research_graph_runs_to_its_report_in_chromium(browser, shots, tmp_path):
    with playground_server(tmp_path, "--graph", f"{EXAMPLES}/research.py:graph") as server:
        tab = _tab(browser, server, shots)
        tab.page.get_by_label("topic · str").fill("checkpoints")
        tab.click("Run")

        assert "Finished." in tab.text()
        assert "Report on checkpoints (2 rounds)" in tab.text()
        tab.shot("run-research")


def test_stop_ends_a_long_run_between_two_steps_in_chromium(browser, tmp_path):
    spec = f"{user_graphs.write_slow(tmp_path)}:graph"
    with playground_server(tmp_path, "--graph", spec) as server:
        tab = _tab(browser, server)
        tab.page.get_by_label("n · int").fill("0")
        tab.page.get_by_role("button", name="Run").click()
        tab.page.get_by_text("running tick").first.wait_for(timeout=60_000)
        tab.click("Stop")

        assert "Stopped: the thread keeps every step that finished" in tab.text()
        assert "Stopped in tick: Continue runs it on." in tab.text()  # where the run stopped
        tab.click("Continue")
        assert "Finished." in tab.text(), tab.text()


def test_rerun_on_fixed_code_then_export_as_test_in_chromium(browser, shots, tmp_path):
    """The debugging loop in a real browser: a thread, a change to the routing, Reload graph,
    Re-run on current code from the thread's first checkpoint (Compare opens where the new
    branch parts), then Export as test of the new branch: the downloaded file passes on the
    new code and fails, naming the step, when the change is undone."""
    import sqlite3

    from tests.playground.test_regression import pytest_in

    project = tmp_path / "project"
    project.mkdir()
    spec = f"{user_graphs.write_support(project)}:graph"
    with playground_server(tmp_path, "--graph", spec) as server:
        tab = _tab(browser, server, shots)
        tab.say("where is A17?")
        tab.say("and B22?")
        user_graphs.write_support(project, review=True)
        tab.click("Reload graph")
        with sqlite3.connect(tmp_path / "checkpoints.sqlite") as conn:
            first = conn.execute("SELECT min(checkpoint_id) FROM checkpoints WHERE "
                                 "checkpoint_ns = ''").fetchone()[0]
        before = tab.runs
        tab.page.goto(f"{server}/history?checkpoint={first}")  # a debugger: no room
        tab._wait_for_run_after(before, "opening History at the first checkpoint")
        assert "Checkpoint #1" in tab.text()

        tab.click("Re-run on current code")

        shown = tab.text()
        assert "Re-run on current code: played the recording to its end: finished" in shown
        assert ("First difference at step 3 after the common ancestor: only the right branch "
                "runs review") in shown
        tab.shot("rerun")
        tab.segment("Explore")
        with tab.page.expect_download() as download:
            tab.page.get_by_role("button", name="Export as test").click()
        exported = tmp_path / "test_exported.py"
        download.value.save_as(exported)

    passed = pytest_in(project, exported)
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout
    user_graphs.write_support(project, review=False)  # the change undone: a regression
    failed = pytest_in(project, exported)
    assert failed.returncode == 1, failed.stdout
    assert "First difference at step 3: only the recording runs review" in failed.stdout


def test_a_rerun_from_a_fork_point_reached_down_the_original_branch_reruns_the_original(
        browser, tmp_path):
    """The support chat forked with an edited message; the person clicks the original
    branch's tip and walks it down with Older to the fork point: the re-run panel names the
    original branch first, and the re-run plays the original, not the newer fork."""
    from contextlib import closing

    from playground.places.door import open_storage
    from playground.timetravel.tree import load_tree
    from playground.timetravel.tree_layout import tree_layout

    with playground_server(tmp_path, "--graph", f"{EXAMPLES}/support_chat.py:graph") as server:
        tab = _tab(browser, server)
        tab.say("Where is my order A17?")
        tab.page.get_by_role("button", name="Edit and fork").first.click()
        _fill(tab, "Edited message", "Where is my order B22?")
        if not tab.page.get_by_text("Fork from here").first.is_visible():
            tab.page.get_by_role("button", name="Edit and fork").first.click()
        tab.click("Fork from here")
        with closing(open_storage(tmp_path / "checkpoints.sqlite")) as storage:
            tree = load_tree(storage, "thread-1")  # a debugger keeps the id as it is
            original = next(b for b in tree_layout(storage, tree).branches
                            if b.origin == "original run")
            fork = next(b for b in tree_layout(storage, tree).branches
                        if b.origin != "original run")
        tip, fork_point = tree.ordinal(original.tip), tree.ordinal(fork.fork_point)
        assert tree.ordinal(tree.head) > tip  # the head is on the newer fork

        tab.open("history")
        tab.tree_point(tab.checkpoints()).wait_for()
        tab.click_tree(tip)
        for _ in range(len(tree.path_to(original.tip)) - len(tree.path_to(fork.fork_point))):
            tab.click("Older")
        assert f"Checkpoint #{fork_point}" in tab.text()
        assert f"the branch to #{tip} · finished · original run recorded" in tab.text()

        tab.click("Re-run on current code")

        shown = tab.text()
        assert "Re-run on current code: played the recording to its end" in shown
        assert f"left ends at #{tip} (finished)" in shown, shown[:3000]
