"""The migration lesson against the real ticket API and a real SqliteSaver file."""

from __future__ import annotations

import pytest

from playground.lessons.schema_lesson import (
    ADD_REMOVE,
    STRANDED,
    add_then_remove,
    apply_repair,
    deploy_rename,
    lesson_steps,
    look,
    pause_under_etag,
    preview_repair,
    resume_repaired,
    stranded_threads,
)
from playground.timetravel.migrate import MigrationRefused

ROOM = "room1/"


def test_renamed_schema_strands_paused_thread_and_repair_resumes_it(agent, checkpoints, client):
    thread = ROOM + STRANDED
    paused = pause_under_etag(agent("etag"), thread)
    assert paused.status == "done"
    assert paused.values["etag"] == '"v1"'

    stuck = deploy_rename(agent("version"), thread)

    assert stuck.status == "stuck"
    assert "raised nothing" in stuck.text
    assert client.history("t7") == []
    seen = look(checkpoints, agent("version"), thread)
    assert seen.stranded and seen.waiting_at == ("write",)
    assert seen.channels["etag"] == '"v1"'
    assert "etag" not in seen.seen_by_new_schema  # the new graph cannot even see the version

    (found,) = stranded_threads(checkpoints, ROOM)
    assert found.thread_id == thread and found.paused
    assert found.unknown_channels == ("etag",)
    assert [(s.old, s.new) for s in found.suggestions] == [("etag", "version")]

    preview = preview_repair(checkpoints, thread)
    assert not preview.applied and "channel_values" in preview.changed
    assert look(checkpoints, agent("version"), thread).holds_old_key  # a dry run changes nothing

    applied = apply_repair(checkpoints, thread)
    assert applied.applied and applied.changed == preview.changed
    repaired = look(checkpoints, agent("version"), thread)
    assert repaired.channels["version"] == '"v1"' and not repaired.holds_old_key
    assert stranded_threads(checkpoints, ROOM) == ()

    written = resume_repaired(agent("version"), thread)

    assert written.status == "repaired"
    assert 'priority is high at "v2"' in written.text
    assert [e["actor"] for e in client.history("t7")] == ["agent"]


def test_add_then_remove_schema_resumes_a_paused_thread_and_writes(agent, checkpoints, client):
    thread = ROOM + ADD_REMOVE

    result = add_then_remove(agent("etag"), agent("both"), thread)

    assert result.status == "done"
    assert 'priority is high at "v2"' in result.text
    assert result.values["etag"] == result.values["version"] == '"v2"'
    assert client.get_ticket("t4").body["priority"] == "high"
    assert client.history("t7") == []  # step 1's paused read of t7 stays current


def test_repair_of_a_thread_that_holds_no_etag_is_refused_with_a_reason(agent, checkpoints):
    thread = ROOM + ADD_REMOVE
    add_then_remove(agent("etag"), agent("both"), thread)

    with pytest.raises(MigrationRefused, match="already holds a value or version"):
        preview_repair(checkpoints, thread)


def test_stranded_threads_lists_only_the_workspace_threads(agent, checkpoints):
    pause_under_etag(agent("etag"), ROOM + STRANDED)
    pause_under_etag(agent("etag"), "other-room/" + STRANDED, "raise t2 to high")

    assert [t.thread_id for t in stranded_threads(checkpoints, ROOM)] == [ROOM + STRANDED]


def test_lesson_steps_go_from_to_do_to_stuck_to_repaired_and_done(agent, checkpoints):
    version = agent("version")
    thread, other = ROOM + STRANDED, ROOM + ADD_REMOVE

    def statuses(tried):
        steps = lesson_steps(look(checkpoints, version, thread), look(checkpoints, version, other),
                             tried)
        return [step.status for step in steps]

    pause_under_etag(agent("etag"), other)  # makes the file; step 3 stays paused
    assert statuses(False) == ["to do", "to do", "paused", "to do"]
    pause_under_etag(agent("etag"), thread)
    deploy_rename(version, thread)
    assert statuses(True) == ["done", "stuck", "paused", "to do"]
    apply_repair(checkpoints, thread)
    assert statuses(True) == ["done", "repaired", "paused", "repaired"]
    resume_repaired(version, thread)
    add_then_remove(agent("etag"), agent("both"), other)
    assert statuses(True) == ["done", "repaired", "done", "done"]
