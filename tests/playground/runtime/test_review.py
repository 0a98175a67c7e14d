"""Human-in-the-loop reviews read as data, and answers built from a person's choices."""

from __future__ import annotations

import pytest

from playground.runtime.review import Choice, ReviewRefused, review_answer, review_request

BATCHED = {
    "action_requests": [{"name": "send_email", "args": {"to": "ana@example.org"},
                         "description": "Outgoing mail needs your approval"},
                        {"name": "delete_file", "args": {"path": "notes.txt"}}],
    "review_configs": [{"action_name": "send_email",
                        "allowed_decisions": ["approve", "edit", "reject"]},
                       {"action_name": "delete_file", "allowed_decisions": ["approve", "reject"]}],
}
PER_CALL = {"type": "tool_approval", "tool_call_id": "c1", "name": "send_email",
            "args": {"to": "ben@example.org"}, "description": "Check it"}


def test_a_batched_request_lists_each_action_with_its_allowed_decisions():
    request = review_request(BATCHED)

    assert not request.per_call
    assert [(a.name, a.allowed) for a in request.actions] == [
        ("send_email", ("approve", "edit", "reject")), ("delete_file", ("approve", "reject"))]


def test_an_answer_holds_one_decision_per_action_in_order():
    request = review_request(BATCHED)

    answer = review_answer(request, [
        Choice("edit", '{"to": "carla@example.org"}'), Choice("reject", message="keep it")])

    assert answer == {"decisions": [
        {"type": "edit", "edited_action": {"name": "send_email",
                                           "args": {"to": "carla@example.org"}}},
        {"type": "reject", "message": "keep it"}]}


def test_a_per_call_request_is_answered_with_one_decision():
    request = review_request(PER_CALL)

    assert request.per_call and request.actions[0].args == {"to": "ben@example.org"}
    assert review_answer(request, [Choice("approve")]) == {"type": "approve"}


@pytest.mark.parametrize(("choice", "message"), [
    (Choice("edit", "{not json"), "not valid JSON"),
    (Choice("edit", "[1]"), "must be a JSON object"),
    (Choice("respond"), "is not allowed here"),
])
def test_a_review_that_cannot_be_sent_is_refused_in_one_line(choice, message):
    with pytest.raises(ReviewRefused, match=message):
        review_answer(review_request(BATCHED), [choice, Choice("approve")])


@pytest.mark.parametrize("value", ["Approve?", {"question": "ok?"}, {"action_requests": []},
                                   {"action_requests": [{"args": {}}], "review_configs": []},
                                   None, 3])
def test_other_questions_are_no_review(value):
    assert review_request(value) is None
