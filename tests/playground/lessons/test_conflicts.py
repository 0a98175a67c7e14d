"""The 412 lab against the real ticket API and a real SqliteSaver file."""

from __future__ import annotations

from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.lessons.conflicts import (
    THREADS,
    agent_actor,
    colleague_edit,
    first_request,
    replan,
    reset_lab,
    resume_turn,
    run_turn,
    thread_card,
    timeline_dot,
    write_timeline,
)
from playground.lessons.race import RACE_THREAD, race_resumes
from playground.savers import open_saver

A, B = THREADS


def _lab(api_url, tenant, checkpoints, request):
    """An agent graph per thread, each writing as ``agent:<thread>`` like the page does."""
    saver_context = open_saver(checkpoints)
    saver = saver_context.__enter__()
    clients = {name: TicketClient(api_url, tenant=tenant, actor=agent_actor(name))
               for name in (*THREADS, RACE_THREAD)}
    graphs = {name: build_agent(client, saver) for name, client in clients.items()}

    def close():
        for client in clients.values():
            client.close()
        saver_context.__exit__(None, None, None)

    request.addfinalizer(close)
    return saver, graphs


def test_colleague_edit_between_turns_makes_resume_answer_412_and_keeps_their_edit(
    api_url, tenant, checkpoints, client, colleague, request
):
    _, graphs = _lab(api_url, tenant, checkpoints, request)
    started = run_turn(graphs[A], A, first_request(A, "t7"))
    assert started.kind == "success"
    assert 'conflict-a read t7 at "v1" and proposes priority high' in started.text

    edit = colleague_edit(colleague, "t7", avoid=["high"])
    assert edit.values["priority"] == "urgent"
    assert edit.values["etag"] == '"v2"'

    resumed = resume_turn(graphs[A], A, client)

    assert resumed.kind == "error"
    assert '412: ticket is at v2, you read "v1"' in resumed.text
    assert "colleague changed t7 after the agent read it (priority -> urgent)" in resumed.text
    assert "run a new turn" in resumed.text
    assert client.get_ticket("t7").body["priority"] == "urgent"
    assert [e["actor"] for e in client.history("t7")] == ["colleague"]


def test_replan_after_412_reads_the_current_version_and_the_next_resume_writes(
    api_url, tenant, checkpoints, client, colleague, request
):
    _, graphs = _lab(api_url, tenant, checkpoints, request)
    run_turn(graphs[A], A, first_request(A, "t7"))
    colleague_edit(colleague, "t7", avoid=["high"])
    resume_turn(graphs[A], A, client)

    replanned = replan(graphs[A], A, "unused")
    written = resume_turn(graphs[A], A, client)

    assert replanned.kind == "info"
    assert 're-read t7 at "v2"' in replanned.text
    assert written.kind == "success"
    assert 'priority is high at "v3"' in written.text
    assert [e["actor"] for e in client.history("t7")] == ["colleague", agent_actor(A)]


def test_two_threads_that_read_one_version_are_stale_after_the_first_writes(
    api_url, tenant, checkpoints, client, request
):
    _, graphs = _lab(api_url, tenant, checkpoints, request)
    run_turn(graphs[A], A, first_request(A, "t7"))
    run_turn(graphs[B], B, first_request(B, "t7"))
    assert resume_turn(graphs[A], A, client).kind == "success"

    def etag(ticket_id):
        return client.get_ticket(ticket_id).etag

    card = thread_card(graphs[B], B, etag)
    refused = resume_turn(graphs[B], B, client)

    assert card.status == "paused" and card.stale and card.held == '"v1"'
    assert card.proposed == {"priority": "low"}
    assert refused.kind == "error"
    assert "agent:conflict-a changed t7 after the agent read it" in refused.text
    assert thread_card(graphs[B], B, etag).status == "refused"
    assert client.get_ticket("t7").body["priority"] == "high"


def test_timeline_lists_each_write_attempt_with_its_if_match_and_answer_in_order(
    api_url, tenant, checkpoints, client, colleague, request
):
    _, graphs = _lab(api_url, tenant, checkpoints, request)
    run_turn(graphs[A], A, first_request(A, "t7"))
    colleague_edit(colleague, "t7", avoid=["high"])
    resume_turn(graphs[A], A, client)
    replan(graphs[A], A, "unused")
    resume_turn(graphs[A], A, client)

    rows = write_timeline(graphs[A], {A: A, B: B}, "t7", client.history("t7"))

    assert [(r.who, r.sent, r.answer, r.result) for r in rows] == [
        ("colleague", '"v1"', '"v2"', "written"),
        ("agent conflict-a", '"v1"', "412", "refused"),
        ("agent conflict-a", '"v2"', '"v3"', "written"),
    ]
    assert "colleague changed t7 after the agent read it" in rows[1].why
    assert "The agent read v1; the ticket is now at v2" in rows[1].why
    dot = timeline_dot(rows, "t7")
    assert "t7 v3" in dot and "412" in dot


def test_two_concurrent_resumes_fork_the_thread_and_write_once(
    api_url, tenant, checkpoints, client, request
):
    saver, graphs = _lab(api_url, tenant, checkpoints, request)

    race = race_resumes(api_url, tenant, saver, checkpoints, RACE_THREAD, "t7")

    # LangGraph: both resumes saved a child of the paused checkpoint, silently.
    assert race.forked and len(race.branches) == 2
    assert race.lines == ('resumed with ticket t7: priority is high at "v2"',) * 2
    # The API: one write; the same Idempotency-Key made the second PATCH a replay.
    assert race.same_key
    assert [(r.if_match, r.status, r.etag) for r in race.requests] == [('"v1"', 200, '"v2"')] * 2
    agent_writes = [e for e in client.history("t7") if e["actor"].startswith("agent")]
    assert len(agent_writes) == 1 and len(race.new_writes) == 1
    assert "the same Idempotency-Key" in race.explanation()
    assert "Without the key, the second PATCH would have been refused with 412" in (
        race.explanation()
    )
    assert race.paused_checkpoint in race.tree_dot

    rows = write_timeline(graphs[RACE_THREAD], {RACE_THREAD: RACE_THREAD}, "t7",
                          client.history("t7"))
    assert [r.result for r in rows] == ["written", "replayed"]


def test_two_concurrent_resumes_without_the_key_fork_and_the_api_answers_412(
    api_url, tenant, checkpoints, client, request
):
    saver, _ = _lab(api_url, tenant, checkpoints, request)

    race = race_resumes(api_url, tenant, saver, checkpoints, RACE_THREAD, "t7", send_key=False)

    assert race.forked
    assert sorted(r.status for r in race.requests) == [200, 412]
    assert len([e for e in client.history("t7") if e["actor"].startswith("agent")]) == 1
    assert "refused the other PATCH with 412" in race.explanation()


def test_reset_restores_the_seed_tickets_and_empties_the_lab_threads(
    api_url, tenant, checkpoints, client, colleague, request
):
    saver, graphs = _lab(api_url, tenant, checkpoints, request)
    run_turn(graphs[A], A, first_request(A, "t7"))
    colleague_edit(colleague, "t7")

    reset_lab(client, saver, [A, B])

    assert client.get_ticket("t7").etag == '"v1"'
    assert thread_card(graphs[A], A, lambda _: None).status == "new"
