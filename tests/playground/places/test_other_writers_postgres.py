"""A LangGraph.js Postgres database (@langchain/langgraph-checkpoint-postgres), made by the
fixture project into a throwaway database: read as Python's, its question with its node, every
write refused, and LangGraph.js reads it as before.

LangGraph.js 1.0.x's PostgresSaver loses the values of a fork (langgraphjs#1812), so its threads
hold fewer checkpoints than the SQLite file's; the playground shows what is stored.
"""

from __future__ import annotations

import subprocess
import sys
from contextlib import closing

import pytest

from playground.places.door import open_place
from playground.timetravel.tree import load_tree
from tests import postgres
from tests.playground.places.other_writers import JS_QUESTION, NODE_MARKS, read_back, run_node

pytestmark = NODE_MARKS


@pytest.fixture(scope="module")
def js_database(tmp_path_factory):
    if not postgres.database_url():
        pytest.skip(postgres.SKIP_REASON)
    with postgres.throwaway_database() as url:
        made = run_node("make_fixtures.mjs", str(tmp_path_factory.mktemp("js") / "x.sqlite"),
                        url)
        assert made.returncode == 0, made.stderr
        yield url


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_a_js_postgres_database_is_read_with_its_writer_named(js_database):
    result = playground("threads", js_database)

    assert result.returncode == 0, result.stderr
    assert "written by LangGraph.js (JSON)" in result.stdout.splitlines()[0]
    assert "password" not in result.stdout


def test_a_js_postgres_question_reads_with_the_node_that_asked(js_database):
    result = playground("history", js_database, "--thread", "waiting")

    assert result.returncode == 0, result.stderr
    assert f"? approve asks: {JS_QUESTION}" in result.stdout


def test_our_reading_of_a_js_postgres_database_matches_langgraphjs_own(js_database):
    theirs = read_back(js_database)
    with closing(open_place(js_database).reads()) as reads:
        ours = {}
        for thread in reads.thread_ids():
            tree = load_tree(reads, thread, all_details=True)
            ours[thread] = (len(tree), tree.head, list(tree.details[tree.head].next))

    assert ours == {thread: (line["checkpoints"], line["head_checkpoint_id"], line["head_next"])
                    for thread, line in theirs.items()}


def test_every_read_command_reads_a_js_postgres_database(js_database):
    for command in (("history", "--thread", "chat", "--json"), ("chat", "--thread", "chat"),
                    ("branches", "--thread", "refund"), ("export", "--thread", "refund")):
        result = playground(command[0], js_database, *command[1:])
        assert result.returncode == 0, (command, result.stderr)


def test_a_write_to_a_js_postgres_database_is_refused_and_it_reads_as_before(js_database):
    before = read_back(js_database)

    result = playground("prune", js_database, "--thread", "chat", "--keep", "1")

    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "LangGraph.js" in line and "never writes to it" in line
    assert read_back(js_database) == before


def test_no_saver_is_handed_out_on_a_js_postgres_database(js_database):
    from playground.timetravel.errors import CheckpointDbError

    before = read_back(js_database)

    with pytest.raises(CheckpointDbError, match=r"LangGraph\.js"), \
            open_place(js_database).saver():
        pass
    assert read_back(js_database) == before
