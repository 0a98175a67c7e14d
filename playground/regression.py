"""The helper an exported regression test imports: replay a recorded thread and compare.

``playground export-test`` and History's **Export as test** write a pytest file
(:mod:`playground.timetravel.regression_file`) that calls :func:`replay_and_compare`. It loads
the graph the way ``playground run`` does (a spec or a langgraph.json, resolved from the folder
pytest runs in), runs it on a checkpoint file of its own in a temporary folder, plays the
recording in (inputs, ``interrupt()`` answers, chat-model replies, tool results unless told to
run the tools),
then reads the new thread back with the same engine the playground reads every thread with and
compares it with what the original did: the nodes step by step, where it ended, its final state
(messages by role, text and tool calls; ids differ from run to run and are not compared).

A difference fails the test with the two runs side by side, aligned step by step, and the first
step that differs named in words.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from playground.apps.launch import AppChoice, load_app
from playground.apps.state_fields import delta_reducers
from playground.places.door import open_storage
from playground.runtime.driven import RunSettings, driven
from playground.runtime.rerun import ReRunOutcome, rerun
from playground.timetravel.compare import BranchStep, align
from playground.timetravel.delta import is_unfolded
from playground.timetravel.diff import diff_states
from playground.timetravel.recording import Recording
from playground.timetravel.regression_file import is_file_spec, run_facts
from playground.timetravel.tree import load_tree

THREAD = "regression"


class RunDiffers(AssertionError):
    """The replay went another way than the recorded thread; the message shows where."""


def graph_found(graph: Mapping[str, str], where: tuple[Path, ...]) -> dict[str, str]:
    """``graph`` with each relative file it names read from the first folder of ``where``
    holding it (the test file's own, then the one it was exported for); as it is when none
    does (the loader then says which file is missing)."""
    found = {key: str(value) for key, value in graph.items() if value}

    def located(path: str) -> str:
        if Path(path).is_absolute():
            return path
        for folder in where:
            if (folder / path).exists():
                return str((folder / path).resolve())
        return str(where[0] / path) if where else path

    if "graph" in found:
        place, sep, attr = found["graph"].rpartition(":")
        if sep and is_file_spec(place):
            found["graph"] = f"{located(place)}:{attr}"
    if "config" in found:
        found["config"] = located(found["config"])
    return found


def replay_and_compare(graph: Mapping[str, str], recording: Mapping, expected: Mapping,
                       folder: str | Path, *, settings: Mapping[str, Any] | None = None,
                       tools_from_recording: bool = True,
                       where: tuple[Path, ...] = ()) -> ReRunOutcome:
    """Replay ``recording`` on the graph as its code is now and check it did what ``expected``
    says the original did.

    Args:
        graph: ``{"graph": SPEC}``, ``{"config": "langgraph.json", "graph_name": NAME}``, or
            ``{"builtin": "ticket-agent"}`` (run against the bundled ticket API, started on a
            loopback port with freshly seeded tickets).
        recording: the recording, as :meth:`Recording.to_json` wrote it.
        expected: :func:`~playground.timetravel.regression_file.run_facts` of the original.
        folder: a folder of the test's own (pytest's ``tmp_path``) for the checkpoint file.
        settings: ``{"context": {...}}`` or ``{"configurable": {...}}`` the thread ran with.
        tools_from_recording: answer tool calls from the recorded results (a tool called
            with other arguments fails the test); False runs the tools for real.
        where: the folders ``graph``'s relative paths are read from, first to last (the test
            file's own, then the one it was exported for); none: the working directory.

    Raises:
        RunDiffers: another node sequence, another end, another final state, or a call the
            recording could not answer; the message shows both runs step by step.
    """
    __tracebackhide__ = True  # pytest shows the difference, not this helper's code
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.store.memory import InMemoryStore

    graph = graph_found(graph, where) if where else graph
    app = load_app(AppChoice(graph.get("graph") or None, graph.get("config") or None,
                             graph.get("graph_name") or None))
    played = Recording.from_json({**dict(recording), "thread_id": THREAD, "start": ""})
    path = Path(folder) / "replay.sqlite"
    with SqliteSaver.from_conn_string(str(path)) as saver, _ticket_api(app, folder) as context:
        compiled = app.graph(saver, context) if app.builtin else app.graph(
            saver, store=InMemoryStore())
        run_settings = RunSettings((settings or {}).get("context"),
                                   dict((settings or {}).get("configurable") or {}))
        outcome = rerun(driven(compiled, run_settings), played,
                        tools_from_recording=tools_from_recording)
    with closing(open_storage(str(path))) as storage:
        # the graph is loaded here: its own DeltaChannel reducers fold their values, as the
        # page that exported the test folded them
        storage.reducers = delta_reducers(app.template)
        tree = load_tree(storage, THREAD)
        actual = json.loads(json.dumps(run_facts(storage, tree, tree.head), default=str))
    problems = differences(expected, actual, outcome)
    if problems:
        raise RunDiffers("\n".join(problems))
    return outcome


@contextmanager
def _ticket_api(app, folder: str | Path) -> Iterator[Any]:
    """For the ticket agent, the bundled ticket API on a loopback port with freshly seeded
    tickets in the test's folder, and a client of it (what the agent's nodes call); nothing
    for any other app."""
    if not app.builtin:
        yield None
        return
    from playground.agent.client import TicketClient
    from ticket_api.server import start_embedded

    server = start_embedded(str(Path(folder) / "tickets.sqlite"))
    client = TicketClient(server.url, tenant="regression", actor="agent")
    try:
        yield SimpleNamespace(client=client)
    finally:
        client.close()
        server.stop()


def differences(expected: Mapping, actual: Mapping, outcome: ReRunOutcome | None = None
                ) -> list[str]:
    """Where ``actual`` departs from ``expected`` (both :func:`run_facts`), as lines for a
    person: empty when they agree."""
    recorded = [_step(nodes) for nodes in expected.get("steps", ())]
    now = [_step(nodes) for nodes in actual.get("steps", ())]
    pairs = align(recorded, now)
    first = next((i for i, pair in enumerate(pairs) if pair.left is None or pair.right is None
                  or pair.left.nodes != pair.right.nodes), None)
    # A DeltaChannel value recorded unfolded (exported where its graph was not loaded, so only
    # its snapshot and writes were known) cannot be held against a folded one: left out.
    recorded_values = expected.get("values", {})
    unchecked = {key for key, value in recorded_values.items() if is_unfolded(value)}
    final = diff_states({k: v for k, v in recorded_values.items() if k not in unchecked},
                        {k: v for k, v in actual.get("values", {}).items()
                         if k not in unchecked})
    waits = list(expected.get("next", ())), list(actual.get("next", ()))
    stopped = outcome is not None and outcome.status in ("stopped", "failed") and (
        outcome.refused or outcome.status == "failed")
    if first is None and final.is_empty and waits[0] == waits[1] and not stopped:
        return []
    lines = ["The thread ran another way than it was recorded."]
    if stopped:
        lines.append(f"The replay {outcome.message}")
    if first is not None:
        pair = pairs[first]
        lines.append(f"First difference at step {first + 1}: " + (
            f"the recording runs {pair.left.label}, this run runs {pair.right.label}"
            if pair.left and pair.right else
            f"only this run runs {pair.right.label}" if pair.right else
            f"only the recording runs {pair.left.label}"))
    lines += ["", "  #  recorded                        now"]
    for index, pair in enumerate(pairs):
        mark = "!" if index == first else ("=" if pair.left and pair.right
                                           and pair.left.nodes == pair.right.nodes else "~")
        left = pair.left.label if pair.left else "-"
        right = pair.right.label if pair.right else "-"
        note = f"   ({pair.note})" if pair.note else ""
        lines.append(f"{mark} {index + 1:>3}  {left[:30]:<30}  {right[:30]}{note}")
    lines.append(f"  end  {_end(waits[0])[:30]:<30}  {_end(waits[1])}")
    if not final.is_empty:
        lines += ["", "Final state, recorded -> now:", *(f"  {line}" for line in final.lines())]
    return lines


def _step(nodes: Any) -> BranchStep:
    return BranchStep("", None, None, tuple(str(node) for node in nodes or ()))


def _end(waiting: list) -> str:
    return f"waits at {', '.join(map(str, waiting))}" if waiting else "finished"
