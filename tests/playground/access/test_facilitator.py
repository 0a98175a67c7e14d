"""The facilitator's key: a minimum length, and wrong tries slowed per address."""

from __future__ import annotations

import pytest

from playground.access.facilitator import (
    MIN_KEY_CHARS,
    KeyTooShort,
    Throttle,
    board_cookie_value,
    check_key,
    signed_in,
)


def test_a_key_shorter_than_the_minimum_is_refused_saying_the_minimum():
    with pytest.raises(KeyTooShort, match=f"at least {MIN_KEY_CHARS} characters"):
        check_key("letmein", "WORKSHOP_KEY")
    assert check_key("  three plain words  ", "WORKSHOP_KEY") == "three plain words"


def test_the_board_cookie_opens_only_for_the_key_it_was_given_for():
    cookie = board_cookie_value("correct horse battery")

    assert signed_in(cookie, "correct horse battery")
    assert not signed_in(cookie, "another key entirely")
    assert not signed_in(None, "correct horse battery")
    assert not signed_in(cookie, None)
    assert "correct horse" not in cookie


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_five_wrong_keys_are_free_then_each_waits_twice_as_long():
    clock = _Clock()
    throttle = Throttle(clock=clock)

    waits = []
    for _ in range(9):
        assert throttle.wait("10.0.0.7") == 0  # each try made once its wait is over
        waits.append(throttle.failed("10.0.0.7"))
        clock.now += waits[-1]
    assert waits == [0, 0, 0, 0, 0, 1, 2, 4, 8]


def test_a_client_that_must_wait_is_told_how_long_and_others_are_not():
    clock = _Clock()
    throttle = Throttle(free=0, clock=clock)
    throttle.failed("10.0.0.7")
    throttle.failed("10.0.0.7")

    assert throttle.wait("10.0.0.7") == 2
    assert throttle.wait("10.0.0.8") == 0
    clock.now += 1.5
    assert throttle.wait("10.0.0.7") == 0.5


def test_the_right_key_clears_the_count():
    throttle = Throttle(free=1, clock=_Clock())
    throttle.failed("10.0.0.7")
    throttle.failed("10.0.0.7")
    throttle.succeeded("10.0.0.7")

    assert throttle.wait("10.0.0.7") == 0
    assert throttle.failed("10.0.0.7") == 0  # the free try is back


def test_the_longest_wait_is_capped_and_memory_is_bounded():
    throttle = Throttle(free=0, longest=60, clients=3, clock=_Clock())
    for _ in range(20):
        delay = throttle.failed("10.0.0.7")
    assert delay == 60

    for n in range(10):
        throttle.failed(f"10.0.1.{n}")
    assert throttle.wait("10.0.0.7") == 0  # forgotten: the oldest goes first
    assert len(throttle._tries) == 3
