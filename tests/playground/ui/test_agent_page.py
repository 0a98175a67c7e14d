"""Agent page: turn 1, restart, resume from the file alone, the 412 in plain words."""

from __future__ import annotations


def _agent(app):
    at = app()
    return at.switch_page("views/agent.py").run()


def test_agent_page_renders_on_an_empty_workspace(app, ui):
    at = _agent(app)

    assert not at.exception
    assert at.text_input(key="request").value == "raise t7 to high"
    for label in ("Run turn", "Resume", "Restart process"):
        ui.button(at, label)
    assert len(at.get("graphviz_chart")) == 1


def test_run_turn_pauses_before_write_and_highlights_it(app, ui):
    at = _agent(app)

    ui.button(at, "Run turn").click().run()

    assert not at.exception
    assert 'read t7 at "v1", proposed {"priority": "high"}' in ui.texts(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "write" in dot and "#ffd166" in dot  # the node it waits at is filled
    assert "Paused before **write**" in ui.texts(at)


def test_the_state_shows_the_etag_as_the_api_wrote_it(app, ui):
    at = _agent(app)

    ui.button(at, "Run turn").click().run()

    state = ui.blocks(at)
    assert 'etag: "v1"' in state and 'ticket_id: "t7"' in state
    assert '""v1""' not in state and '\\"v1' not in state  # not quoted a second time


def test_resume_after_restart_works_from_the_checkpoint_file_alone(app, ui):
    at = _agent(app)
    ui.button(at, "Run turn").click().run()

    ui.button(at, "Restart process").click().run()
    assert "Process restarted" in ui.texts(at)
    ui.button(at, "Resume").click().run()

    assert not at.exception
    assert 'resumed with ticket t7: priority is high at "v2"' in ui.texts(at)


def test_the_outcome_in_the_state_reads_its_quotes_without_a_backslash(app, ui):
    at = _agent(app)
    ui.button(at, "Run turn").click().run()
    ui.button(at, "Resume").click().run()

    state = ui.blocks(at)
    assert """outcome: 'priority is high at "v2"'""" in state, state
    assert 'etag: "v2"' in state and '\\"' not in state


def test_resume_after_someone_else_edited_explains_the_412(app, ui, client_for):
    at = _agent(app)
    ui.button(at, "Run turn").click().run()
    colleague = client_for(at, actor="sam")
    colleague.patch_ticket("t7", {"priority": "urgent"}, colleague.get_ticket("t7").etag)

    ui.button(at, "Resume").click().run()

    shown = ui.texts(at)
    assert '412: ticket is at v2, you read "v1"' in shown
    assert "sam changed t7 after the agent read it" in shown
    assert "run a new turn" in shown


def test_unclear_request_is_answered_and_nothing_pauses(app, ui):
    at = _agent(app)
    at.text_input(key="request").input("make coffee").run()

    ui.button(at, "Run turn").click().run()

    assert "could not understand 'make coffee'" in ui.texts(at)
    assert "Paused before" not in ui.texts(at)


def test_restart_in_one_session_leaves_other_sessions_saver_open(app, ui):
    from playground.ui import resources

    other = _agent(app)
    ui.button(other, "Run turn").click().run()
    in_use = resources.saver()  # what another session may be in the middle of a call on
    at = _agent(app)

    ui.button(at, "Restart process").click().run()

    # not closed under them: a read through it still answers
    assert in_use.get_tuple({"configurable": {"thread_id": "nobody"}}) is None
    assert resources.saver() is not in_use  # the next step gets a new saver
    ui.button(other, "Resume").click().run()
    assert 'priority is high at "v2"' in ui.texts(other)
