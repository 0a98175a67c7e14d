"""Schema page: pause, the rename that strands, add-then-remove, and the repair."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest


@pytest.fixture
def page(app):
    """The Schema page in a fresh room, on temporary checkpoint and ticket files."""
    return app().switch_page("views/schema.py").run()


def click(at: AppTest, label: str) -> AppTest:
    return next(b for b in at.button if b.label == label).click().run()


def statuses(at: AppTest) -> list[str]:
    """The four steps' badges, in order."""
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    return [badge.split("[", 1)[1].split("]", 1)[0] for badge in badges[:4]]


def test_schema_page_renders_on_an_empty_workspace(page):
    assert not page.exception
    assert statuses(page) == ["to do", "to do", "to do", "to do"]
    assert next(b for b in page.button if b.label == "Deploy the rename and resume").disabled


def test_the_stranded_list_waits_until_the_rename_is_deployed(page, ui):
    at = click(page, "Pause a thread under etag")
    at = click(at, "Pause a thread and resume with both keys")

    assert statuses(at)[:2] == ["done", "to do"]
    assert len(at.dataframe) == 2  # step 1's and step 3's channels, no stranded list yet
    assert "Deploy the rename in step 2 first" in ui.texts(at)
    assert "cannot resume**" not in ui.texts(at)


def test_deploying_the_rename_leaves_the_paused_thread_stuck_and_explains_why(page, ui):
    at = click(page, "Pause a thread under etag")
    assert statuses(at)[0] == "done"

    at = click(at, "Deploy the rename and resume")

    assert not at.exception
    assert statuses(at)[:2] == ["done", "stuck"]
    shown = ui.texts(at)
    assert "ran nothing and raised nothing" in shown
    assert "no: unknown to the new graph" in at.dataframe[0].value.to_csv()
    stranded = at.dataframe[1].value  # the threads the version schema cannot resume
    assert list(stranded["thread"]) == ["schema-stranded"]
    assert "etag -> version" in stranded["suggested repair"][0]


def test_add_then_remove_resumes_and_writes(page, ui):
    at = click(page, "Pause a thread and resume with both keys")

    assert not at.exception
    assert statuses(at)[2] == "done"
    assert 'priority is high at "v2"' in ui.texts(at)


def test_preview_then_apply_repairs_the_thread_and_the_version_schema_resumes_it(page, ui):
    at = click(page, "Pause a thread under etag")
    at = click(at, "Deploy the rename and resume")
    assert next(b for b in at.button if b.label == "Apply the repair").disabled

    at = click(at, "Preview the repair (dry run)")
    assert "Nothing was written" in ui.texts(at)
    assert statuses(at)[3] == "to do"
    at = click(at, "Apply the repair")
    assert statuses(at)[1:] == ["repaired", "to do", "repaired"]
    at = click(at, "Resume with the version schema")

    assert not at.exception
    assert statuses(at) == ["done", "repaired", "to do", "done"]
    assert 'Repaired and written: resumed with ticket t7: priority is high at "v2"' in ui.texts(at)
