"""Run page (AppTest): a user's graph run in the browser, paused, answered, forked, fixed."""

from __future__ import annotations

import pytest

from tests.playground.apps import user_graphs
from tests.playground.ui.conftest import EXAMPLES, rendered

CHAT = f"{EXAMPLES}/support_chat.py:graph"
RESEARCH = f"{EXAMPLES}/research.py:graph"


def _say(at, text: str):
    at.chat_input(key="run-message").set_value(text).run()
    assert not at.exception, at.exception
    return at


def test_graph_server_opens_on_run_without_the_workshop_lessons(graph_app, ui):
    at = graph_app(CHAT)

    assert not at.exception
    assert rendered(at.title[0].value).endswith("Run · support_chat")
    assert "New thread" in ui.texts(at) and "give it its first input" in ui.texts(at)
    drawing = at.get("graphviz_chart")[0].proto.spec
    assert "cluster_triage" in drawing and '"triage/classify"' in drawing  # subgraph expanded
    assert {b.label for b in at.button}.isdisjoint({"Run turn", "Simulate concurrent edit"})


def test_chat_message_runs_to_the_question_and_answer_resume_finishes(graph_app, ui):
    at = _say(graph_app(CHAT), "Please refund A17")

    assert "**tools** asks: Approve a refund of $40.00 for order A17?" in ui.texts(at)
    assert "**Waiting for an answer.**" in ui.texts(at)
    ui.text_area(at, "Answer").input("yes")
    ui.button(at, "Resume").click().run()

    assert not at.exception
    assert "**Finished.**" in ui.texts(at)
    assert "Refunded $40.00 for order A17." in ui.texts(at)


def test_declined_answer_as_plain_text_reaches_the_tool(graph_app, ui):
    at = _say(graph_app(CHAT), "Please refund A17")

    ui.text_area(at, "Answer").input("no, not this one")
    ui.button(at, "Resume").click().run()

    assert "Refund of order A17 declined by the reviewer." in ui.texts(at)


def test_pause_before_stops_there_and_continue_goes_on(graph_app, ui):
    at = graph_app(CHAT)
    at.multiselect(key="run-before").set_value(["tools"]).run()

    _say(at, "Where is my order A17?")
    assert "**Paused** before **tools**." in ui.texts(at)
    ui.button(at, "Continue").click().run()

    assert "**Finished.**" in ui.texts(at)
    assert "Your order A17 is shipped with DHL." in ui.texts(at)


def test_edit_and_fork_grows_a_branch_that_history_shows(graph_app, ui):
    at = _say(graph_app(CHAT), "Where is my order A17?")
    edit = next(t for t in at.text_area if t.label == "Edited message")

    edit.input("Where is my order B22?")
    fork = next(b for b in at.button if b.label == "Fork from here")
    fork.click().run()
    assert not at.exception
    assert "Your order B22 is processing." in ui.texts(at)
    at.switch_page("views/history.py").run()

    assert not at.exception
    assert " · 2 branches · " in ui.texts(at)


def test_regenerate_reruns_the_assistant_on_a_new_branch(graph_app, ui):
    at = _say(graph_app(CHAT), "Where is my order A17?")

    regenerate = [b for b in at.button if b.label == "Regenerate"]
    regenerate[-1].click().run()
    at.switch_page("views/history.py").run()

    assert " · 2 branches · " in ui.texts(at)


def test_node_error_shows_the_traceback_and_retry_after_reload_finishes(graph_app, ui, tmp_path):
    path = user_graphs.write_flaky(tmp_path, broken=True, name="flaky_page.py")
    at = graph_app(f"{path}:graph")

    at.text_input(key="run-in-text").input(" hello ")
    at.button(key="FormSubmitter:run-input-Run").click().run()
    assert "**shout** failed: ValueError: shout is broken" in ui.texts(at)
    assert f'File "{path}"' in at.code[0].value
    user_graphs.write_flaky(tmp_path, broken=False, name="flaky_page.py")
    ui.button(at, "Reload graph").click().run()
    ui.button(at, "Retry").click().run()

    assert not at.exception
    assert "**Finished.**" in ui.texts(at)
    assert at.json[0].value and '"result": "HELLO"' in at.json[0].value.replace("'", '"')


def test_input_that_does_not_fit_the_schema_is_refused_before_the_run(graph_app, ui):
    at = graph_app(RESEARCH)

    at.text_input(key="run-in-rounds").input("two")
    at.button(key="FormSubmitter:run-input-Run").click().run()

    assert "Not run: rounds: not valid JSON" in ui.texts(at)
    assert "give it its first input" in ui.texts(at)


def test_research_graph_fans_out_loops_and_writes_its_report(graph_app, ui):
    at = graph_app(RESEARCH)

    at.text_input(key="run-in-topic").input("forks")
    at.button(key="FormSubmitter:run-input-Run").click().run()

    assert not at.exception
    assert "**Finished.**" in ui.texts(at)
    assert "Report on forks (2 rounds)" in at.json[0].value


@pytest.mark.parametrize("page", ["views/history.py", "views/sizes.py", "views/inspect.py",
                                  "views/start.py"])
def test_every_graph_page_renders_for_a_users_graph(graph_app, page):
    at = _say(graph_app(CHAT), "Where is my order A17?")

    at.switch_page(page).run()

    assert not at.exception and not at.error


def test_history_browses_a_subgraphs_namespace_and_acts_on_the_root_only(graph_app, ui):
    at = _say(graph_app(CHAT), "Where is my order A17?")
    at.switch_page("views/history.py").run()

    namespaces = at.selectbox(key="history-ns")
    assert namespaces.options[0] == "(root graph)" and "triage (subgraph" in namespaces.options[1]
    namespaces.select_index(1).run()

    assert not at.exception
    assert "Replay and fork start from the root graph's checkpoints" in ui.texts(at)
    assert not [b for b in at.button if b.label == "Replay from here"]
