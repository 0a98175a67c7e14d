"""The deterministic planner: which plain requests become which changes."""

from __future__ import annotations

import pytest

from playground.agent.planner import NotUnderstood, Plan, find_ticket_id, understand


@pytest.mark.parametrize(
    ("request_text", "ticket_id", "changes"),
    [
        ("raise t7 to high", "t7", {"priority": "high"}),
        ("Raise T7 to HIGH.", "t7", {"priority": "high"}),
        ("set t3 priority to low", "t3", {"priority": "low"}),
        ("set the priority of t3 to urgent", "t3", {"priority": "urgent"}),
        ("lower t1 to normal", "t1", {"priority": "normal"}),
        ("make t4 urgent", "t4", {"priority": "urgent"}),
        ("assign t2 to dara", "t2", {"assignee": "dara"}),
        ("unassign t2", "t2", {"assignee": None}),
        ("close t5", "t5", {"status": "closed"}),
        ("reopen t5", "t5", {"status": "open"}),
        ("start work on t6", "t6", {"status": "in_progress"}),
        ("rename t4 to Printer on Fire", "t4", {"title": "Printer on Fire"}),
    ],
)
def test_understood_request_becomes_a_plan(request_text, ticket_id, changes):
    assert understand(request_text) == Plan(ticket_id, changes)


@pytest.mark.parametrize(
    "request_text",
    ["", "hello", "raise t7 to the moon", "close", "delete t7", "assign t2 to", "raise to high"],
)
def test_unclear_request_is_not_understood_and_says_what_works(request_text):
    result = understand(request_text)

    assert isinstance(result, NotUnderstood)
    assert result.reason.startswith("could not understand")
    assert "raise t7 to high" in result.reason


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [("raise t7 to high", "t7"), ("what about T12?", "t12"), ("no ticket here", None)],
)
def test_find_ticket_id_returns_first_ticket_named(request_text, expected):
    assert find_ticket_id(request_text) == expected
