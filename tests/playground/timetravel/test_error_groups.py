"""The fingerprint of an error: what varies between occurrences of one failure is masked (numbers,
ids, uuids, hex, times), and what tells two failures apart is kept (the exception's type, its
wording, an HTTP status); the groups count, date and exemplify the threads added; a stored
error is given whole and says whether it holds a traceback."""

from __future__ import annotations

import pytest

from playground.timetravel.error_groups import (
    Grouping,
    error_key,
    fingerprint,
    holds_traceback,
    whole_error,
)


@pytest.mark.parametrize("first, second, masked", [
    ("RuntimeError('ticket 4211 not found')", "RuntimeError('ticket 977 not found')",
     "RuntimeError('ticket <n> not found')"),
    ("LookupError('order A1259 not found')", "LookupError('order B77 not found')",
     "LookupError('order <id> not found')"),
    ("KeyError('session 1f1f2874-3704-62dd-8000-373ca8e20c9d')",
     "KeyError('session 8A68535E-AB58-5DE3-B632-73252B72409C')", "KeyError('session <uuid>')"),
    ("ProviderError('HTTP 503 (upstream overloaded), request req_8f2k19xq')",
     "ProviderError('HTTP 503 (upstream overloaded), request req_01HX3K9ZQ')",
     "ProviderError('HTTP 503 (upstream overloaded), request <id>')"),
    ("ValueError('bad digest 9f86d081884c7d65 at 0x7f3a')",
     "ValueError('bad digest 00ab12ef at 0x1')", "ValueError('bad digest <hex> at <hex>')"),
    ("TimeoutError('gave up at 2026-12-07T21:42:31Z after 3.5 s')",
     "TimeoutError('gave up at 2027-01-01 00:00:00 after 12.25 s')",
     "TimeoutError('gave up at <time> after <n>.<n> s')"),
    ("PermissionError('ana@example.com may not refund')",
     "PermissionError('bo.li+x@corp.example.org may not refund')",
     "PermissionError('<email> may not refund')"),
    ("AuthError('bad key sk-abcdefghijklmnopqrstuvwxyz')",
     "AuthError('bad key sk-zyxwvutsrqponmlkjihgfedcba')", "AuthError('bad key <id>')"),
])
def test_occurrences_of_one_failure_share_a_fingerprint_with_what_varies_masked(
        first, second, masked):
    assert fingerprint(first) == fingerprint(second) == masked


@pytest.mark.parametrize("first, second", [
    ("RuntimeError('ticket 4211 not found')", "ValueError('ticket 4211 not found')"),
    ("RuntimeError('ticket 4211 not found')", "RuntimeError('ticket 4211 was closed')"),
    ("ProviderError('HTTP 503 (overloaded)')", "ProviderError('HTTP 429 (overloaded)')"),
    ("ProviderError('status_code=503')", "ProviderError('status_code=500')"),
    ("KeyError('alice')", "KeyError('bob')"),
    ("ModelError('gpt-4o refused')", "ModelError('gpt-5 refused')"),
])
def test_distinct_errors_keep_distinct_fingerprints(first, second):
    assert fingerprint(first) != fingerprint(second)


def test_a_name_with_a_short_number_is_kept_and_lines_are_joined():
    assert fingerprint("Base64DecodeError(\n  'padding'\n)") == "Base64DecodeError( 'padding' )"


def test_the_same_error_in_two_nodes_is_one_group_that_names_both():
    grouping = Grouping()
    grouping.add("t1", "lookup", "KeyError('x')", "2026-01-01T10:00:00")
    grouping.add("t2", "model", "KeyError('x')", "2026-01-02T10:00:00")
    grouping.add("t3", "", "KeyError('x')", "2026-01-03T10:00:00")  # a place that cannot say

    (group,) = grouping.result().groups

    assert (group.key, group.nodes, group.count) == ("KeyError('x')", ("lookup", "model"), 3)
    assert error_key("KeyError('order 42')") == "KeyError('order <n>')"


def test_groups_count_their_threads_largest_first_with_the_newest_as_example():
    grouping = Grouping()
    grouping.add("t1", "lookup", "RuntimeError('ticket 1 not found')", "2026-01-01T10:00:00")
    grouping.add("t2", "lookup", "RuntimeError('ticket 22 not found')", "2026-01-03T10:00:00")
    grouping.add("t3", "lookup", "RuntimeError('ticket 333 not found')", "2026-01-02T10:00:00")
    grouping.add("t4", "model", "KeyError('x')", "2026-01-05T10:00:00")
    grouping.add("t5", "model", "ValueError('x')", "2026-01-04T10:00:00")

    found = grouping.result()

    assert [(g.key, g.nodes, g.count) for g in found.groups] == [
        ("RuntimeError('ticket <n> not found')", ("lookup",), 3),
        ("KeyError('x')", ("model",), 1),  # among equals, the newest first
        ("ValueError('x')", ("model",), 1)]
    first = found.groups[0]
    assert (first.newest_at, first.example_thread, first.example_error) == (
        "2026-01-03T10:00:00", "t2", "RuntimeError('ticket 22 not found')")
    assert (found.failed, found.complete) == (5, True)
    assert grouping.result("stopped at the deadline").complete is False


def test_a_stored_error_is_whole_and_says_whether_it_holds_a_traceback():
    long = "RuntimeError('" + "mode " * 500 + "HTTP 503 (upstream overloaded)')"
    traced = "Traceback (most recent call last):\n  File \"app.py\", line 3\nValueError: x"

    assert whole_error(long) == long  # not cut at a cell's width
    assert whole_error(traced) == traced  # its lines kept
    assert whole_error("x" * 50, limit=10) == "x" * 10 + "\n… (40 more characters)"
    assert whole_error({"message": "boom", "code": 7}) == '{\n "message": "boom",\n "code": 7\n}'
    assert not holds_traceback(long)  # what LangGraph stores: the repr alone
    assert holds_traceback(traced)
    assert holds_traceback({"message": "boom", "traceback": ["File app.py, line 3"]})
    assert not holds_traceback({"message": "boom", "traceback": None})
