"""The how-to's behaviours of the ticket agent, against the real API and a real SqliteSaver."""

from __future__ import annotations

from playground.agent.nodes import NO_VERSION, idempotency_key
from playground.agent.turns import resume, start_turn, thread_config


def test_first_turn_pauses_before_write_with_ids_and_etag_only(agent):
    graph = agent()
    result = start_turn(graph, "a", "raise t7 to high")

    assert result.ok
    assert result.next == ("write",)
    assert result.line == 'read t7 at "v1", proposed {"priority": "high"}, waiting for the user'
    assert result.values["etag"] == '"v1"'
    # Only ids, versions and the short request: no comment text, no ticket body.
    assert set(result.values) <= {"ticket_id", "request", "etag", "priority", "changes", "outcome"}
    assert "comments" not in repr(result.values)


def test_nothing_is_written_until_the_next_turn(agent, client):
    start_turn(agent(), "a", "raise t7 to high")

    ticket = client.get_ticket("t7")
    assert ticket.etag == '"v1"'
    assert ticket.body["priority"] == "normal"
    assert client.history("t7") == []


def test_a_second_graph_on_the_same_file_resumes_the_turn(agent, client):
    start_turn(agent(), "a", "raise t7 to high")

    # A new saver connection and a new compiled graph: all that survives is the SQLite file.
    result = resume(agent(), "a")

    assert result.ok
    assert result.line == 'resumed with ticket t7: priority is high at "v2"'
    assert client.get_ticket("t7").body["priority"] == "high"


def test_stale_etag_is_refused_and_the_other_edit_survives(agent, client, colleague):
    graph = agent()
    start_turn(graph, "b", "raise t7 to high")
    current = colleague.get_ticket("t7")
    assert colleague.patch_ticket("t7", {"priority": "urgent"}, current.etag).status == 200

    result = resume(graph, "b")

    assert not result.ok
    assert result.line == 'resumed with ticket t7: 412: ticket is at v2, you read "v1"'
    ticket = client.get_ticket("t7")
    assert ticket.body["priority"] == "urgent"
    assert [entry["actor"] for entry in client.history("t7")] == ["colleague"]


def test_a_turn_that_lost_its_version_refuses_to_write(agent, client):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    graph.update_state(thread_config("a"), {"etag": None}, as_node="plan")

    result = resume(graph, "a")

    assert result.values["outcome"] == NO_VERSION
    assert not result.ok
    assert client.get_ticket("t7").etag == '"v1"'


def test_a_failed_read_leaves_no_version_for_the_next_write(agent, client):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    failed = start_turn(graph, "a", "raise t99 to high")
    assert failed.values["etag"] is None
    assert failed.values["outcome"].startswith("404")

    result = resume(graph, "a")

    assert result.values["outcome"] == NO_VERSION
    assert client.history("t7") == []


def test_renaming_the_etag_key_strands_a_paused_thread(agent, client):
    start_turn(agent("etag"), "c", "raise t7 to high")

    result = resume(agent("version"), "c")

    assert not result.ok
    assert result.line == "resumed, and nothing ran: the thread is still waiting at ('write',)"
    assert client.history("t7") == []


def test_add_then_remove_resumes_the_paused_thread(agent, client):
    start_turn(agent("etag"), "d", "raise t7 to high")

    result = resume(agent("both"), "d")

    assert result.ok
    assert result.line == 'resumed with ticket t7: priority is high at "v2"'
    assert result.values["version"] == result.values["etag"] == '"v2"'


def test_request_the_planner_cannot_understand_ends_the_turn_and_writes_nothing(agent, client):
    result = start_turn(agent(), "a", "make t7 a sandwich")

    assert not result.ok
    assert result.next == ()
    assert result.line.startswith("could not understand 'make t7 a sandwich'")
    assert client.history("t7") == []


def test_resume_of_a_finished_thread_says_there_is_nothing_to_resume(agent):
    graph = agent()
    start_turn(graph, "a", "close t5")
    resume(graph, "a")

    result = resume(graph, "a")

    assert not result.ok
    assert result.line == "nothing to resume: it is not paused"


def test_write_that_reached_the_api_before_a_crash_is_replayed_not_refused(agent, client):
    """The crash window: the PATCH was accepted, the write's checkpoint never saved."""
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    paused = graph.get_state(thread_config("a"))
    key = idempotency_key(
        {"configurable": {"thread_id": "a", "checkpoint_map": {"": paused.config[
            "configurable"]["checkpoint_id"]}}}
    )
    # What the crashed process sent: same changes, same If-Match, same key.
    first = client.patch_ticket("t7", {"priority": "high"}, '"v1"', key)
    assert first.status == 200

    result = resume(graph, "a")

    assert result.ok, result.line
    assert result.line == 'resumed with ticket t7: priority is high at "v2"'
    assert len(client.history("t7")) == 1


def test_replay_from_the_paused_checkpoint_after_the_write_gets_412(agent, client):
    graph = agent()
    start_turn(graph, "a", "raise t7 to high")
    paused = graph.get_state(thread_config("a")).config
    resume(graph, "a")

    # Time travel back to the pause: a fork checkpoint, a new Idempotency-Key, a stale ETag.
    graph.invoke(None, paused)

    outcome = graph.get_state(thread_config("a")).values["outcome"]
    assert outcome == '412: ticket is at v2, you read "v1"'
    assert len(client.history("t7")) == 1
