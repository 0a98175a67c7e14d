"""A branch tip says how its last step ended, in the app's words: the ticket agent's write that
met a 412 reads ``412 refused``, one that went through ``written v2``; a graph that offers no
words, a failed or a waiting tip reads as before. Real agent, real ticket API, real SqliteSaver.
"""

from __future__ import annotations

from playground.agent.turns import resume, start_turn, thread_config
from playground.apps.builtin import ticket_agent, write_ending
from playground.places.door import open_storage
from playground.timetravel.tree import load_tree
from playground.timetravel.tree_layout import ENDING_CHARS, tree_layout


def _labels(checkpoints, thread_id: str, ending=None) -> tuple[str, list[str]]:
    """The head's branch label, and the other branches' labels."""
    storage = open_storage(checkpoints)
    try:
        tree = load_tree(storage, thread_id)
        labels = [branch.label for branch in tree_layout(storage, tree, ending).branches]
    finally:
        storage.close()
    head = next(label for label in labels if label.startswith("head · "))
    return head, [label for label in labels if label != head]


def _written_then_forked(graph, thread_id: str) -> None:
    """A turn resumed (its write went through), then History's Fork with edit on the paused
    checkpoint: the plan edited and run on, its write sent with the version read before."""
    start_turn(graph, thread_id, "raise t7 to high")
    paused = graph.get_state(thread_config(thread_id)).config
    resume(graph, thread_id)
    forked = graph.update_state(paused, {"changes": {"priority": "low"}}, as_node="plan")
    graph.invoke(None, forked)


def test_a_fork_whose_write_met_412_says_412_refused_where_it_said_finished(
        agent, checkpoints):
    _written_then_forked(agent(), "a")

    head, others = _labels(checkpoints, "a", write_ending)

    assert head == "head · 412 refused · fork of #4 (edited)"
    assert others == ["written v2 · original run"]


def test_a_write_that_went_through_says_written_and_the_new_version(agent, checkpoints):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")

    resume(graph, "a")

    head, _ = _labels(checkpoints, "a", write_ending)
    assert head == "head · written v2 · original run"


def test_without_the_apps_words_a_finished_tip_still_says_finished(agent, checkpoints):
    _written_then_forked(agent(), "a")

    head, others = _labels(checkpoints, "a")

    assert head == "head · finished · fork of #4 (edited)"
    assert others == ["finished · original run"]


def test_a_paused_tip_says_where_it_waits_whatever_its_outcome_holds(agent, checkpoints):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    # an outcome the words would read, on a thread that still waits before write
    graph.update_state(thread_config("a"), {"outcome": "412: edited in"}, as_node="plan")

    head, _ = _labels(checkpoints, "a", write_ending)

    assert head.startswith("head · paused before write")


def test_an_edit_at_a_tip_keeps_finished_for_its_outcome_is_the_step_before_its(
        agent, checkpoints):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    resume(graph, "a")
    # an edit after the write: its values still hold the write's outcome, no step ended here
    graph.update_state(thread_config("a"), {"changes": {"priority": "low"}}, as_node="write")

    head, _ = _labels(checkpoints, "a", write_ending)

    assert head == "head · finished · original run"


def test_what_the_words_say_is_one_short_line_whatever_the_values_hold(agent, checkpoints):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    resume(graph, "a")

    head, _ = _labels(checkpoints, "a", lambda values: "412\nrefused " + "x" * 200)

    said = head.removeprefix("head · ").removesuffix(" · original run")
    assert "\n" not in said and said.startswith("412 refused x")
    assert len(said) == ENDING_CHARS and said.endswith("…")


def test_the_agents_words_read_only_a_text_outcome():
    assert write_ending({"outcome": '412: ticket is at v2, you read "v1"'}) == "412 refused"
    assert write_ending({"outcome": "not written: no version in state"}) == "not written"
    assert write_ending({"outcome": 'priority is high, status is done at "v3"'}) == "written v3"
    for held in ({}, {"outcome": None}, {"outcome": ""},
                 {"outcome": {"__type__": "os.system", "args": ["touch /tmp/x"]}},
                 {"outcome": ["412: a list"]}, {"outcome": "could not understand: two tickets"}):
        assert write_ending(held) is None, held


def test_the_ticket_agent_offers_its_words_and_other_apps_none():
    from playground.apps.app import App

    assert ticket_agent().step_ending is write_ending
    assert App("g", "g.py:graph", ticket_agent().template).step_ending is None
