"""``list_threads(group_by="error")`` of a real ``playground mcp`` process on 300 threads a real
graph ran on the real saver (SQLite and Postgres), 19 failed in five ways: the groups and their
exact counts as ``threads --group-by error`` gives them, each with a real example, bounded by
``limit``; what does not fit a grouping is refused in one sentence."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.playground import databases
from tests.playground.error_kinds import GROUPS, NODES, make_threads, stored_error
from tests.playground.mcp.client import Session, mcp_session


@pytest.fixture(scope="module", params=databases.KINDS)
def failures(request, tmp_path_factory) -> Iterator[tuple[Session, dict]]:
    """A session on a database of 300 threads, 19 failed in five ways."""
    with databases.database(request.param, tmp_path_factory.mktemp("failures")) as made:
        expected = make_threads(made.saver)
        with mcp_session(made.target) as session:
            yield session, expected


def test_list_threads_grouped_by_error_gives_each_failure_once_with_its_exact_count(failures):
    session, made = failures

    result = session.call("list_threads", {"group_by": "error"})

    assert not result.is_error, result.content[0].text
    facts = result.structured_content
    assert [(group["error"], group["count"]) for group in facts["groups"]] == list(GROUPS.items())
    assert (facts["failed_read"], facts["groups_total"], facts["shown"]) == (19, 5, 5)
    assert (facts["complete"], facts["cut_short"]) == (True, None)
    for group in facts["groups"]:
        example = group["example"]["thread_id"]
        assert made[example] == group["error"]
        assert group["nodes"] == [NODES[group["error"]]]
        assert group["example"]["error"] == stored_error(int(example[4:]))
    assert result.content[0].text.startswith("19 failed threads in 5 groups of errors in ")
    assert "threads" not in facts  # groups, not a page of threads


def test_a_grouping_with_status_failed_and_a_limit_shows_the_largest_groups_first(failures):
    session, _ = failures

    facts = session.answer("list_threads", {"group_by": "error", "status": "failed",
                                            "limit": 2})

    assert [(group["error"], group["count"]) for group in facts["groups"]] == list(
        GROUPS.items())[:2]
    assert (facts["shown"], facts["groups_total"]) == (2, 5)


@pytest.mark.parametrize("arguments, said", [
    ({"status": "paused"}, "groups the failed threads"),
    ({"count": True}, "no cursor and no count"),
    ({"cursor": "r5"}, "no cursor and no count"),
    ({"group_by": "node"}, "group_by"),
])
def test_what_does_not_fit_a_grouping_is_refused_in_one_sentence(failures, arguments, said):
    session, _ = failures

    sentence = session.error("list_threads", {"group_by": "error", **arguments})

    assert said in sentence and "Traceback" not in sentence
