"""The multitask lesson says what the server did, beside what ``langgraph dev`` does.

The verdict is read off the play: the second tab's answer, each run's status, whose message the
thread holds after, its branches. On a real ``langgraph dev`` every strategy is as the reference
says (the reference is checked there); the ways other servers differ (seen on Aegra 0.11 and on
a server built on the stock langgraph-api) are given as plays, since no server here does them.
"""

from __future__ import annotations

import pytest
from langgraph_sdk import get_sync_client

from playground.lessons.multitask import (
    STRATEGIES,
    TabRun,
    ThreadAfter,
    TwoTabs,
    play_two_tabs,
    verdict,
)
from playground.places.server_client import ServerClient

FIRST = {"messages": [{"role": "user", "content": "hello there"}]}
SECOND = {"messages": [{"role": "user", "content": "where is A17"}]}


def _play(strategy: str, answered: str, first: str, second: str, held, branches=1) -> TwoTabs:
    return TwoTabs(strategy, "t", (TabRun("first tab", "a", "accepted", first, 0.0, 1.0),
                                   TabRun("second tab", "b", answered, second, 0.1, 2.0)),
                   after=ThreadAfter(held, branches))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_on_langgraph_dev_every_strategy_does_what_the_reference_says(agent_server, strategy):
    url, _ = agent_server
    client = ServerClient(url)

    play = play_two_tabs(client, "support_chat", FIRST, SECOND, strategy)

    said = verdict(play)
    assert said.as_reference, said.line
    assert said.line.endswith("as langgraph dev does.")


def test_after_rollback_on_langgraph_dev_the_thread_holds_only_the_second_tabs_message(
        agent_server):
    url, _ = agent_server

    play = play_two_tabs(ServerClient(url), "support_chat", FIRST, SECOND, "rollback")

    state = get_sync_client(url=url, api_key=None).threads.get_state(play.thread_id)
    person = [m["content"] for m in state["values"]["messages"] if m["type"] == "human"]
    assert person == ["where is A17"]  # the first run was deleted with what it wrote
    assert "the thread holds only the second tab's message" in verdict(play).observed


def test_a_server_that_accepts_reject_and_runs_both_is_said_to_and_the_reference_beside_it():
    # Aegra 0.11: every strategy accepted, both runs at once, the thread forked
    play = _play("reject", "accepted", "success", "success", (True, True), branches=2)

    said = verdict(play)

    assert not said.as_reference
    assert said.line == (
        "This server accepted the second run and ran both; let the two runs interleave: the "
        "thread forked into 2 branches; langgraph dev would have answered 409 Conflict and "
        "run the first alone.")


def test_a_rollback_that_keeps_the_first_runs_message_is_not_called_a_rollback():
    # a server on the stock langgraph-api: the first run ends in CancelledError, its
    # checkpoints kept
    play = _play("rollback", "accepted", "error", "success", (True, True))

    said = verdict(play)

    assert not said.as_reference
    assert "ended the first run in an error" in said.differences
    assert "kept the first tab's message in the thread" in said.differences
    assert said.reference == "would have deleted the first run with what it wrote, then run " \
        "the second"
