"""History's timeline opens readable: after a replay made a while after its run, the idle time
before it is folded from the start (the steps are not slivers beside one long idle bar), and the
"Fold long waits" toggle shows it and unfolds in one click; a branch that only ran opens at real
scale."""

from __future__ import annotations

import time

import pytest


@pytest.fixture
def paused(app, ui):
    """A session that ran turn 1 on the Agent page, now on the History page."""
    at = app()
    at.switch_page("views/agent.py").run()
    ui.button(at, "Run turn").click().run()
    return at.switch_page("views/history.py").run()


def _fold_toggle(at):
    toggles = [toggle for toggle in at.toggle if toggle.label == "Fold long waits"]
    assert len(toggles) == 1, [toggle.label for toggle in at.toggle]
    return toggles[0]


def test_a_replay_made_a_while_later_opens_with_its_idle_time_folded_and_one_click_unfolds(
        paused, ui):
    ui.button(paused, "Previous").click().run()
    ui.button(paused, "Previous").click().run()  # #2: after the input, before read
    time.sleep(1.0)  # the person reads the checkpoint before replaying it: idle, not running
    ui.button(paused, "Replay from here").click().run()

    assert not paused.exception
    assert _fold_toggle(paused).value  # on from the start, no click needed
    folds = [fold["label"] for fold in ui.timeline(paused)["folds"]]
    assert len(folds) == 1 and folds[0].endswith(" s idle folded"), folds
    assert "1 long wait folded (click a break on the chart" in ui.texts(paused)

    _fold_toggle(paused).set_value(False).run()

    assert not _fold_toggle(paused).value
    assert ui.timeline(paused)["folds"] == []
    assert "long wait folded" not in ui.texts(paused)


def test_a_branch_that_only_ran_opens_at_real_scale(paused, ui):
    assert not paused.exception
    assert not _fold_toggle(paused).value
    assert ui.timeline(paused)["folds"] == []
