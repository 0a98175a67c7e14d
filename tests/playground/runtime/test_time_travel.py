"""Tests of the runtime's time-travel commands on real SQLite savers: edit_state (update_state
or nothing), replay_from and fork_with_edit (the branches they add), fork_from_form (History's
form) and resume_thread (any app's paused thread, told in general words)."""

from __future__ import annotations

from typing import TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from playground.agent.graph import build_agent
from playground.apps.state_fields import EditRefused, state_fields
from playground.runtime.driven import driven
from playground.runtime.time_travel import (
    edit_state,
    fork_from_form,
    fork_with_edit,
    form_changes,
    form_field,
    replay_from,
    resume_thread,
)
from tests.playground.timetravel.sample_graphs import (
    config,
    fan_graph,
    loop_graph,
    make_fan,
    make_loop,
    make_nested,
    pause_graph,
)

MISSING_ID = "1f000000-0000-6000-8000-000000000000"


@pytest.fixture
def agent(saver):
    # No client: these tests only call update_state, which runs no node (a conditional edge's
    # route function does run, and the agent's reads state only).
    return build_agent(None, saver)


def count(saver: SqliteSaver) -> int:
    return len(list(saver.list(None)))


def checkpoint_id(cfg: RunnableConfig) -> str:
    return cfg["configurable"]["checkpoint_id"]


def history(graph, thread_id: str) -> dict:
    """The thread's root checkpoints by id."""
    return {checkpoint_id(s.config): s for s in graph.get_state_history(config(thread_id))}


def parent_id(snapshot) -> str | None:
    return checkpoint_id(snapshot.parent_config) if snapshot.parent_config else None


def paused_pause_thread(saver: SqliteSaver, thread_id: str = "p"):
    graph = pause_graph(saver)
    graph.invoke({"ticket": "t7"}, config(thread_id))
    return graph, graph.get_state(config(thread_id)).config


def finished_pause_thread(saver: SqliteSaver, thread_id: str = "p"):
    """read -> plan -> pause -> resume -> write: a finished main line."""
    graph = pause_graph(saver)
    graph.invoke({"ticket": "t7"}, config(thread_id))
    graph.invoke(None, config(thread_id))
    return graph


def after(graph, thread_id: str, next_nodes: tuple[str, ...]):
    """The oldest checkpoint of the thread whose next nodes are ``next_nodes``."""
    return next(
        s
        for s in reversed(list(graph.get_state_history(config(thread_id))))
        if s.next == next_nodes
    )


def assert_branch(graph, thread_id: str, result, replayed_id: str) -> None:
    """The new ids form one chain from the replayed checkpoint to the head."""
    tree = history(graph, thread_id)
    expected_parent = replayed_id
    for new_id in result.new_checkpoint_ids:
        assert parent_id(tree[new_id]) == expected_parent
        expected_parent = new_id
    assert result.new_checkpoint_ids[-1] == checkpoint_id(result.head_config)


# --- edit_state -------------------------------------------------------------------------------


def test_edit_with_unknown_key_is_refused_and_writes_no_checkpoint(saver, agent) -> None:
    edit_state(agent, config("t"), {"ticket_id": "t7"}, as_node="read")
    before = count(saver)

    with pytest.raises(EditRefused, match="unknown key 'etga'"):
        edit_state(agent, config("t"), {"etga": '"v2"'}, as_node="plan")

    assert count(saver) == before == 1


def test_edit_with_wrong_type_writes_no_checkpoint(saver) -> None:
    graph, paused = paused_pause_thread(saver)
    before = count(saver)

    with pytest.raises(EditRefused):
        edit_state(graph, paused, {"priority": 1}, as_node="plan")

    assert count(saver) == before


def test_edit_as_plan_sets_next_to_write(saver, agent) -> None:
    new_config = edit_state(
        agent, config("t"), {"ticket_id": "t7", "changes": {"priority": "high"}}, as_node="plan"
    )

    snapshot = agent.get_state(new_config)
    assert snapshot.next == ("write",)
    assert snapshot.metadata["source"] == "update"
    assert snapshot.values["changes"] == {"priority": "high"}


def test_edit_as_plan_without_changes_ends_the_turn(agent) -> None:
    # the agent's route after plan ends the turn when nothing is proposed
    new_config = edit_state(agent, config("t"), {"ticket_id": "t7"}, as_node="plan")

    assert agent.get_state(new_config).next == ()


def test_edit_as_start_acts_like_input(agent) -> None:
    new_config = edit_state(agent, config("t"), {"request": "raise t7"}, as_node="__start__")

    assert agent.get_state(new_config).next == ("read",)


def test_edit_of_a_past_checkpoint_writes_an_update_child_of_it(saver) -> None:
    graph, paused = paused_pause_thread(saver)

    new_config = edit_state(graph, paused, {"note": "edited by hand"}, as_node="plan")

    snapshot = graph.get_state(new_config)
    assert (
        snapshot.parent_config["configurable"]["checkpoint_id"]
        == (paused["configurable"]["checkpoint_id"])
    )
    assert snapshot.metadata["source"] == "update"
    assert snapshot.values == {"ticket": "t7", "priority": "normal", "note": "edited by hand"}
    assert snapshot.next == ("write",)


def test_edit_without_as_node_acts_as_the_last_writer(saver) -> None:
    graph, paused = paused_pause_thread(saver)

    new_config = edit_state(graph, paused, {"note": "inferred"})

    # plan wrote last, so write is due next, as before the edit
    assert graph.get_state(new_config).next == ("write",)


def test_edit_of_a_key_with_a_reducer_goes_through_the_reducer(saver) -> None:
    graph = loop_graph(saver)
    graph.invoke({"count": 0}, config("loop"))

    new_config = edit_state(graph, config("loop"), {"log": ["by hand"]}, as_node="done")

    assert graph.get_state(new_config).values["log"][-2:] == ["done", "by hand"]


def test_edit_of_unknown_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph, _ = paused_pause_thread(saver)
    before = count(saver)
    missing = config("p", "1f000000-0000-6000-8000-000000000000")

    with pytest.raises(EditRefused) as refused:
        edit_state(graph, missing, {"note": "x"}, as_node="plan")

    assert str(refused.value) == (
        "no checkpoint '1f000000-0000-6000-8000-000000000000' in thread 'p': "
        "pick one from the thread's history"
    )
    assert count(saver) == before


def test_ambiguous_edit_without_as_node_is_refused_and_writes_nothing(saver) -> None:
    graph = fan_graph(saver)
    graph.invoke({"topic": "tickets"}, config("fan"))
    # after the parallel step, left and right wrote last together
    both_wrote = next(s for s in graph.get_state_history(config("fan")) if s.next == ("join",))
    before = count(saver)

    with pytest.raises(EditRefused) as refused:
        edit_state(graph, both_wrote.config, {"summary": "by hand"})

    assert str(refused.value) == (
        "cannot tell which node the edit acts as (several nodes wrote last): "
        "set as_node to one of __start__, left, right, join"
    )
    assert count(saver) == before


# --- replay_from ------------------------------------------------------------------------------


def test_replay_from_past_checkpoint_adds_a_fork_branch(saver) -> None:
    graph = finished_pause_thread(saver)
    old_head = graph.get_state(config("p")).config
    after_read = after(graph, "p", ("plan",))
    old_ids = set(history(graph, "p"))

    result = replay_from(graph, after_read.config)

    tree = history(graph, "p")
    assert old_ids < set(tree)  # nothing was overwritten
    assert set(tree) - old_ids == set(result.new_checkpoint_ids)
    fork = tree[result.fork_checkpoint_id]
    assert parent_id(fork) == checkpoint_id(after_read.config)
    assert fork.metadata["source"] == "fork"
    assert result.replayed_checkpoint_id == checkpoint_id(after_read.config)
    assert_branch(graph, "p", result, result.replayed_checkpoint_id)
    assert checkpoint_id(result.head_config) != checkpoint_id(old_head)
    assert checkpoint_id(graph.get_state(config("p")).config) == checkpoint_id(result.head_config)


def test_replay_through_the_interrupt_pauses_again_and_reports_it(saver) -> None:
    graph = finished_pause_thread(saver)

    result = replay_from(graph, after(graph, "p", ("plan",)).config)

    # interrupt_before=["write"] was compiled in, so the branch stops before write again
    assert result.next == ("write",)
    assert result.paused
    assert result.values == {"ticket": "t7", "priority": "normal", "note": "raise t7"}
    # fork, then the checkpoint after plan
    assert len(result.new_checkpoint_ids) == 2


def test_replay_from_the_paused_checkpoint_runs_the_write(saver) -> None:
    graph = finished_pause_thread(saver)
    paused = after(graph, "p", ("write",))

    result = replay_from(graph, paused.config)

    assert not result.paused
    assert result.values["priority"] == "high"
    assert history(graph, "p")[result.fork_checkpoint_id].metadata["source"] == "fork"


def test_replay_of_the_loop_goes_round_again(saver) -> None:
    graph = make_loop(saver)
    count_one = next(
        s for s in graph.get_state_history(config("loop")) if s.values.get("count") == 1
    )

    result = replay_from(graph, count_one.config)

    assert result.values == {"count": 3, "log": ["bump 0", "bump 1", "bump 2", "done"]}
    assert result.next == ()
    # fork, bump (count 2), bump (count 3), done
    assert len(result.new_checkpoint_ids) == 4
    assert_branch(graph, "loop", result, checkpoint_id(count_one.config))


def test_replay_of_fan_out_runs_both_branches_again(saver) -> None:
    graph = make_fan(saver)
    before_fan = after(graph, "fan", ("left", "right"))

    result = replay_from(graph, before_fan.config)

    assert result.values["summary"] == "left on tickets + right on tickets"
    # fork, the parallel step as one checkpoint, join
    assert len(result.new_checkpoint_ids) == 3
    assert_branch(graph, "fan", result, checkpoint_id(before_fan.config))


def test_replay_of_unknown_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    with pytest.raises(ValueError) as refused:
        replay_from(graph, config("p", MISSING_ID))

    assert str(refused.value) == (
        f"no checkpoint '{MISSING_ID}' in thread 'p': choose one from the thread's history"
    )
    assert count(saver) == before


def test_replay_of_checkpoint_from_another_thread_is_refused(saver) -> None:
    graph = finished_pause_thread(saver, "p")
    other = after(graph, "p", ("plan",))

    with pytest.raises(ValueError, match="in thread 'q'"):
        replay_from(graph, config("q", checkpoint_id(other.config)))


def test_replay_without_checkpoint_id_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    with pytest.raises(ValueError, match="the config names no checkpoint_id"):
        replay_from(graph, config("p"))

    assert count(saver) == before


def test_replay_of_subgraph_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = make_nested(saver)
    # materialized: the saver holds its lock while a list() iterator is open (docs/architecture.md)
    inner = next(
        t for t in list(saver.list(config("nested"))) if t.config["configurable"]["checkpoint_ns"]
    )
    before = count(saver)

    with pytest.raises(ValueError, match="belongs to the subgraph namespace 'inner:"):
        replay_from(graph, inner.config)

    assert count(saver) == before


def test_replay_of_finished_update_checkpoint_writes_nothing_and_says_so(saver) -> None:
    graph = finished_pause_thread(saver)
    edited = edit_state(graph, config("p"), {"note": "after the fact"}, as_node="write")
    before = count(saver)

    # an update checkpoint is its own fork point (no fork written) and nothing is due after write
    result = replay_from(graph, edited)

    assert count(saver) == before
    assert result.fork_checkpoint_id is None
    assert result.new_checkpoint_ids == ()
    assert checkpoint_id(result.head_config) == checkpoint_id(edited)
    assert result.values["note"] == "after the fact"


# --- fork_with_edit ---------------------------------------------------------------------------


def test_fork_with_edit_runs_the_edited_state(saver) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))

    result = fork_with_edit(graph, after_read.config, {"ticket": "t9"}, as_node="read")

    tree = history(graph, "p")
    fork = tree[result.fork_checkpoint_id]
    assert fork.metadata["source"] == "update"
    assert parent_id(fork) == checkpoint_id(after_read.config)
    assert fork.values["ticket"] == "t9"
    # plan ran on the edited ticket, then the branch paused before write
    assert result.values == {"ticket": "t9", "priority": "normal", "note": "raise t9"}
    assert result.next == ("write",)
    assert_branch(graph, "p", result, checkpoint_id(after_read.config))
    # the old branch still holds the original ticket
    assert graph.get_state(after_read.config).values["ticket"] == "t7"


def test_fork_with_edit_of_the_loop_count_skips_a_round(saver) -> None:
    graph = make_loop(saver)
    count_one = next(
        s for s in graph.get_state_history(config("loop")) if s.values.get("count") == 1
    )

    result = fork_with_edit(graph, count_one.config, {"count": 2}, as_node="bump")

    assert result.values == {"count": 3, "log": ["bump 0", "bump 2", "done"]}
    # update, bump (count 3), done
    assert len(result.new_checkpoint_ids) == 3


def test_fork_with_invalid_edit_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))
    before = count(saver)

    with pytest.raises(EditRefused, match="unknown key 'tiket'"):
        fork_with_edit(graph, after_read.config, {"tiket": "t9"}, as_node="read")
    with pytest.raises(EditRefused, match="unknown node 'reed'"):
        fork_with_edit(graph, after_read.config, {"ticket": "t9"}, as_node="reed")

    assert count(saver) == before


def test_fork_with_edit_of_unknown_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    with pytest.raises(ValueError, match=f"no checkpoint '{MISSING_ID}' in thread 'p'"):
        fork_with_edit(graph, config("p", MISSING_ID), {"ticket": "t9"}, as_node="read")

    assert count(saver) == before


class UserState(TypedDict, total=False):
    user: str
    greeting: str


def test_fork_with_edit_keeps_the_callers_configurable_keys(saver) -> None:
    def greet(state: UserState, config: RunnableConfig) -> dict:
        return {"greeting": f"hello {config['configurable']['user_name']}"}

    builder = StateGraph(UserState)
    builder.add_node("greet", greet)
    builder.add_edge(START, "greet")
    builder.add_edge("greet", END)
    graph = builder.compile(checkpointer=saver)
    run_config = {"configurable": {"thread_id": "u", "user_name": "ann"}}
    graph.invoke({"user": "x"}, run_config)
    start = after(graph, "u", ("greet",))
    fork_config = {"configurable": {**start.config["configurable"], "user_name": "bob"}}

    result = fork_with_edit(graph, fork_config, {"user": "y"}, as_node="__start__")

    assert result.values == {"user": "y", "greeting": "hello bob"}


# --- fork_from_form ---------------------------------------------------------------------------


def form_of(graph, snapshot) -> tuple[dict[str, str | None], dict]:
    """What History's form shows for a checkpoint: each state field as it shows it (a str
    field's text as it is, an empty box for one not set), and the values."""
    values = dict(snapshot.values)
    hints = state_fields(graph)
    return {key: form_field(key, hints[key], values.get(key)).text
            for key in ("ticket", "priority", "note")}, values


def test_a_str_field_is_typed_as_text_and_forks_with_that_string(saver) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))
    typed, shown = form_of(graph, after_read)
    assert typed == {"ticket": "t7", "priority": "normal", "note": ""}  # no quotes added
    typed["ticket"] = "t9"

    changes, result = fork_from_form(graph, "p", checkpoint_id(after_read.config), typed, shown,
                                     "{}", "read")

    assert changes == {"ticket": "t9"}  # the unchanged fields (an unset note too) are kept
    assert history(graph, "p")[result.fork_checkpoint_id].metadata["source"] == "update"
    assert result.values == {"ticket": "t9", "priority": "normal", "note": "raise t9"}
    assert result.next == ("write",)
    assert_branch(graph, "p", result, checkpoint_id(after_read.config))


def test_form_with_other_keys_adds_them_to_the_edit(saver) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))
    typed, shown = form_of(graph, after_read)

    changes, result = fork_from_form(graph, "p", checkpoint_id(after_read.config), typed, shown,
                                     '{"ticket": "t8"}', "read")

    assert changes == {"ticket": "t8"}
    assert result.values["note"] == "raise t8"


def test_an_etag_reads_with_its_quotes_and_is_written_back_as_typed(agent) -> None:
    hint = state_fields(agent)["etag"]

    assert form_field("etag", hint, '"v2"').text == '"v2"'  # the string's own characters
    assert form_changes(agent, {"etag": '"v2"'}, {"etag": '"v2"'}) == {}
    assert form_changes(agent, {"etag": '"v3"'}, {"etag": '"v2"'}) == {"etag": '"v3"'}


def test_null_writes_none_to_an_optional_str_field_and_an_empty_box_the_empty_string(
        agent) -> None:
    shown = {"priority": "high"}

    assert form_field("priority", state_fields(agent)["priority"], None).text is None
    assert form_changes(agent, {"priority": None}, shown) == {"priority": None}
    assert form_changes(agent, {"priority": ""}, shown) == {"priority": ""}


def test_a_str_field_not_set_yet_shows_an_empty_box_and_typing_sets_it(saver) -> None:
    graph = pause_graph(saver)
    field = form_field("note", state_fields(graph)["note"], None)

    assert (field.text, field.nullable) == ("", False)  # str: no "null" to offer
    assert form_changes(graph, {"note": ""}, {}) == {}
    assert form_changes(graph, {"note": "call back"}, {}) == {"note": "call back"}


def test_a_field_of_another_type_stays_json(agent) -> None:
    field = form_field("changes", state_fields(agent)["changes"], {"priority": "high"})

    assert not field.is_text and field.text == '{"priority": "high"}'
    assert form_changes(agent, {"changes": '{"priority":"low"}'}, {"changes": {}}) == {
        "changes": {"priority": "low"}}
    assert form_changes(agent, {"changes": '{"priority":"high"}'},  # the same value, retyped
                        {"changes": {"priority": "high"}}) == {}
    with pytest.raises(EditRefused, match=r"^changes: not valid JSON \(Expecting value at "
                       r"column 1\); dict \| None is typed as JSON, like \{"):
        form_changes(agent, {"changes": "low"}, {"changes": {}})


def test_a_str_key_holding_another_value_shows_it_as_json(agent) -> None:
    """A node may write what the hint does not foresee: the form shows what is there."""
    field = form_field("ticket_id", state_fields(agent)["ticket_id"], 7)

    assert not field.is_text and field.text == "7"
    assert form_changes(agent, {"ticket_id": "7"}, {"ticket_id": 7}) == {}


@pytest.mark.parametrize(
    ("field", "typed_text", "extra", "message"),
    [
        (None, None, '{"ticket": 5}', "wrong type for 'ticket': expected str, got 5 (int)"),
        (None, None, "{oops", "not valid JSON at line 1, column 2"),
        (None, None, '["t9"]', "expected a JSON object at line 1, column 1, got an array"),
        (None, None, '{"tiket": "t9"}',
         "unknown key 'tiket': the state has ticket, priority, note"),
        (None, None, "{}", "empty edit: set at least one of ticket, priority, note"),
        ("ticket", "t7", "{}", "empty edit: set at least one of ticket, priority, note"),
    ],
    ids=["wrong-type", "other-keys-not-json", "other-keys-not-an-object",
         "other-keys-unknown-key", "nothing-changed", "the-same-text-typed-again"],
)
def test_refused_form_says_why_and_writes_no_checkpoint(saver, field, typed_text, extra,
                                                        message) -> None:
    graph = finished_pause_thread(saver)
    after_read = after(graph, "p", ("plan",))
    typed, shown = form_of(graph, after_read)
    if field:
        typed[field] = typed_text
    before = count(saver)

    with pytest.raises(EditRefused) as refused:
        fork_from_form(graph, "p", checkpoint_id(after_read.config), typed, shown, extra, "read")

    assert str(refused.value).startswith(message)
    assert count(saver) == before


def test_form_of_an_unknown_checkpoint_is_refused_and_writes_nothing(saver) -> None:
    graph = finished_pause_thread(saver)
    typed, shown = form_of(graph, after(graph, "p", ("plan",)))
    typed["ticket"] = "t9"
    before = count(saver)

    with pytest.raises(ValueError, match=f"no checkpoint '{MISSING_ID}' in thread 'p'"):
        fork_from_form(graph, "p", MISSING_ID, typed, shown, "{}", "read")

    assert count(saver) == before


# --- resume_thread ----------------------------------------------------------------------------


class StepState(TypedDict, total=False):
    steps: list[str]


def two_pause_graph(saver, fail_at: str | None = None):
    """first -> second -> third, pausing before second and third; ``fail_at`` raises."""

    def step(name: str):
        def run(state: StepState) -> dict:
            if name == fail_at:
                raise RuntimeError(f"{name} could not reach its service")
            return {"steps": [*state.get("steps", []), name]}
        return run

    builder = StateGraph(StepState)
    for name in ("first", "second", "third"):
        builder.add_node(name, step(name))
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", "third")
    builder.add_edge("third", END)
    return builder.compile(checkpointer=saver, interrupt_before=["second", "third"])


def test_resuming_a_paused_thread_names_what_ran_and_that_it_finished(saver) -> None:
    graph, _ = paused_pause_thread(saver)

    result = resume_thread(graph, "p")

    assert result.line == "resumed thread 'p': write ran, finished"
    assert result.ok
    assert result.ran == ("write",)
    assert result.values["priority"] == "high"
    assert result.next == ()


def test_resuming_a_thread_that_pauses_again_says_where(saver) -> None:
    graph = two_pause_graph(saver)
    graph.invoke({"steps": []}, config("s"))

    result = resume_thread(graph, "s")

    assert result.line == "resumed thread 's': second ran, paused before third"
    assert result.ok
    assert result.next == ("third",)


def test_resuming_on_the_shared_loop_names_what_ran(saver) -> None:
    graph = driven(two_pause_graph(saver))
    graph.invoke({"steps": []}, config("s"))

    result = resume_thread(graph, "s")

    assert result.line == "resumed thread 's': second ran, paused before third"
    assert result.values == {"steps": ["first", "second"]}


def test_resuming_a_finished_thread_is_refused_as_not_paused(saver) -> None:
    graph = finished_pause_thread(saver)
    before = count(saver)

    result = resume_thread(graph, "p")

    assert result.line == "nothing to resume in thread 'p': it is not paused"
    assert not result.ok
    assert count(saver) == before


def test_resuming_an_unknown_thread_is_refused_as_having_no_checkpoints(saver) -> None:
    result = resume_thread(pause_graph(saver), "nope")

    assert result.line == "nothing to resume in thread 'nope': it has no checkpoints"
    assert not result.ok
    assert count(saver) == 0


def test_resuming_into_a_failing_node_says_which_and_raises_nothing(saver) -> None:
    graph = two_pause_graph(saver, fail_at="second")
    graph.invoke({"steps": []}, config("f"))

    result = resume_thread(graph, "f")

    assert result.line == ("resuming thread 'f' failed in second: second could not reach its "
                           "service; it still waits at second, resume it when the cause is fixed")
    assert not result.ok
    assert result.next == ("second",)


def test_an_ai_message_with_tool_calls_keeps_its_text_and_nothing_is_forked():
    from playground.apps.state_fields import EditRefused
    from playground.runtime.time_travel import edited_messages

    shown = [  # as the safe decoder reads a stored conversation
        {"__type__": "langchain_core.messages.human.HumanMessage", "content": "refund A17",
         "id": "h1"},
        {"__type__": "langchain_core.messages.ai.AIMessage", "content": "", "id": "a1",
         "tool_calls": [{"name": "refund", "args": {"order_id": "A17"}, "id": "c1"}]},
    ]

    with pytest.raises(EditRefused, match="an AI message with tool calls keeps its text"):
        edited_messages(shown, {"h1": "refund A17", "a1": "no refund"})
    edited = edited_messages(shown, {"h1": "refund B22", "a1": ""})  # only the question moved
    assert [(m.type, m.content, m.id) for m in edited] == [("human", "refund B22", "h1")]
