"""Inspect page: open another app's checkpoint database read-only and browse its threads."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from playground.ui.inspect_access import SAMPLES_DIR
from tests.playground.ui.conftest import UiHelpers, compare_steps, rendered

SAMPLE = SAMPLES_DIR / "sample-app.sqlite"
SAMPLE_THREADS = {"support/ana", "support/ana-edited", "support/ben", "jobs/retry-loop",
                  "research/fan-out", "docs/subgraph", "chat/refund"}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def inspect_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "inspect"
    folder.mkdir()
    monkeypatch.setenv("PLAYGROUND_INSPECT_DIR", str(folder))
    return folder


@pytest.fixture
def page(app, inspect_dir):
    """A session on the Inspect page with nothing open."""
    at = app()
    return at.switch_page("views/inspect.py").run()


def _open_file(at, label: str):
    files = at.selectbox(key="inspect-file")
    files.select_index(files.options.index(label)).run()
    return at.button(key="inspect-open-file").click().run()


def _threads_listed(at) -> set[str]:
    return set(at.dataframe[0].value["thread"])


def _other_app_sqlite(path: Path) -> bytes:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO users (name) VALUES ('ann')")
    conn.close()
    return path.read_bytes()


def test_inspect_lists_the_sample_databases_threads_and_draws_the_head_thread(page):
    _open_file(page, "samples/sample-app.sqlite")

    assert not page.exception
    assert _threads_listed(page) == SAMPLE_THREADS
    assert UiHelpers.tree(page)[1], "the picked thread's tree is drawn"
    assert not page.error


def test_picked_thread_draws_its_tree_with_forks(page, ui):
    _open_file(page, "samples/sample-app.sqlite")

    page.selectbox(key="inspect-thread").set_value("support/ana-edited").run()

    assert not page.exception
    assert "9 checkpoints · 3 branches" in ui.texts(page)
    tips = [row["tip"] for row in UiHelpers.tree(page)[1] if row["tip"]]
    assert len(tips) == 3 and any("fork of #" in tip for tip in tips)


def test_subgraph_thread_offers_its_namespaces_and_browses_the_subgraph(page, ui):
    _open_file(page, "samples/sample-app.sqlite")
    page.selectbox(key="inspect-thread").set_value("docs/subgraph").run()

    namespaces = page.selectbox(key="inspect-ns")
    assert len(namespaces.options) == 2 and namespaces.options[0] == "(root graph)"
    namespaces.select_index(1).run()

    assert not page.exception
    assert "4 checkpoints · 1 branch · " in ui.texts(page)
    assert len(UiHelpers.tree(page)[1]) == 4


def test_single_namespace_thread_has_no_namespace_picker(page):
    _open_file(page, "samples/sample-app.sqlite")
    page.selectbox(key="inspect-thread").set_value("jobs/retry-loop").run()

    assert not [s for s in page.selectbox if s.key == "inspect-ns"]


def test_browsing_is_read_only_and_leaves_the_file_unchanged(page, ui):
    before = _digest(SAMPLE)

    _open_file(page, "samples/sample-app.sqlite")
    page.button(key="inspect-prev").click().run()

    labels = {b.label for b in page.button}
    assert not labels & {"Replay from here", "Resume the head", "Fork with edit", "Prune"}
    assert "Read-only" in ui.texts(page)
    assert _digest(SAMPLE) == before
    assert not [p.name for p in SAMPLES_DIR.iterdir() if p.name.endswith(("-wal", "-shm"))]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"garbage, not a database\n" * 10, "not a SQLite database"),
        (None, "not a LangGraph checkpoint database"),
    ],
    ids=["empty", "garbage", "other-app-sqlite"],
)
def test_non_checkpoint_file_gives_one_error_and_keeps_the_open_database(
    page, inspect_dir, content, message
):
    bad = inspect_dir / "bad.sqlite"
    data = _other_app_sqlite(bad) if content is None else content
    bad.write_bytes(data)
    _open_file(page, "samples/sample-app.sqlite")

    _open_file(page, "inspect/bad.sqlite")

    assert not page.exception
    assert len(page.error) == 1 and message in rendered(page.error[0].value)
    assert _threads_listed(page) == SAMPLE_THREADS  # the sample is still the one open
    assert bad.read_bytes() == data


def test_upload_of_a_checkpoint_file_is_browsed_and_close_discards_the_copy(page, ui):
    page.file_uploader(key="inspect-upload").upload("theirs.sqlite", SAMPLE.read_bytes()).run()

    assert not page.exception
    assert "Open:** theirs.sqlite" in ui.texts(page)
    assert _threads_listed(page) == SAMPLE_THREADS
    copy = Path(page.session_state["inspect-target"]["target"])
    assert copy.exists() and copy != SAMPLE

    page.button(key="inspect-close").click().run()

    assert not copy.parent.exists()
    assert not page.dataframe


def test_upload_of_another_apps_sqlite_is_refused_by_its_name(page, tmp_path):
    data = _other_app_sqlite(tmp_path / "users.sqlite")

    page.file_uploader(key="inspect-upload").upload("users.sqlite", data).run()

    assert not page.exception
    assert len(page.error) == 1
    assert "users.sqlite: not a LangGraph checkpoint database" in rendered(page.error[0].value)
    assert "playground-inspect-" not in rendered(page.error[0].value)  # no temp path shown
    assert not page.dataframe


def test_postgres_error_never_shows_the_password(page, ui):
    page.text_input(key="inspect-pg-url").input("postgresql://ann:s3cret-pw@127.0.0.1:1/app")
    page.button(key="FormSubmitter:inspect-pg-form-Connect").click().run()

    assert not page.exception
    assert len(page.error) == 1 and "cannot connect" in rendered(page.error[0].value)
    assert "ann:***@127.0.0.1" in rendered(page.error[0].value)
    assert "s3cret-pw" not in ui.texts(page)


def test_postgres_box_refuses_a_file_path(page):
    page.text_input(key="inspect-pg-url").input(str(SAMPLE))
    page.button(key="FormSubmitter:inspect-pg-form-Connect").click().run()

    assert len(page.error) == 1 and "starts with postgresql://" in rendered(page.error[0].value)
    assert not page.dataframe


def _app_with_a_store(path: Path) -> None:
    """A database as an app writes it with SqliteSaver and SqliteStore on one file."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.sqlite import SqliteStore

    from tests.playground.timetravel.sample_graphs import make_loop

    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    saver = SqliteSaver(conn)
    saver.setup()
    make_loop(saver)
    store = SqliteStore(conn)
    store.setup()
    store.put(("memories", "ana"), "likes", {"fact": "green tea"})
    store.put(("memories", "ana"), "huge", {"blob": "x" * 2_000_000})
    conn.execute("UPDATE store SET value = 'not json' WHERE key = 'likes'")
    store.put(("memories", "ben"), "name", {"fact": "![pixel](http://127.0.0.1:9/p.png)"})
    conn.close()


def test_inspect_lists_a_store_table_read_only_with_bounded_values(page, inspect_dir):
    _app_with_a_store(inspect_dir / "with-store.sqlite")
    page.run()  # the folder is listed again

    _open_file(page, "inspect/with-store.sqlite")

    assert not page.exception
    assert "Store · 3 items (read-only)" in [e.label for e in page.expander]
    table = page.dataframe[0].value
    rows = {(ns, key): value for ns, key, value in
            zip(table["namespace"], table["key"], table["value"], strict=True)}
    assert "too large to show (2,000,0" in rows[("memories/ana", "huge")]
    assert "JSON that could not be decoded" in rows[("memories/ana", "likes")]
    assert "![pixel]" in rows[("memories/ben", "name")]  # a table cell: shown, never markup


def test_compare_on_inspect_shows_the_edited_message_fork_message_by_message(page):
    _open_file(page, "samples/sample-app.sqlite")
    page.selectbox(key="inspect-thread").set_value("chat/refund").run()

    page.segmented_control(key="inspect-view").set_value("Compare").run()

    assert not page.exception
    warning = rendered(page.warning[0].value)
    assert warning == ("First difference at step 1 after the common ancestor: the left branch "
                       "runs input, the right runs update_state")
    steps = compare_steps(page)
    assert list(steps["paths"])[:1] == ["the paths part"]
    assert "human: Please refund B22" in steps["right wrote"][0]
    final = UiHelpers.blocks(page)
    assert "- human: Please refund A17" in final and "+ human: Please refund B22" in final
    assert '+ tool call refund(order_id="B22", amount=12.5)' in final


def test_compare_shows_both_branches_time_and_tokens_with_the_difference(page):
    _open_file(page, "samples/sample-app.sqlite")
    page.selectbox(key="inspect-thread").set_value("chat/refund").run()
    page.segmented_control(key="inspect-view").set_value("Compare").run()

    table = next(frame.value for frame in page.dataframe
                 if "right - left" in frame.value.columns)
    assert list(table[""]) == ["running time (s)", "waiting (s)", "idle (s)",
                               "steps that may include a pause", "tokens in", "tokens out"]
    for _, row in table.iterrows():
        assert row["right - left"] == pytest.approx(row["right"] - row["left"], abs=0.002)
    assert table.iloc[0]["left"] > 0 and table.iloc[0]["right"] > 0


def test_inspect_draws_where_a_threads_time_went(page, ui):
    _open_file(page, "samples/sample-app.sqlite")
    page.selectbox(key="inspect-thread").set_value("chat/refund").run()

    assert not page.exception
    said = [rendered(m.value) for m in page.markdown if "Where the time and tokens went" in m.value]
    assert said and said[0].startswith("**Where the time and tokens went** · branch to #12")
    nodes = ui.timeline(page)["nodes"]
    assert nodes["columns"][:2] == ["node", "calls"]
    assert {"triage", "assistant", "tools"} <= {row[0] for row in nodes["rows"]}
