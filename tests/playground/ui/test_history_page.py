"""History page: tree, stepping, inspector, replay, fork with edit, refused edits."""

from __future__ import annotations

import os
import sqlite3

import pytest

from tests.playground.ui.conftest import UiHelpers, compare_steps, rendered


def _count_checkpoints(path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]


def _field(at, label_start: str):
    """The fork form's text box whose label starts with ``label_start`` (``changes · ...``)."""
    return next(t for t in at.text_input if t.label.startswith(label_start))


def _type(at, label_start: str, text: str):
    """Type into a fork form's field and let it commit, as the browser does after a pause
    (or on Enter): the page reruns, and nothing is written."""
    _field(at, label_start).input(text).run()
    return at


def _drawn_checkpoints(at) -> int:
    return len(UiHelpers.tree(at)[1])


def _tree_size(at) -> int:
    """The checkpoint count the page states under the tree."""
    caption = next(c.value for c in at.caption if " checkpoints · " in c.value)
    return int(caption.split(" checkpoints")[0].replace(",", ""))


@pytest.fixture
def paused(app, ui):
    """A session that ran turn 1 on the Agent page, now on the History page."""
    at = app()
    at.switch_page("views/agent.py").run()
    ui.button(at, "Run turn").click().run()
    return at.switch_page("views/history.py").run()


def test_history_page_on_an_empty_workspace_points_to_the_agent(app, ui):
    at = app()
    at.switch_page("views/history.py").run()

    assert not at.exception
    assert "has no checkpoints yet" in ui.texts(at)


def test_history_shows_the_tree_and_selects_the_head(paused, ui):
    assert not paused.exception
    assert _drawn_checkpoints(paused) == 4
    assert "**Checkpoint #4**" in ui.texts(paused)
    assert "**write**" in ui.texts(paused)  # what runs next


def test_previous_steps_back_and_the_url_carries_the_checkpoint(paused, ui):
    head = paused.query_params.get("checkpoint")

    ui.button(paused, "Previous").click().run()

    assert "**Checkpoint #3**" in ui.texts(paused)
    assert paused.query_params["checkpoint"] != head


def test_replay_from_an_old_checkpoint_grows_a_new_branch(paused, ui, tmp_path):
    ui.button(paused, "Previous").click().run()
    ui.button(paused, "Previous").click().run()  # #2: after the input, before read

    ui.button(paused, "Replay from here").click().run()

    assert not paused.exception
    assert "new checkpoints on a new branch" in ui.texts(paused)
    assert _tree_size(paused) > 4 and _drawn_checkpoints(paused) == _tree_size(paused)
    assert "· 2 branches ·" in ui.texts(paused)  # the old run and the replay


def test_fork_with_edited_plan_runs_the_write_with_the_edit(paused, ui, client_for):
    _type(paused, "changes", '{"priority": "low"}')  # a dict: typed as JSON

    ui.button(paused, "Fork with edit").click().run()

    assert not paused.exception
    shown = ui.texts(paused)
    assert 'Forked #4 with {"changes": {"priority": "low"}}' in shown
    assert "continuing this branch" in shown  # #4 was the head: no sibling to branch from
    assert 'priority is low at "v2"' in shown
    assert _tree_size(paused) == 6  # the update checkpoint and the write's, after #4
    assert client_for(paused).get_ticket("t7").body["priority"] == "low"


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("changes", "5", "wrong type for 'changes'"),
        ("changes", "low", "changes: not valid JSON"),
        (None, '{"priority": 5}', "wrong type for 'priority'"),
        (None, '{"prority": "high"}', "unknown key 'prority'"),
        (None, "{oops", "not valid JSON"),
    ],
)
def test_refused_edit_shows_why_and_writes_no_checkpoint(paused, ui, field, typed, message):
    path = os.environ["PLAYGROUND_CHECKPOINTS"]
    before = _count_checkpoints(path)
    if field:
        _type(paused, field, typed)
    else:
        ui.text_area(paused, "Other keys (JSON object)").input(typed).run()

    ui.button(paused, "Fork with edit").click().run()

    assert not paused.exception
    shown = ui.texts(paused)
    assert "Edit refused, nothing was written" in shown and message in shown
    assert _count_checkpoints(path) == before


def test_resume_the_head_finishes_the_paused_thread(paused, ui):
    ui.button(paused, "Resume the head").click().run()

    assert 'priority is high at "v2"' in ui.texts(paused)
    assert _tree_size(paused) == 5


def test_deep_link_opens_the_linked_checkpoint(app, ui, paused):
    room, thread = paused.query_params["room"], paused.query_params.get("thread", "thread-1")
    ui.button(paused, "Previous").click().run()
    link = paused.query_params["checkpoint"]

    other = app(room=room, thread=thread, checkpoint=link)
    other.switch_page("views/history.py").run()

    assert "**Checkpoint #3**" in ui.texts(other)


def test_compare_shows_a_fork_against_its_original_step_by_step(paused, ui):
    ui.button(paused, "Resume the head").click().run()
    ui.button(paused, "Previous").click().run()  # back to the pause before write
    _type(paused, "changes", '{"priority": "low"}')
    ui.button(paused, "Fork with edit").click().run()

    paused.segmented_control(key="history-view").set_value("Compare").run()

    assert not paused.exception
    shown = ui.texts(paused)
    assert ("First difference at step 1 after the common ancestor: only the right branch runs "
            "update_state") in shown
    steps = compare_steps(paused)
    assert list(steps[""]) == ["first difference", "differs"]
    assert list(steps["right node"]) == ["update_state", "write"]
    assert list(steps["left node"]) == ["-", "write"]
    assert list(steps["paths"]) == ["the paths part", "the paths meet again"]
    final = UiHelpers.blocks(paused)
    assert '"high" -> "low"' in final  # the tickets' priority each write set
    # back to the tree: the view switch keeps the page as it was
    paused.segmented_control(key="history-view").set_value("Explore").run()
    assert "**Checkpoint #" in ui.texts(paused)


def test_a_fork_from_a_stale_page_is_refused_and_writes_nothing(app, ui, paused):
    """Two tabs on one thread: the second acts on a drawing the first has moved past."""
    room, thread = paused.query_params["room"], paused.query_params.get("thread", "thread-1")
    other = app(room=room, thread=thread)
    other.switch_page("views/history.py").run()
    _type(other, "changes", '{"priority": "low"}')  # the second tab's edit, drawn
    drawn = _tree_size(other)

    ui.button(paused, "Resume the head").click().run()  # the first tab moves the thread on
    moved = _tree_size(paused)
    assert moved == drawn + 1
    stored = _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"])
    ui.button(other, "Fork with edit").click().run()

    assert not other.exception
    shown = ui.texts(other)
    assert ("Fork with edit refused, nothing was run: the thread moved on since this page was "
            f"drawn: checkpoint #{moved} is new, written by write") in shown
    assert _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"]) == stored  # nothing written
    assert f"**Checkpoint #{moved}**" in shown  # the page shows the new head


def test_rerun_after_a_routing_change_opens_compare_where_the_new_branch_parts(
        graph_app, ui, tmp_path):
    """Fix the code, Reload graph, re-run the old thread from its start: Compare opens on the
    original branch and the new one, parted where the new routing sends the thread."""
    from tests.playground.apps.user_graphs import write_support

    path = write_support(tmp_path)
    at = graph_app(f"{path}:graph")
    at.switch_page("views/run.py").run()
    for question in ("where is A17?", "and B22?"):
        at.chat_input(key="run-message").set_value(question).run()
    write_support(tmp_path, review=True)  # the author routes tool calls through a review
    ui.button(at, "Reload graph").click().run()
    at.switch_page("views/history.py").run()
    stored = _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"])
    next(s for s in at.slider if s.label == "Checkpoint (creation order)").set_value(1).run()
    assert "**Checkpoint #1**" in ui.texts(at)

    ui.button(at, "Re-run on current code").click().run()

    assert not at.exception
    shown = ui.texts(at)
    assert "Re-run on current code: played the recording to its end: finished" in shown
    assert "4 of 4 recorded model replies used" in shown
    assert at.segmented_control(key="history-view").value == "Compare"
    assert ("First difference at step 3 after the common ancestor: only the right branch runs "
            "review") in shown
    steps = compare_steps(at)
    assert list(steps["left node"])[:5] == ["input", "call_model", "-", "tools", "call_model"]
    assert list(steps["right node"])[:5] == ["input", "call_model", "review", "tools",
                                             "call_model"]
    assert list(steps["paths"])[2:4] == ["the paths part", "the paths meet again"]
    assert _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"]) > stored  # a new branch
    assert "(the same)" in UiHelpers.blocks(at)  # the same answers, by another way


def test_rerun_stops_where_the_recording_has_no_reply_and_says_why(graph_app, ui, tmp_path):
    from tests.playground.apps.user_graphs import write_support

    path = write_support(tmp_path)
    at = graph_app(f"{path}:graph")
    at.switch_page("views/run.py").run()
    at.chat_input(key="run-message").set_value("where is A17?").run()
    # The new code asks the model once more per question: the recording holds no reply.
    path.write_text(path.read_text().replace(
        'builder.add_edge("tools", "call_model")',
        'builder.add_node("again", call_model)\n'
        'builder.add_edge("tools", "again")\n'
        'builder.add_edge("again", "call_model")'))
    ui.button(at, "Reload graph").click().run()
    at.switch_page("views/history.py").run()
    next(s for s in at.slider if s.label == "Checkpoint (creation order)").set_value(1).run()

    ui.button(at, "Re-run on current code").click().run()

    assert not at.exception
    shown = ui.texts(at)
    assert ("Re-run on current code stopped in call_model: the model was called 3 times, and "
            "the recording holds 2 replies") in shown
    assert at.segmented_control(key="history-view").value == "Compare"


def test_rerun_of_the_ticket_agent_reads_the_ticket_again_and_compare_shows_the_new_etag(
        paused, ui):
    """The ticket agent's calls go to the real ticket API: a re-run of turn 1 after the write
    reads the ticket as it is now, so its ETag differs from the one the first read got."""
    ui.button(paused, "Resume the head").click().run()  # the write: the ticket's ETag moves
    next(s for s in paused.slider if s.label == "Checkpoint (creation order)").set_value(2).run()

    ui.button(paused, "Re-run on current code").click().run()

    assert not paused.exception
    shown = ui.texts(paused)
    assert "Re-run on current code: played the recording to its end: finished" in shown
    assert paused.segmented_control(key="history-view").value == "Compare"
    steps = compare_steps(paused)
    assert list(steps["left node"]) == list(steps["right node"]) == ["read", "plan", "write"]
    assert ("First difference at step 1 after the common ancestor: both run read, writing "
            "other values (etag, priority)") in shown
    assert "model replies" not in shown  # a graph with no chat model has none to answer


def test_a_rerun_from_a_stale_page_is_refused_and_writes_nothing(app, ui, paused):
    room, thread = paused.query_params["room"], paused.query_params.get("thread", "thread-1")
    other = app(room=room, thread=thread)
    other.switch_page("views/history.py").run()
    next(s for s in other.slider if s.label == "Checkpoint (creation order)").set_value(2).run()
    ui.button(paused, "Resume the head").click().run()  # the first tab moves the thread on
    stored = _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"])

    ui.button(other, "Re-run on current code").click().run()

    assert not other.exception
    assert ("Re-run on current code refused, nothing was run: the thread moved on since this "
            "page was drawn: checkpoint #5 is new, written by write") in ui.texts(other)
    assert _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"]) == stored


def _support_chat_with_an_edited_fork(graph_app):
    """The support example asked about A17, the question edited to B22 on Run (Edit and fork),
    then History."""
    from tests.playground.ui.conftest import EXAMPLES

    at = graph_app(f"{EXAMPLES}/support_chat.py:graph")
    at.switch_page("views/run.py").run()
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()
    next(t for t in at.text_area if t.label == "Edited message").input("Where is my order B22?")
    next(b for b in at.button if b.label == "Fork from here").click().run()
    return at.switch_page("views/history.py").run()


def test_compare_of_an_edited_message_fork_of_the_support_example_shows_the_messages(
        graph_app, ui):
    at = _support_chat_with_an_edited_fork(graph_app)

    at.segmented_control(key="history-view").set_value("Compare").run()

    assert not at.exception
    assert ("First difference at step 1 after the common ancestor: the left branch runs input, "
            "the right runs update_state") in ui.texts(at)
    steps = compare_steps(at)
    assert list(steps["right node"])[:2] == ["update_state", "triage"]
    assert "Where is my order B22?" in steps["right wrote"][0]  # the edit, not the original
    final = UiHelpers.blocks(at)
    assert "- human: Where is my order A17?" in final
    assert "+ human: Where is my order B22?" in final
    assert '+ tool call lookup_order(order_id="B22")' in final


def test_at_a_fork_point_the_rerun_offers_each_branch_the_walked_one_first(graph_app, ui):
    at = _support_chat_with_an_edited_fork(graph_app)
    next(s for s in at.slider if s.label == "Checkpoint (creation order)").set_value(1).run()

    picker = at.selectbox(key="history-rerun-branch")  # its options as the page says them
    assert picker.options[0].endswith("· finished · original run")  # #1 is on the original
    assert any("fork of #1 (edited)" in option for option in picker.options)
    assert "the branch to #6 · finished · original run recorded" in ui.texts(at)
    assert not ui.button(at, "Re-run on current code").disabled


def test_rerun_of_a_branch_holding_an_edit_is_off_and_says_where_to_start(graph_app, ui):
    at = _support_chat_with_an_edited_fork(graph_app)
    next(s for s in at.slider if s.label == "Checkpoint (creation order)").set_value(1).run()
    stored = _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"])
    picker = at.selectbox(key="history-rerun-branch")
    edited = next(i for i, option in enumerate(picker.options) if "(edited)" in option)

    picker.select_index(edited).run()

    assert not at.exception
    assert "That branch holds a state edit at #7 (update_state)" in ui.texts(at)
    assert ui.button(at, "Re-run on current code").disabled
    assert _count_checkpoints(os.environ["PLAYGROUND_CHECKPOINTS"]) == stored


def test_rerun_is_off_on_the_tip_of_a_branch_and_on_before_it(paused, ui):
    assert ui.button(paused, "Re-run on current code").disabled  # the head: nothing after it

    ui.button(paused, "Previous").click().run()

    assert not ui.button(paused, "Re-run on current code").disabled


def test_a_fork_whose_write_is_refused_with_412_is_no_success(paused, ui, client_for):
    colleague = client_for(paused, actor="sam")
    colleague.patch_ticket("t7", {"priority": "urgent"}, colleague.get_ticket("t7").etag)
    _type(paused, "changes", '{"priority": "low"}')

    ui.button(paused, "Fork with edit").click().run()

    assert not paused.exception
    assert not paused.success  # no green box for a refused write
    warned = " ".join(rendered(str(w.value)) for w in paused.warning)
    assert "Forked #4" in warned and "outcome: 412" in warned


def test_a_result_is_said_once_on_its_own_page_and_thread(paused, ui):
    ui.button(paused, "Replay from here").click().run()
    assert "Replayed from #4" in ui.texts(paused)

    paused.switch_page("views/schema.py").run()
    assert "Replayed from #" not in ui.texts(paused)  # another page: not its news
    paused.switch_page("views/history.py").run()
    assert "Replayed from #" not in ui.texts(paused)  # said once, not again on return
    assert not paused.toast  # and said in the page, not also in a toast over it


def test_a_compared_step_picked_in_the_table_shows_what_each_side_wrote_whole(paused, ui):
    ui.button(paused, "Previous").click().run()
    ui.button(paused, "Replay from here").click().run()  # a second branch beside the first
    paused.segmented_control(key="history-view").set_value("Compare").run()
    assert "Click a step to read what each side wrote, whole." in ui.texts(paused)

    # a click on the table's first row, as the browser reports it
    paused.session_state["history-compare-steps"] = {"selection": {"rows": [0], "columns": []}}
    paused.run()

    assert "**Step 1**: what each side wrote" in ui.texts(paused)
    assert "left: " in ui.texts(paused) and "right: " in ui.texts(paused)


def test_the_fork_form_edits_a_message_as_text_and_the_branch_holds_a_real_human_message(
        graph_app, ui):
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from tests.playground.ui.conftest import EXAMPLES

    at = graph_app(f"{EXAMPLES}/support_chat.py:graph")
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()
    at.switch_page("views/history.py").run()
    ui.button(at, "Previous").click().run()  # before the answer: the question alone, say
    labels = [t.label for t in at.text_area]
    assert "1 · human" in labels  # a message as text, with its role; no raw type name
    assert not [t for t in at.text_input if "__type__" in (t.value or "")]
    assert "list[message]" in ui.texts(at)

    next(t for t in at.text_area if t.label == "1 · human").input("Where is my order B22?").run()
    ui.button(at, "Fork with edit").click().run()

    assert not at.exception
    assert "Forked #" in ui.texts(at) and "human: Where is my order B22?" in ui.texts(at)
    with sqlite3.connect(os.environ["PLAYGROUND_CHECKPOINTS"], check_same_thread=False) as conn:
        saver = SqliteSaver(conn)
        head = max(saver.list(None), key=lambda t: t.checkpoint["ts"])
        first = head.checkpoint["channel_values"]["messages"][0]
    assert isinstance(first, HumanMessage) and first.content == "Where is my order B22?"


def _fork_button(at):
    return UiHelpers.button(at, "Fork with edit")


def test_a_str_field_is_typed_as_text_and_forks_with_that_string(paused, ui, client_for):
    """The ticket id typed as t3 and t3's ETag as the API gives it, no quotes added: the
    paused write goes to ticket t3."""
    t3 = client_for(paused).get_ticket("t3")
    assert _field(paused, "ticket_id").value == "t7"  # the string itself, no quotes
    _type(paused, "ticket_id", "t3")
    _type(paused, "etag", t3.etag)

    _fork_button(paused).click().run()

    assert not paused.exception
    assert 'Forked #4 with {"ticket_id": "t3"' in ui.texts(paused)
    assert not paused.error and not paused.warning  # the write was not refused
    assert client_for(paused).get_ticket("t3").body["priority"] == "high"


def test_an_etag_reads_with_its_quotes_in_the_fork_form(paused, client_for):
    etag = _field(paused, "etag").value

    assert etag == client_for(paused).get_ticket("t7").etag  # "v1", its own quotes and all
    assert etag.startswith('"') and "\\" not in etag


def test_null_writes_none_to_an_optional_str_field(paused, ui):
    from langgraph.checkpoint.sqlite import SqliteSaver

    null = next(c for c in paused.checkbox
                if c.label == "null" and (c.key or "").startswith("field-priority-"))
    assert not null.value  # t7's priority is a string
    null.check().run()
    assert _field(paused, "priority").disabled  # greyed out: the value is None, not its text

    _fork_button(paused).click().run()

    assert not paused.exception
    assert 'Forked #4 with {"priority": null}' in ui.texts(paused)
    with sqlite3.connect(os.environ["PLAYGROUND_CHECKPOINTS"], check_same_thread=False) as conn:
        edits = [t for t in SqliteSaver(conn).list(None) if t.metadata.get("source") == "update"]
    assert len(edits) == 1 and edits[0].checkpoint["channel_values"]["priority"] is None


def test_fork_with_edit_is_disabled_until_a_value_differs(paused, ui):
    path = os.environ["PLAYGROUND_CHECKPOINTS"]
    before = _count_checkpoints(path)
    assert _fork_button(paused).disabled
    assert "Nothing differs from checkpoint #4 yet" in ui.texts(paused)
    request = _field(paused, "request").value

    _type(paused, "request", "raise t7 to low")  # committed as Enter commits it: no fork
    assert not _fork_button(paused).disabled
    assert _count_checkpoints(path) == before

    _type(paused, "request", request)  # typed back as it was
    assert _fork_button(paused).disabled
    _type(paused, "changes", '{"priority":"high"}')  # the same value, spaced otherwise
    assert _fork_button(paused).disabled
    assert _count_checkpoints(path) == before


def test_the_fork_success_message_stays_after_a_rerun(paused, ui):
    said = 'Forked #4 with {"changes": {"priority": "low"}}'
    _type(paused, "changes", '{"priority": "low"}')
    _fork_button(paused).click().run()
    assert said in ui.texts(paused)
    assert _fork_button(paused).disabled  # on the new head nothing differs: no second click

    paused.run()
    assert said in ui.texts(paused)
    _type(paused, "request", "raise t7 to high, please")  # typing reruns the page: still said
    assert said in ui.texts(paused) and "Edit refused" not in ui.texts(paused)

    ui.button(paused, "Replay from here").click().run()  # the next action: its own news
    assert said not in ui.texts(paused)
