"""Conflicts page: a colleague's edit, the 412 in plain words, the timeline, racing resumes."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest


@pytest.fixture
def page(app):
    """The Conflicts page in a fresh room, on temporary checkpoint and ticket files."""
    return app().switch_page("views/conflicts.py").run()


def click(at: AppTest, label: str, key: str | None = None) -> AppTest:
    """Click the button with this label (and key, when labels repeat), and rerun."""
    button = next(b for b in at.button if b.label == label and (key is None or b.key == key))
    return button.click().run()


def timeline(at: AppTest):
    return at.dataframe[0].value


def test_conflicts_page_renders_on_an_empty_workspace(page, ui):
    assert not page.exception
    for label in ("Run turn", "Resume", "Re-read and re-plan", "Simulate concurrent edit",
                  "Resume one paused thread twice at once", "Start over"):
        assert any(b.label == label for b in page.button), label
    assert page.selectbox(key="conflict_ticket").value == "t7"
    assert "No write attempts yet" in ui.texts(page)


def test_colleague_edit_between_turns_is_refused_with_412_and_explained(page, ui):
    at = click(page, "Run turn", "run-conflict-a")
    assert 'conflict-a read t7 at "v1" and proposes priority high' in ui.texts(at)

    at = click(at, "Simulate concurrent edit")
    assert "Stale: someone wrote since it read" in ui.texts(at)
    at = click(at, "Resume", "resume-conflict-a")

    assert not at.exception
    shown = ui.texts(at)
    assert "colleague changed t7 after the agent read it (priority -> urgent)" in shown
    assert "Re-read and re-plan" in shown
    rows = timeline(at)
    assert list(rows["who"]) == ["colleague", "agent conflict-a"]
    assert list(rows["result"]) == ["written", "refused"]
    assert list(rows["If-Match sent"]) == ['"v1"', '"v1"']
    assert "412" in at.get("graphviz_chart")[0].proto.spec


def test_re_read_and_re_plan_recovers_and_the_timeline_grows_to_three_rows(page, ui):
    at = click(page, "Run turn", "run-conflict-a")
    at = click(at, "Simulate concurrent edit")
    at = click(at, "Resume", "resume-conflict-a")

    at = click(at, "Re-read and re-plan", "replan-conflict-a")
    assert 're-read t7 at "v2"' in ui.texts(at)
    at = click(at, "Resume", "resume-conflict-a")

    assert not at.exception
    assert 'priority is high at "v3"' in ui.texts(at)
    rows = timeline(at)
    assert len(rows) == 3
    assert list(rows["result"]) == ["written", "refused", "written"]


def test_two_concurrent_resumes_show_the_fork_and_one_write(page, ui):
    at = click(page, "Resume one paused thread twice at once")

    assert not at.exception
    shown = ui.texts(at)
    assert "the thread now has 2 branches from that checkpoint" in shown
    assert "the same Idempotency-Key" in shown
    assert "Without the key, the second PATCH would have been refused with 412" in shown
    assert [m.value for m in at.metric][-3:] == ["2", "1", "same on both"]
    assert list(timeline(at)["result"]) == ["written", "replayed"]


def test_start_over_resets_the_ticket_and_empties_the_timeline(page, ui):
    at = click(page, "Simulate concurrent edit")
    assert len(timeline(at)) == 1

    at = click(at, "Start over")

    assert not at.exception
    assert "No write attempts yet" in ui.texts(at)


def test_a_refused_resume_is_said_once_with_one_way_out(page, ui):
    at = click(page, "Run turn", "run-conflict-a")
    at = click(at, "Simulate concurrent edit")
    at = click(at, "Resume", "resume-conflict-a")

    shown = ui.texts(at)
    assert shown.count("Refused with 412") == 1, shown  # on conflict-a's card, nowhere else
    assert shown.count("Next:") == 1, shown
    assert [e.value for e in at.error if "412" in str(e.value)] != [], "said as a refusal"
    assert "Click a row to read its why whole here." in shown
    assert "why" in timeline(at).columns  # the reason stays in the table, without the way out
    assert not any("Next:" in why for why in timeline(at)["why"])
