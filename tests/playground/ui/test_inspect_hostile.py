"""Inspect on databases, exports, URLs and links built to hurt (AppTest): each ends in the
page's one line or a broken link drawn on its checkpoint, within its bounds, and no text from a
database reaches the page as markup."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest

from tests.playground import hostile_cases as cases
from tests.playground.ui.conftest import rendered

PIXEL = "http://127.0.0.1:9/pixel.png"  # never fetched: nothing may even try
# Markdown that would render as an image or a link: "](" with no backslash before the "]".
_MARKUP = re.compile(r"(?<!\\)\]\(|(?<!\\)<img")


@pytest.fixture
def inspect_dir(tmp_path, monkeypatch):
    folder = tmp_path / "inspect"
    folder.mkdir()
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(folder))
    monkeypatch.setenv("PLAYGROUND_READ_TIMEOUT", "3")
    from playground.timetravel.limits import reset_limits

    reset_limits()
    yield folder
    reset_limits()


@pytest.fixture
def inspect(app, inspect_dir):
    def open_file(writer, name: str):
        writer(inspect_dir / name)
        at = app().switch_page("views/inspect.py").run()
        files = at.selectbox(key="inspect-file")
        files.select_index(files.options.index(f"inspect/{name}")).run()
        at.button(key="inspect-open-file").click().run()
        assert not at.exception, at.exception
        return at

    return open_file


def _markup_in(at) -> list[str]:
    """Every element body that would render database text as a link or an image."""
    bodies = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title",
                 "subheader", "toast"):
        bodies += [str(element.value) for element in getattr(at, kind, [])]
    bodies += [str(e.label) for e in at.expander]
    return [body for body in bodies if _MARKUP.search(body)]


def test_a_thread_whose_parents_loop_is_drawn_with_a_broken_link(inspect, ui):
    at = inspect(cases.write_cycles, "cycles.sqlite")
    at.selectbox(key="inspect-thread").set_value(cases.CYCLE_THREAD).run()

    assert not at.exception
    assert "checkpoints · 2 branches" in ui.texts(at)
    broken = [row["id"] for row in ui.tree(at)[1] if row["kind"] == "broken parent link"]
    assert broken
    at.text_input(key="inspect-tree-jump").set_value(cases.LOOP_A).run()
    assert "Broken link: its parent links make a loop through 2 checkpoints" in ui.texts(at)


@pytest.mark.parametrize("writer", [cases.write_endless_view, cases.write_rows_view])
def test_a_view_for_a_table_is_one_line_and_nothing_opens(inspect, writer):
    at = inspect(writer, "view.sqlite")

    assert len(at.error) == 1
    assert "checkpoints is a view, not a table; it is not read" in rendered(at.error[0].value)


def test_a_value_nested_a_thousand_levels_shows_as_too_deep(inspect, ui):
    at = inspect(cases.write_deep_value, "deep.sqlite")
    at.selectbox(key="inspect-thread").set_value("deep").run()

    assert not at.exception
    assert "too deep to show" in at.json[0].value
    assert any("too deep to show" in text.value for text in at.text)  # Diff vs parent


def test_a_blob_of_tiny_extension_values_is_too_large_to_show(inspect, ui):
    at = inspect(cases.write_blowup, "blowup.sqlite")

    assert not at.exception
    assert "too large to show (more than 200,000 objects" in ui.texts(at)


def test_a_ten_megabyte_thread_id_is_listed_cut_short(inspect):
    at = inspect(cases.write_long_thread_id, "long.sqlite")

    assert not at.exception
    ids = list(at.dataframe[0].value["thread"])
    assert max(len(i) for i in ids) <= 200


def _upload_copies() -> set:
    """This process's upload copies (a copy's folder is named for the process that made it:
    another test process, running beside this one, makes and deletes its own)."""
    from playground.ui.inspect_access import _UPLOAD_PREFIX

    return set(Path(tempfile.gettempdir()).glob(f"{_UPLOAD_PREFIX}{os.getpid()}-*"))


def test_an_upload_of_a_view_is_refused_and_its_copy_deleted(app, inspect_dir, tmp_path):
    before = _upload_copies()
    data = cases.write_endless_view(tmp_path / "v.sqlite").read_bytes()
    at = app().switch_page("views/inspect.py").run()

    at.file_uploader(key="inspect-upload").upload("theirs.sqlite", data).run()

    assert "checkpoints is a view, not a table" in rendered(at.error[0].value)
    assert _upload_copies() <= before


def test_an_uploads_copy_goes_when_its_session_does(app, inspect_dir):
    import gc

    from playground.ui.inspect_access import SAMPLES_DIR

    before = _upload_copies()
    at = app().switch_page("views/inspect.py").run()
    at.file_uploader(key="inspect-upload").upload(
        "theirs.sqlite", (SAMPLES_DIR / "sample-app.sqlite").read_bytes()).run()
    assert len(_upload_copies() - before) == 1

    del at  # the tab closed: Streamlit drops the session and its state
    gc.collect()

    assert _upload_copies() <= before


def test_a_killed_servers_upload_copies_are_deleted_by_playground_run(tmp_path):
    from playground.ui.inspect_access import _UPLOAD_PREFIX, discard_uploads_of

    left = Path(tempfile.mkdtemp(prefix=f"{_UPLOAD_PREFIX}4242-"))
    (left / "theirs.sqlite").write_bytes(b"SQLite format 3\x00")
    other = Path(tempfile.mkdtemp(prefix=f"{_UPLOAD_PREFIX}4343-"))

    discard_uploads_of(4242)

    assert not left.exists() and other.exists()
    other.rmdir()


@pytest.mark.parametrize(("make", "message"), [
    (lambda: json.dumps(cases.cycle_export()), "its parent link loops back to itself"),
    (cases.deep_export, "nests too deep to read"),
])
def test_import_thread_of_a_crafted_export_is_refused_in_one_line(app, inspect_dir, make,
                                                                  message):
    at = app().switch_page("views/inspect.py").run()

    at.file_uploader(key="inspect-import").upload("bug.json", make().encode()).run()

    assert not at.exception
    assert len(at.error) == 1 and message in rendered(at.error[0].value)


@pytest.mark.parametrize(("url", "message"), [
    ("postgresql://app@db.internal.example/playground?hostaddr=203.0.113.9",
     "'hostaddr' is not accepted"),
    ("postgresql://app@h1,h2,h3/playground", "several hosts"),
    ("postgresql://app@h/playground?passfile=/root/.pgpass", "'passfile' is not accepted"),
    ("postgresql://app@h/playground?service=prod", "'service' is not accepted"),
    ("postgresql://app@h/playground?connect_timeout=600", "connect_timeout must be"),
])
def test_a_typed_postgres_url_asking_for_more_than_a_database_is_refused(app, inspect_dir, url,
                                                                         message):
    at = app().switch_page("views/inspect.py").run()
    at.text_input(key="inspect-pg-url").input(url)

    at.button(key="FormSubmitter:inspect-pg-form-Connect").click().run()

    assert len(at.error) == 1 and message in rendered(at.error[0].value)


def test_a_password_in_a_typed_url_is_never_echoed(app, inspect_dir):
    at = app().switch_page("views/inspect.py").run()
    at.text_input(key="inspect-pg-url").input(
        "postgresql://u:p@ss-w0rd@127.0.0.1:1/app?sslmode=disable")

    at.button(key="FormSubmitter:inspect-pg-form-Connect").click().run()

    shown = "\n".join(rendered(str(e.value)) for e in at.error)
    assert "p@ss-w0rd" not in shown and "ss-w0rd" not in shown and "u:***@127.0.0.1" in shown


def test_no_database_text_reaches_a_page_as_markup(inspect, ui):
    at = inspect(lambda path: cases.write_markup(path, PIXEL), "markup.sqlite")
    thread = at.selectbox(key="inspect-thread").options[0]
    at.selectbox(key="inspect-thread").set_value(thread).run()

    assert not at.exception
    texts = ui.texts(at)
    assert "![pixel](" in texts  # shown, as the literal characters it holds
    assert _markup_in(at) == []
    chats = [t for t in at.tabs if t.label == "Conversation"]
    assert chats


@pytest.mark.parametrize("page", ["views/history.py", "views/sizes.py", "views/run.py"])
def test_a_crafted_thread_link_renders_no_markup(app, page):
    link = f"![pixel]({PIXEL}) [Sign in again]({PIXEL}/login) <img src=x onerror=alert(1)>"
    at = app(thread=link)
    at.switch_page(page).run()

    assert not at.exception
    assert _markup_in(at) == []
