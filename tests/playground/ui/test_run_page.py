"""Run page (AppTest): a user's graph run in the browser, paused, answered, forked, fixed."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from playground.ui.markup import md_escape
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
    assert rendered(at.title[0].value).endswith("Run")
    assert rendered(at.caption[0].value).startswith("Graph **support_chat**.")
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


def test_the_answer_to_a_question_stays_in_the_chat_after_resume(graph_app, ui):
    at = _say(graph_app(CHAT), "Please refund A17")
    ui.text_area(at, "Answer").input("yes")
    ui.button(at, "Resume").click().run()

    bubbles = [(m.name, " ".join(str(e.value) for e in m.children.values()
                                 if hasattr(e, "value")))
               for m in at.chat_message]
    answered = [n for n, (name, said) in enumerate(bubbles)
                if name == "user" and said.endswith(" yes")]
    assert len(answered) == 1, bubbles  # said once, as the person's own bubble
    said = bubbles[answered[0]][1]
    # what it answers (as escaped markdown: the question is the graph's text, never markup)
    assert md_escape("tools asks: Approve a refund of $40.00 for order A17?") in said
    # after the request it answered, before the result it led to
    assert "Please refund A17" in " ".join(s for _, s in bubbles[:answered[0]])
    assert md_escape("Refunded $40.00") in " ".join(s for _, s in bubbles[answered[0]:])


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


# -- the playground's own 412: an action from a stale view is refused ---------------------------


def _root_checkpoints() -> int:
    """The root graph's checkpoints in the test's database (one thread per test): what a
    refusal's ``#N`` counts, and what a refused action must not grow."""
    with sqlite3.connect(os.environ["PLAYGROUND_CHECKPOINTS"]) as conn:
        return conn.execute(
            "SELECT count(*) FROM checkpoints WHERE checkpoint_ns = ''").fetchone()[0]


def _second_tab(graph_app, first):
    """Another tab on the same room and thread as ``first``, on the Run page."""
    at = graph_app(CHAT, room=first.query_params["room"],
                   thread=first.query_params.get("thread", "thread-1"))
    assert not at.exception, at.exception
    return at


def _refusal(what: str, number: int, writer: str) -> str:
    return (f"{what} refused, nothing was run: the thread moved on since this page was drawn: "
            f"checkpoint #{number} is new, written by {writer}")


def test_resume_is_refused_when_another_tab_answered_the_question(graph_app, ui):
    first = _say(graph_app(CHAT), "Please refund A17")
    second = _second_tab(graph_app, first)
    assert "**Waiting for an answer.**" in ui.texts(second)

    ui.text_area(first, "Answer").input("yes")
    ui.button(first, "Resume").click().run()  # the first tab answers: the thread moves on
    moved = _root_checkpoints()
    ui.text_area(second, "Answer").input("no")
    ui.button(second, "Resume").click().run()

    assert not second.exception
    shown = ui.texts(second)
    assert _refusal("Resume", moved, "assistant") in shown
    assert _root_checkpoints() == moved  # nothing run, nothing written
    assert "declined" not in shown
    # the page draws the thread as it is now: the first tab's answer went through
    assert "**Finished.**" in shown and "Refunded $40.00 for order A17." in shown


def test_continue_is_refused_when_another_tab_ran_past_the_breakpoint(graph_app, ui):
    first = graph_app(CHAT)
    first.multiselect(key="run-before").set_value(["tools"]).run()
    _say(first, "Where is my order A17?")
    second = _second_tab(graph_app, first)
    assert "**Paused** before **tools**." in ui.texts(second)

    ui.button(first, "Continue").click().run()
    moved = _root_checkpoints()
    ui.button(second, "Continue").click().run()

    assert not second.exception
    shown = ui.texts(second)
    assert _refusal("Continue", moved, "assistant") in shown
    assert _root_checkpoints() == moved
    assert "**Finished.**" in shown and "Your order A17 is shipped with DHL." in shown


def test_new_message_is_refused_when_another_tab_moved_the_thread(graph_app, ui):
    first = _say(graph_app(CHAT), "Where is my order A17?")
    second = _second_tab(graph_app, first)

    _say(first, "Where is my order B22?")  # typed in the first tab: the thread moves on
    moved = _root_checkpoints()
    _say(second, "Please refund A17")  # typed against the conversation the second tab shows

    shown = ui.texts(second)
    assert _refusal("Message", moved, "assistant") in shown
    assert _root_checkpoints() == moved
    assert "Approve a refund" not in shown
    assert "Your order B22 is processing." in shown  # the conversation as it is now


@pytest.mark.parametrize(("what", "label"), [("Regenerate", "Regenerate"),
                                             ("Edit and fork", "Fork from here")])
def test_chat_action_is_refused_when_another_tab_moved_the_thread(graph_app, ui, what, label):
    first = _say(graph_app(CHAT), "Where is my order A17?")
    second = _second_tab(graph_app, first)

    _say(first, "Where is my order B22?")
    moved = _root_checkpoints()
    if label == "Fork from here":
        next(t for t in second.text_area if t.label == "Edited message").input("Refund A17")
    [b for b in second.button if b.label == label][-1].click().run()

    assert not second.exception
    shown = ui.texts(second)
    assert _refusal(what, moved, "assistant") in shown
    assert _root_checkpoints() == moved
    assert "Your order B22 is processing." in shown


def test_first_message_is_refused_when_another_tab_started_the_thread(graph_app, ui):
    first = graph_app(CHAT)
    second = _second_tab(graph_app, first)
    assert "give it its first input" in ui.texts(second)

    _say(first, "Where is my order A17?")
    moved = _root_checkpoints()
    _say(second, "Where is my order B22?")

    shown = ui.texts(second)
    assert _refusal("Message", moved, "assistant") in shown
    assert _root_checkpoints() == moved
    assert "Your order A17 is shipped with DHL." in shown


def test_a_tabs_own_actions_one_after_another_are_not_refused(graph_app, ui):
    at = _say(graph_app(CHAT), "Please refund A17")
    counts = [_root_checkpoints()]

    ui.text_area(at, "Answer").input("yes")
    ui.button(at, "Resume").click().run()
    counts.append(_root_checkpoints())
    _say(at, "Where is my order B22?")
    counts.append(_root_checkpoints())
    [b for b in at.button if b.label == "Regenerate"][-1].click().run()
    counts.append(_root_checkpoints())

    assert not at.exception
    assert "refused" not in ui.texts(at)
    assert counts == sorted(set(counts))  # each action ran and wrote its checkpoints
    assert "Your order B22 is processing." in ui.texts(at)


def test_stop_is_offered_only_while_a_run_streams(graph_app):
    at = graph_app(CHAT)
    assert "Stop" not in {b.label for b in at.button}  # a new thread: nothing runs

    _say(at, "Where is my order A17?")

    assert "Stop" not in {b.label for b in at.button}  # the run finished: nothing to stop


def test_the_run_page_has_one_thread_control_and_other_pages_keep_the_sidebars(graph_app):
    at = graph_app(CHAT)

    assert [s.label for s in at.selectbox if s.label == "Thread"] == ["Thread"]
    assert not [t for t in at.sidebar.text_input if t.label == "Thread"]
    at.switch_page("views/history.py").run()
    assert [t.label for t in at.sidebar.text_input if t.label == "Thread"] == ["Thread"]


def test_the_ticket_agents_graph_on_run_shows_its_pause_before_write(app):
    at = app()
    at.switch_page("views/run.py").run()

    assert not at.exception
    drawing = at.get("graphviz_chart")[0].proto.spec
    assert "pause before" in drawing and "write" in drawing


GREETER = '''
from typing import TypedDict

from langgraph.graph import START, StateGraph


class State(TypedDict, total=False):
    name: str | None
    greeting: str


def greet(state):
    return {"greeting": f"hello {state.get('name')!r}"}


builder = StateGraph(State)
builder.add_node("greet", greet)
builder.add_edge(START, "greet")
graph = builder.compile()
'''


@pytest.mark.parametrize(("typed", "null", "greeted"), [
    ('"Ana"', False, """hello '"Ana"'"""),  # text as typed: its quotes are the string's
    ("", True, "hello None"),
])
def test_null_sends_none_for_an_optional_str_input_and_text_is_the_string(
        graph_app, tmp_path, typed, null, greeted):
    path = tmp_path / "greeter.py"
    path.write_text(GREETER)
    at = graph_app(f"{path}:graph")
    assert at.text_input(key="run-in-name").label == "name · str | None"

    at.text_input(key="run-in-name").input(typed)
    if null:
        at.checkbox(key="run-in-name-null").check()
    at.button(key="FormSubmitter:run-input-Run").click().run()

    assert not at.exception
    assert json.loads(at.json[0].value)["greeting"] == greeted


def test_new_thread_is_kept_in_the_address_so_a_reload_opens_it(graph_app, ui):
    at = _say(graph_app(CHAT), "Where is my order A17?")
    ui.button(at, "New thread").click().run()

    assert at.query_params["thread"] == "thread-2"
    _say(at, "Please refund A17")
    assert at.session_state["thread_name"] == "thread-2"
    assert "Where is my order A17?" not in ui.texts(at)  # the new thread's own conversation
