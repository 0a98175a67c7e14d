"""Apps written as LangGraph's templates write them, run unchanged with their own langgraph.json
(AppTest): async nodes, Runtime context, the long-term store, create_agent with human review."""

from __future__ import annotations

import os
import shutil
import sys
import time

import pytest

from tests.playground.ui.conftest import EXAMPLES, UiHelpers, rendered

REACT = EXAMPLES / "react_agent" / "langgraph.json"
MEMORY = EXAMPLES / "memory_chat" / "langgraph.json"
APPROVAL = EXAMPLES / "approval_agent" / "langgraph.json"


def _say(at, text: str):
    at.chat_input(key="run-message").set_value(text).run()
    assert not at.exception, at.exception
    return at


def _last_ai(ui, at) -> str:
    return rendered(at.markdown[[m.value for m in at.markdown].index("**State**") - 1].value)


def _field(at, label: str):
    matches = [w for w in [*at.text_input, *at.text_area] if w.label == label]
    assert matches, f"no field {label!r}"
    return matches[0]


def test_async_react_agent_runs_to_its_answer_with_the_context_defaults(config_app, ui):
    at = _say(config_app(REACT), "Where can I park?")

    assert "**Finished.**" in ui.texts(at)
    assert 'search_handbook(query="Where can I park?")' in ui.texts(at)
    assert "Parking is in the basement, level -2" in ui.texts(at)
    assert "(handbook: parking)" in ui.texts(at)


def test_context_form_has_one_field_per_key_holding_the_schemas_default(config_app):
    at = config_app(REACT)

    assert "Context" in [e.label for e in at.expander]
    assert _field(at, "model").value == "stand-in/brief"
    assert _field(at, "max_search_results").value == "3"
    assert _field(at, "system_prompt").value.startswith("You answer colleagues' questions")


def test_changing_the_context_changes_the_answer(config_app, ui):
    at = config_app(REACT)
    _field(at, "model").input("stand-in/thorough")
    at.run()

    _say(at, "When is lunch and where is the printer?")

    assert "From the handbook: (lunch) Lunch is served in the canteen" in ui.texts(at)
    assert "(printer) The printer on floor 2" in ui.texts(at)


def test_a_context_value_of_the_wrong_type_is_refused_and_nothing_runs(config_app, ui):
    at = config_app(REACT)
    _field(at, "max_search_results").input("three")
    at.run()

    _say(at, "Where can I park?")

    assert "Not run: context: max_search_results: not valid JSON" in ui.texts(at)
    assert "give it its first input" in ui.texts(at)  # the thread is still empty


def test_the_context_is_remembered_per_thread_and_shown_on_history(config_app, ui):
    at = config_app(REACT)
    _field(at, "model").input("stand-in/thorough")
    at.run()
    _say(at, "Where can I park?")

    ui.button(at, "New thread").click().run()
    assert _field(at, "model").value == "stand-in/brief"  # a new thread starts from defaults
    at.selectbox(key="run-thread").select("thread-1").run()
    assert _field(at, "model").value == "stand-in/thorough"
    at.switch_page("views/history.py").run()

    assert not at.exception
    assert "Ran with max_search_results=3, model='stand-in/thorough'" in ui.texts(at)


def test_replay_on_history_runs_with_the_threads_context(config_app, ui):
    at = config_app(REACT)
    _field(at, "model").input("stand-in/thorough")
    at.run()
    _say(at, "Where can I park?")
    at.switch_page("views/history.py").run()

    ui.button(at, "Previous").click().run()
    ui.button(at, "Previous").click().run()
    ui.button(at, "Replay from here").click().run()

    assert not at.exception
    assert "Ran with max_search_results=3, model='stand-in/thorough'" in ui.texts(at)


def test_state_panel_shows_no_managed_or_internal_keys(config_app):
    at = _say(config_app(REACT), "Where can I park?")

    # the state's fields, and its As JSON viewer when it has any
    state = UiHelpers.blocks(at) + "".join(str(viewer.value) for viewer in at.json)
    assert "is_last_step" not in state and "__pregel" not in state and "branch:" not in state


def test_memory_chat_keeps_facts_in_the_store_and_run_shows_the_writes(config_app, ui):
    at = config_app(MEMORY)
    _say(at, "my name is Ana")
    _say(at, "remember that I like green tea")

    assert "Store writes of the last run**: 1 added, 0 changed, 0 removed" in ui.texts(at)
    assert '+ memories/anonymous/i-like-green-tea = {"fact": "I like green tea"}' in \
        UiHelpers.blocks(at)
    _say(at, "what do you know about me?")
    assert "Here is what I know about you: I like green tea; name: Ana." in ui.texts(at)


def test_memory_is_per_user_id_from_the_context(config_app, ui):
    at = config_app(MEMORY)
    _field(at, "user_id").input("ana")
    at.run()
    _say(at, "remember that I like green tea")
    ui.button(at, "New thread").click().run()
    _field(at, "user_id").input("ben")
    at.run()

    _say(at, "what do you know about me?")

    assert "I don't know anything about you yet." in ui.texts(at)


def test_memory_page_shows_the_namespaces_and_items_a_run_stored(config_app, ui):
    at = config_app(MEMORY)
    _field(at, "user_id").input("ana")
    at.run()
    _say(at, "my name is Ana")
    at.switch_page("views/memory.py").run()

    assert not at.exception
    assert "memories\n  └ ana" in UiHelpers.blocks(at)
    table = at.dataframe[0].value
    assert list(table["key"]) == ["name"]
    assert '"fact": "name: Ana"' in table["value"][0]


def test_memory_page_edits_an_item_after_checking_it_is_a_json_object(config_app, ui):
    at = config_app(MEMORY)
    _say(at, "my name is Ana")
    at.switch_page("views/memory.py").run()

    ui.text_area(at, "Value (JSON object)").input("[1, 2]")
    ui.button(at, "Save item").click().run()
    assert "Not saved, nothing was written: expected a JSON object" in ui.texts(at)
    ui.text_area(at, "Value (JSON object)").input('{"fact": "name: Anna"}')
    ui.button(at, "Save item").click().run()

    assert '"fact": "name: Anna"' in at.dataframe[0].value["value"][0]


def test_memory_page_deletes_an_item(config_app, ui):
    at = config_app(MEMORY)
    _say(at, "my name is Ana")
    at.switch_page("views/memory.py").run()

    ui.button(at, "Delete item").click().run()

    assert "Deleted memories/anonymous/name." in ui.texts(at)
    assert "store is empty: no run has written to it" in ui.texts(at)


def test_history_shows_what_a_step_wrote_to_the_store(config_app, ui):
    at = config_app(MEMORY)
    _say(at, "remember that I like green tea")
    at.switch_page("views/history.py").run()
    for _ in range(1):  # the head is chat's checkpoint; one back is remember's
        ui.button(at, "Previous").click().run()

    assert "This step wrote to the store**: 1 added" in ui.texts(at)


def test_create_agent_review_offers_approve_edit_reject_and_edit_sends_the_edited_call(
        config_app, ui):
    at = _say(config_app(APPROVAL), "email ana about the launch")

    assert "Review **send_email**: Outgoing mail needs your approval" in ui.texts(at)
    decision = at.radio(key="run-answer-" + _first_interrupt_key(at))
    assert decision.options == ["Approve", "Edit", "Reject"]
    decision.set_value("edit").run()
    args = ui.text_area(at, "Edited arguments (JSON)")
    args.input('{"to": "ana@example.org", "subject": "Launch moved", "body": "Friday now."}')
    ui.button(at, "Resume").click().run()

    assert not at.exception
    assert "Done: I sent 'Launch moved' to ana@example.org." in ui.texts(at)


def test_create_agent_review_reject_tells_the_model_and_sends_nothing(config_app, ui):
    at = _say(config_app(APPROVAL), "email ben about lunch")

    at.radio(key="run-answer-" + _first_interrupt_key(at)).set_value("reject").run()
    ui.button(at, "Resume").click().run()

    assert not at.exception
    assert "I did not send anything" in ui.texts(at)


def _first_interrupt_key(at) -> str:
    key = next(r.key for r in at.radio if r.key.startswith("run-answer-"))
    return key.removeprefix("run-answer-")


def test_node_interrupt_is_a_pause_the_page_edits_past(graph_app, ui, tmp_path):
    (tmp_path / "guarded.py").write_text(
        "from typing import TypedDict\n"
        "from langgraph.errors import NodeInterrupt\n"
        "from langgraph.graph import START, StateGraph\n"
        "class State(TypedDict, total=False):\n    text: str\n    out: str\n"
        "def check(state: State) -> dict:\n"
        "    if len(state['text']) > 5:\n"
        "        raise NodeInterrupt(f\"text too long: {len(state['text'])} characters\")\n"
        "    return {'out': state['text'].upper()}\n"
        "builder = StateGraph(State)\nbuilder.add_node(check)\nbuilder.add_edge(START, 'check')\n"
        "graph = builder.compile()\n")
    at = graph_app(f"{tmp_path}/guarded.py:graph")
    at.text_input(key="run-in-text").input("much too long")
    at.button(key="FormSubmitter:run-input-Run").click().run()

    assert "**check** paused the run: text too long: 13 characters." in ui.texts(at)
    assert not [t for t in at.text_area if t.label == "Answer"]  # an answer would be a dead end
    ui.text_area(at, "State changes (JSON)").input('{"text": "short"}')
    at.button(key="FormSubmitter:run-held-Apply edit").click().run()
    assert "**Paused** before **check**." in ui.texts(at)
    ui.button(at, "Continue").click().run()

    assert "**Finished.**" in ui.texts(at)
    assert '"out": "SHORT"' in at.json[0].value.replace("'", '"')


def test_a_langgraph_json_with_several_graphs_serves_them_behind_a_graph_picker(config_app, ui):
    at = config_app(EXAMPLES / "langgraph.json")

    picker = at.selectbox(key="graph-picker")
    assert picker.options == ["support_chat", "research"]
    assert rendered(at.title[0].value).endswith("Run")
    assert rendered(at.caption[0].value).startswith("Graph **support_chat**.")
    _say(at, "Where is my order A17?")
    picker.select("research").run()

    assert rendered(at.title[0].value).endswith("Run")
    assert rendered(at.caption[0].value).startswith("Graph **research**.")
    assert "give it its first input" in ui.texts(at)  # research has threads of its own
    at.selectbox(key="graph-picker").select("support_chat").run()
    assert "Your order A17 is shipped with DHL." in ui.texts(at)


def _forget_package(name: str) -> None:
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module]


@pytest.fixture
def editable_chat(tmp_path):
    """A copy of the react_agent example, to edit like its author would. Its package is
    imported afresh from the copy (other tests imported the original in this process)."""
    project = tmp_path / "react_agent"
    shutil.copytree(EXAMPLES / "react_agent", project)
    _forget_package("react_agent")
    yield project
    _forget_package("react_agent")


def test_editing_a_tool_file_reloads_the_graph_and_the_page_says_so(config_app, ui,
                                                                     editable_chat):
    at = _say(config_app(editable_chat / "langgraph.json"), "Where can I park?")
    assert "Parking is in the basement" in ui.texts(at)
    tools = editable_chat / "src" / "react_agent" / "tools.py"
    tools.write_text(tools.read_text().replace("basement, level -2", "courtyard"))
    later = time.time() + 5
    os.utime(tools, (later, later))  # a new mtime even within the clock's resolution
    from playground.ui import resources
    resources._app_holder(resources.choice_from_env())["checked"] = 0.0  # look now

    at.run()
    assert ": tools.py changed." in ui.texts(at)
    assert "Graph reloaded at " in ui.texts(at)
    _say(at, "Where can I park again?")

    assert "Parking is in the courtyard" in ui.texts(at)


def test_a_thread_waiting_at_a_removed_node_is_flagged_with_a_fork_that_fits(config_app, ui,
                                                                           editable_chat):
    at = config_app(editable_chat / "langgraph.json")
    at.multiselect(key="run-before").set_value(["tools"]).run()
    _say(at, "Where can I park?")
    assert "**Paused** before **tools**." in ui.texts(at)
    graph_file = editable_chat / "src" / "react_agent" / "graph.py"
    graph_file.write_text(graph_file.read_text()
                          .replace('builder.add_node("tools", ToolNode(TOOLS))\n',
                                   'builder.add_node("lookup", ToolNode(TOOLS))\n')
                          .replace('builder.add_edge("tools", "call_model")',
                                   'builder.add_edge("lookup", "call_model")')
                          .replace('return "tools" if', 'return "lookup" if')
                          .replace('Literal["__end__", "tools"]', 'Literal["__end__", "lookup"]'))
    at.multiselect(key="run-before").set_value([]).run()
    ui.button(at, "Reload graph").click().run()

    assert "This thread waits at **tools**, which the graph no longer has" in ui.texts(at)
    assert not [b for b in at.button if b.label == "Continue"]
    at.switch_page("views/history.py").run()
    assert "This thread waits at **tools**, which the graph no longer has" in ui.texts(at)
    at.switch_page("views/run.py").run()
    fork = next(b for b in at.button if b.label.startswith("Fork from #"))
    fork.click().run()

    assert not at.exception
    assert "**Finished.**" in ui.texts(at)
    assert "Parking is in the basement" in ui.texts(at)


CONFIGURED = '''\
"""An app in the older style: a Configuration read from config["configurable"]."""
from dataclasses import dataclass, fields
from typing import TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph


@dataclass(kw_only=True)
class Configuration:
    greeting: str = "Hello"
    times: int = 1

    @classmethod
    def from_runnable_config(cls, config: RunnableConfig | None = None) -> "Configuration":
        configurable = (config or {}).get("configurable") or {}
        return cls(**{f.name: configurable[f.name] for f in fields(cls) if f.name in configurable})


class State(TypedDict, total=False):
    name: str
    text: str


def greet(state: State, config: RunnableConfig) -> dict:
    settings = Configuration.from_runnable_config(config)
    return {"text": " ".join([f"{settings.greeting}, {state['name']}!"] * settings.times)}


builder = StateGraph(State, config_schema=Configuration)
builder.add_node(greet)
builder.add_edge(START, "greet")
graph = builder.compile()
'''


def test_a_configuration_app_gets_a_configurable_form_whose_values_reach_the_graph(
        graph_app, ui, tmp_path):
    (tmp_path / "configured.py").write_text(CONFIGURED)
    at = graph_app(f"{tmp_path}/configured.py:graph")

    assert "Configurable" in [e.label for e in at.expander]
    _field(at, "greeting").input("Good morning")
    _field(at, "times").input("2")
    at.run()
    at.text_input(key="run-in-name").input("Ana")
    at.button(key="FormSubmitter:run-input-Run").click().run()

    assert not at.exception
    assert '"text": "Good morning, Ana! Good morning, Ana!"' in at.json[0].value.replace("'", '"')
