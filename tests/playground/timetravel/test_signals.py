"""Questions, answers and errors among a checkpoint's pending writes."""

from __future__ import annotations

from playground.timetravel.signals import signals_of


def test_interrupt_question_answer_and_error_each_read_once():
    interrupt = [{"__type__": "langgraph.types.Interrupt", "id": "i1",
                  "value": {"question": "Approve the refund?", "amount": 40}}]

    found = signals_of([
        ("refund", "__interrupt__", interrupt),
        ("", "__resume__", "yes"),
        ("refund", "__resume__", ["yes"]),
        ("charge", "__error__", "ValueError('card declined')"),
        ("refund", "messages", ["ignored"]),
    ])

    assert [s.line for s in found] == ["refund asks: Approve the refund?",
                                       "charge failed: ValueError('card declined')",
                                       "answered: yes"]
    assert found[0].interrupt_id == "i1" and found[2].node == "refund"


def test_interrupt_without_a_question_field_shows_its_value():
    found = signals_of([("n", "__interrupt__", [{"__type__": "langgraph.types.Interrupt",
                                                 "value": {"draft": "hello"}, "id": "i"}])])

    assert found[0].text == '{"draft": "hello"}'
