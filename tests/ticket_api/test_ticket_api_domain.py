"""Pure rules: entity tags, If-Match evaluation, tenants, patches, fingerprints, seed data."""

from __future__ import annotations

import pytest

from ticket_api.domain import (
    EntityTag,
    Precondition,
    etag_for,
    evaluate_if_match,
    is_valid_tenant,
    parse_entity_tags,
    patch_problem,
    render_json,
    request_fingerprint,
    stale_message,
)
from ticket_api.seed import seed_tickets

CURRENT = '"v3"'


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        pytest.param(None, Precondition.MISSING, id="absent-is-missing"),
        pytest.param('"v3"', Precondition.MATCH, id="current-strong-tag-matches"),
        pytest.param('  "v3"\t', Precondition.MATCH, id="surrounding-whitespace-ignored"),
        pytest.param('"v2"', Precondition.FAILED, id="stale-tag-fails"),
        pytest.param('"v4"', Precondition.FAILED, id="future-tag-fails"),
        pytest.param('W/"v3"', Precondition.FAILED, id="weak-tag-never-matches"),
        pytest.param("*", Precondition.MATCH, id="star-matches-existing"),
        pytest.param(' * ', Precondition.MATCH, id="star-with-whitespace"),
        pytest.param('"v1", "v3"', Precondition.MATCH, id="list-with-current-matches"),
        pytest.param('"v1","v2"', Precondition.FAILED, id="list-without-current-fails"),
        pytest.param('"v1", W/"v3"', Precondition.FAILED, id="list-with-only-weak-current"),
        pytest.param('"v1", , "v3"', Precondition.MATCH, id="empty-list-elements-ignored"),
        pytest.param("v3", Precondition.FAILED, id="unquoted-is-malformed"),
        pytest.param('"v3', Precondition.FAILED, id="unterminated-quote-is-malformed"),
        pytest.param('w/"v3"', Precondition.FAILED, id="lowercase-weak-prefix-is-malformed"),
        pytest.param('"v3", garbage', Precondition.FAILED, id="malformed-list-matches-nothing"),
        pytest.param('*, "v3"', Precondition.FAILED, id="star-inside-list-is-malformed"),
        pytest.param('"v 3"', Precondition.FAILED, id="space-inside-tag-is-malformed"),
        pytest.param("", Precondition.FAILED, id="empty-value-matches-nothing"),
    ],
)
def test_evaluate_if_match_table(header: str | None, expected: Precondition) -> None:
    assert evaluate_if_match(header, CURRENT) is expected


def test_weak_etag_never_matches_even_when_opaque_tag_is_equal() -> None:
    assert evaluate_if_match('W/"v3"', '"v3"') is Precondition.FAILED
    assert evaluate_if_match('"v3"', '"v3"') is Precondition.MATCH


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ('"v1"', (EntityTag('"v1"'),)),
        ('W/"v1"', (EntityTag('"v1"', weak=True),)),
        ('"a", W/"b" ,"c"', (EntityTag('"a"'), EntityTag('"b"', weak=True), EntityTag('"c"'))),
        ('""', (EntityTag('""'),)),
        ("", ()),
        (" , ,", ()),
        ("v1", None),
        ('"a" "b"', None),
        ('W/ "a"', None),
        ('"a\\"b"', None),
    ],
)
def test_parse_entity_tags(header: str, expected: tuple[EntityTag, ...] | None) -> None:
    assert parse_entity_tags(header) == expected


def test_entity_tag_renders_as_sent() -> None:
    assert str(EntityTag('"v1"', weak=True)) == 'W/"v1"'
    assert str(EntityTag('"v1"')) == '"v1"'


def test_etag_is_strong_and_quoted() -> None:
    assert etag_for(1) == '"v1"'
    assert etag_for(12) == '"v12"'


def test_stale_message_names_current_version_and_echoes_the_tag_sent() -> None:
    assert stale_message(3, ' "v2" ') == 'ticket is at v3, you read "v2"'


@pytest.mark.parametrize(
    ("tenant", "valid"),
    [("demo", True), ("a", True), ("A-b_c.9", True), ("x" * 64, True), ("x" * 65, False),
     ("", False), ("a b", False), ("a/b", False), ("é", False), ("a\n", False)],
)
def test_tenant_names(tenant: str, valid: bool) -> None:
    assert is_valid_tenant(tenant) is valid


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({}, "no changes"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"status": "done"}, "invalid status 'done'"),
        ({"priority": "critical"}, "invalid priority 'critical'"),
    ],
)
def test_patch_problem_names_what_is_wrong(changes: dict[str, str], fragment: str) -> None:
    problem = patch_problem(changes)
    assert problem is not None
    assert fragment in problem


def test_patch_problem_accepts_valid_changes() -> None:
    assert patch_problem({"priority": "high", "assignee": None, "status": "closed"}) is None


def test_fingerprint_ignores_key_order_but_not_values_or_ticket() -> None:
    a = request_fingerprint("t7", {"priority": "high", "status": "open"})
    assert a == request_fingerprint("t7", {"status": "open", "priority": "high"})
    assert a != request_fingerprint("t7", {"priority": "low", "status": "open"})
    assert a != request_fingerprint("t6", {"priority": "high", "status": "open"})


def test_seed_has_eight_tickets_at_version_one() -> None:
    tickets = seed_tickets()
    assert [t.id for t in tickets] == [f"t{i}" for i in range(1, 9)]
    assert {t.version for t in tickets} == {1}
    assert len({t.priority for t in tickets}) >= 3
    assert len({t.status for t in tickets}) == 3
    assert any(t.assignee is None for t in tickets)


def test_seed_t7_is_normal_priority_with_a_40_comment_thread_of_about_7_2_kb() -> None:
    t7 = next(t for t in seed_tickets() if t.id == "t7")
    assert t7.priority == "normal"
    assert len(t7.comments) == 40
    assert 7150 <= len(render_json(t7.to_body()).encode("utf-8")) <= 7250


def test_seed_is_deterministic() -> None:
    assert seed_tickets() == seed_tickets()
