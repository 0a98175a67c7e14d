"""Sizes page: the thread's bytes, the four-approach byte table, and pruning that keeps resume."""

from __future__ import annotations

import pytest

# The how-to's "ids and etag" row: resume loads and stored, after 1 turn and after 10 turns.
HOW_TO_IDS_ROW = (676, 1_566, 672, 21_618)


def _metric(at, label: str) -> int:
    value = next(m.value for m in at.metric if m.label == label)
    return int(value.removesuffix(" B").replace(",", ""))


@pytest.fixture
def sizes(app, ui, tmp_path, monkeypatch):
    """A session that ran turn 1 on the Agent page (paused before write), now on Sizes."""
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(tmp_path / "inspect"))
    at = app()
    at.switch_page("views/agent.py").run()
    ui.button(at, "Run turn").click().run()
    return at.switch_page("views/sizes.py").run()


def test_sizes_on_an_empty_thread_says_so_and_links_to_the_agent(app, ui, tmp_path, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(tmp_path / "inspect"))
    at = app()

    at.switch_page("views/sizes.py").run()

    assert not at.exception
    assert "has no checkpoints yet" in ui.texts(at)
    assert not at.metric
    assert [b.label for b in at.button if b.label == "Prune"] == []


def test_sizes_after_a_turn_shows_resume_load_below_stored_and_a_chart_per_view(sizes, ui):
    assert not sizes.exception
    assert 0 < _metric(sizes, "Resume loads") < _metric(sizes, "Stored")
    assert next(m.value for m in sizes.metric if m.label == "Checkpoints") == "4"
    charts = sizes.get("vega_lite_chart")
    assert len(charts) >= 2  # bytes per checkpoint, and stored vs resume
    assert "PostgresSaver stores one blob per channel version" in ui.texts(sizes)


def test_compare_over_ten_turns_reproduces_the_how_to_ids_row_within_one_percent(
    app, ui, tmp_path, monkeypatch
):
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(tmp_path / "inspect"))
    at = app()
    at.switch_page("views/sizes.py").run()

    ui.button(at, "Compare").click().run()

    assert not at.exception
    table = at.dataframe[0].value
    ids = table[table["approach"] == "LangGraph state, ids and etag"].iloc[0]
    measured = (ids["resume loads, after 1 turn"], ids["stored, after 1 turn"],
                ids["resume loads, after 10 turns"], ids["stored, after 10 turns"])
    for got, expected in zip(measured, HOW_TO_IDS_ROW, strict=True):
        assert abs(got - expected) <= expected / 100, (measured, HOW_TO_IDS_ROW)
    whole = table[table["approach"] == "LangGraph state, whole responses"].iloc[0]
    assert whole["stored, after 10 turns"] > 40 * ids["stored, after 10 turns"]
    # kept in the session: the next rerun shows the same table without measuring again
    at.run()
    assert at.dataframe[0].value.equals(table)


def test_prune_keeping_one_shrinks_stored_bytes_and_the_head_still_resumes(sizes, ui):
    before = _metric(sizes, "Stored")
    resume_load = _metric(sizes, "Resume loads")

    sizes.number_input(key="prune-keep").set_value(1).run()
    assert "Would delete **3** of 4 checkpoints" in ui.texts(sizes)
    ui.button(sizes, "Prune").click().run()

    assert not sizes.exception
    assert "Pruned 3 checkpoints" in ui.texts(sizes)
    assert _metric(sizes, "Stored") < before
    assert _metric(sizes, "Resume loads") == resume_load
    assert next(m.value for m in sizes.metric if m.label == "Checkpoints") == "1"

    sizes.switch_page("views/agent.py").run()
    ui.button(sizes, "Resume").click().run()
    assert not sizes.exception
    assert any("resumed with ticket t7" in s.value for s in sizes.success), ui.texts(sizes)


def test_prune_is_disabled_when_it_would_delete_nothing(sizes, ui):
    sizes.number_input(key="prune-keep").set_value(4).run()

    assert ui.button(sizes, "Prune").disabled
    assert "Nothing to delete" in ui.texts(sizes)
