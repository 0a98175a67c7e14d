"""A branch of a thread as a self-contained pytest file: its recording and what it must do again.

An exported test holds three things, all plain JSON: the recording of the branch from the
thread's first input to the chosen checkpoint (inputs, ``interrupt()`` answers, model replies,
tool results: :func:`playground.timetravel.recording.record_branch`), what that branch did (the
nodes of each step, where it ended waiting, its final state: :func:`run_facts`), and how to load
the graph (the spec the server was started with). The file imports one helper,
:func:`playground.regression.replay_and_compare`, which replays the recording on the graph as
the code is now and compares the same facts read from the new run.

Nothing from the database becomes code: the JSON sits in raw string literals the file parses
with ``json.loads``, and every other value is written with ``repr``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from playground.timetravel.compare import branch_steps
from playground.timetravel.decode import to_jsonable
from playground.timetravel.recording import record_branch
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, ensure_details

TEST_NAME = "test_thread_runs_as_recorded"


def run_facts(storage: Storage, tree: CheckpointTree, end: str) -> dict:
    """What the branch from the thread's first checkpoint to ``end`` did, as plain JSON data.

    ``steps`` lists each step's nodes (``input`` for the first input's step, ``update_state``
    for an edit); ``next`` the nodes ``end`` waits to run (empty: it finished); ``values`` its
    state.
    """
    path = list(tree.path_to(end))
    ensure_details(storage, tree, path)
    steps = branch_steps(storage, tree, path)
    detail = tree.details.get(end)
    return {
        "steps": [list(steps[cid].nodes) for cid in path if cid in steps],
        "next": list(detail.next) if detail else [],
        "values": to_jsonable(storage.values(tree.thread_id, end, tree.checkpoint_ns)),
    }


def is_file_spec(where: str) -> bool:
    """Whether the part before ``:ATTR`` of a graph spec is a file path (as the loader reads
    it: a path holds a slash or ends in ``.py``), not a module to import."""
    return "/" in where or "\\" in where or where.endswith(".py")


def graph_relative_to(graph: Mapping[str, str], folder: Path, started_in: Path
                      ) -> dict[str, str]:
    """``graph`` with every file it names given relative to ``folder`` (where the test file is
    written), each read first relative to ``started_in`` (where ``playground run`` or the CLI
    was started, as the spec was typed there). A module spec, a builtin and an absolute path
    that cannot be made relative (another drive) stay as they are."""
    found = {key: str(value) for key, value in graph.items() if value}

    def relative(path: str) -> str:
        target = Path(path).expanduser()
        target = (target if target.is_absolute() else started_in / target).resolve()
        try:
            return Path(os.path.relpath(target, folder)).as_posix()
        except ValueError:
            return str(target)

    if "graph" in found:
        where, sep, attr = found["graph"].rpartition(":")
        if sep and is_file_spec(where):
            found["graph"] = f"{relative(where)}:{attr}"
    if "config" in found:
        found["config"] = relative(found["config"])
    return found


def regression_test(storage: Storage, tree: CheckpointTree, end: str, graph: Mapping[str, str],
                    settings: Mapping[str, Any] | None = None,
                    tools_from_recording: bool = True, written_to: Path | None = None,
                    started_in: Path | None = None) -> str:
    """The text of a pytest file that replays the branch ending at ``end`` and checks it.

    Args:
        storage: the database the tree was read from.
        tree: the thread's tree (root graph).
        end: the checkpoint the branch ends at.
        graph: how to load the graph, as ``playground run`` was told: ``{"graph": SPEC}`` or
            ``{"config": "langgraph.json", "graph_name": NAME}`` (relative paths read from
            ``started_in``), or ``{"builtin": "ticket-agent"}`` (the test starts the bundled
            ticket API). The file names them relative to itself (``written_to``).
        settings: the context or configurable values the thread ran with
            (``{"context": {...}}`` / ``{"configurable": {...}}``).
        tools_from_recording: answer tool calls from the recorded results (the default: a
            test needs no network, and a tool called with other arguments fails it); False
            runs the tools for real.
        written_to: the folder the test file is written to (a download's is not known: the
            folder it was started in, which the file also keeps as a second place to look).
        started_in: where the spec's relative paths start (default: the working directory).

    Raises:
        ValueError: the thread cannot be replayed from its start (it does not begin with an
            input, or its branch holds a state edit), ``end`` is not in it, or ``end`` waits
            on a node that failed.
    """
    if end not in tree.nodes:
        raise ValueError(f"no checkpoint {end[:80]!r} in thread {tree.thread_id[:80]!r}")
    failed = [s for s in tree.signals.get(end, ()) if s.kind == "error"]
    if failed:
        raise ValueError(f"checkpoint #{tree.ordinal(end)} waits on a node that failed "
                         f"({failed[0].node or 'a task'}): a test of it could never pass; "
                         "export a checkpoint before the failure, or fix the node, re-run on "
                         "current code and export the new branch")
    recording = record_branch(storage, tree, None, end)
    facts = run_facts(storage, tree, end)
    started_in = (started_in or Path.cwd()).resolve()
    where = graph_relative_to(graph, (written_to or started_in).resolve(), started_in)
    named = where.get("graph") or (
        f"{where['config']} ({where.get('graph_name', 'its graph')})" if where.get("config")
        else "the built-in ticket agent")
    return _FILE.format(
        graph_text=_docstring_safe(named), ordinal=tree.ordinal(end), steps=len(facts["steps"]),
        replies=len(recording.replies), thread_id=repr(tree.thread_id),
        checkpoint_id=repr(end), graph=repr(where), exported_from=repr(str(
            (written_to or started_in).resolve())),
        settings=_json_literal(dict(settings or {})),
        tools=repr(bool(tools_from_recording)),
        recording=_json_literal(recording.to_json()), expected=_json_literal(facts),
        test_name=TEST_NAME)


def refused_test(reason: str) -> str:
    """A pytest file that fails with ``reason``: what History hands out when the export was
    refused after the page was sent (no message can reach the page then)."""
    return _REFUSED.format(reason=repr(reason), test_name=TEST_NAME)


def _json_literal(data: Any) -> str:
    """Data as a raw triple-quoted string of indented JSON, or a one-line ``repr`` in the
    (structural, never textual) case that JSON text holds three quotes in a row."""
    # ASCII only: a lone surrogate from a database would not encode into the file
    text = json.dumps(data, indent=1, ensure_ascii=True, default=str)
    if '"""' in text or text.endswith("\\"):
        return repr(json.dumps(data, default=str))
    return f'r"""\n{text}\n"""'


def _docstring_safe(text: str) -> str:
    return "".join(c if c.isprintable() and c not in '"\\' else "?" for c in text)[:200]


_FILE = '''\
"""Regression test exported by the time-travel playground: {graph_text}, checkpoint #{ordinal}.

It replays the thread's branch from its first input ({steps} steps) on the graph as the code is
now: the recorded inputs and interrupt() answers go in, each chat-model call gets the next of the
{replies} replies recorded below (and, unless TOOLS_FROM_RECORDING is False, each tool call the
result recorded for it). It checks that the same nodes run in the same order, the run
ends where the thread did, and the final state is the same (messages by role, text and tool
calls). It needs no network, no model provider and no playground server.

GRAPH below names the graph by a path relative to this file (a module name is imported), so
pytest runs it from any folder; where that path finds nothing (the file was saved elsewhere),
it is read from EXPORTED_FROM, the folder it was exported for. Moved for good, fix GRAPH.
"""

import json
from pathlib import Path

from playground.regression import replay_and_compare

THREAD_ID = {thread_id}
CHECKPOINT_ID = {checkpoint_id}
GRAPH = {graph}
EXPORTED_FROM = {exported_from}
SETTINGS = json.loads({settings})
TOOLS_FROM_RECORDING = {tools}

RECORDING = json.loads({recording})

EXPECTED = json.loads({expected})


def {test_name}(tmp_path):
    replay_and_compare(GRAPH, RECORDING, EXPECTED, tmp_path, settings=SETTINGS,
                       tools_from_recording=TOOLS_FROM_RECORDING,
                       where=(Path(__file__).resolve().parent, Path(EXPORTED_FROM)))
'''

_REFUSED = '''\
"""A regression test the time-travel playground could not export: the test says why."""

import pytest


def {test_name}():
    pytest.fail({reason})
'''
