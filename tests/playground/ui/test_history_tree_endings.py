"""History's tree says at a branch's tip how its last step ended: the ticket agent's fork whose
write met a 412 reads ``412 refused``, never ``finished``. The agent and the ticket API are real.
"""

from __future__ import annotations

from tests.playground.ui.conftest import UiHelpers


def _tips(at) -> dict[int, str]:
    """The tree's branch labels by the ordinal of their tip."""
    return {row["ordinal"]: row["tip"] for row in UiHelpers.tree(at)[1] if row["tip"]}


def test_a_fork_whose_write_met_412_reads_412_refused_at_its_tip(app, ui):
    at = app()
    at.switch_page("views/agent.py").run()
    ui.button(at, "Run turn").click().run()
    ui.button(at, "Resume").click().run()  # the write goes through: the ticket is at v2
    at.switch_page("views/history.py").run()
    ui.button(at, "Previous").click().run()  # #4, paused before write, holding v1
    changes = next(t for t in at.text_input if t.label.startswith("changes"))
    changes.input('{"priority": "low"}').run()  # the button wakes on a change

    ui.button(at, "Fork with edit").click().run()

    assert not at.exception
    assert "outcome: 412" in ui.texts(at)
    tips = _tips(at)
    assert tips[max(tips)] == "head · 412 refused · fork of #4 (edited)"
    assert tips[5] == "written v2 · original run"


def test_the_tips_of_a_graph_that_offers_no_words_still_read_finished(graph_app, ui):
    from tests.playground.ui.conftest import EXAMPLES

    at = graph_app(f"{EXAMPLES}/support_chat.py:graph")
    at.chat_input(key="run-message").set_value("Where is my order A17?").run()
    at.switch_page("views/history.py").run()

    tips = _tips(at)

    assert list(tips.values()) == ["head · finished · original run"]
