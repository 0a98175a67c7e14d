"""What the write tools run on: the graph the person starting ``playground mcp`` named, on the
place's own saver, one write at a time on a worker thread.

``playground mcp PLACE --allow-writes`` offers the write tools only when it knows which graph to
run, and only a graph the person starting it named on the command line (docs/architecture.md:
graph code runs only then):

- ``--graph SPEC``, or ``--config langgraph.json`` (``--graph-name NAME`` when it lists several):
  the graph is imported at start (:func:`~playground.apps.launch.load_apps`) and runs here, on
  the place's official sync saver (``place.saver(serde=app.serde())``: the serializer allows the
  classes its state declares and nothing more), driven through its async API
  (:func:`~playground.runtime.driven.driven`). The read tools then fold its DeltaChannels with
  its own reducers, as the pages do;
- an Agent Server's URL as the place: the server's own graphs, run there
  (:func:`~playground.apps.server_app.server_apps`); nothing of their code is imported here.

Anything else is refused before the server starts, in one line (:class:`WritesRefused`, exit
2): ``--allow-writes`` with no graph on a place that runs none, a place graphs must not run on
(a LangGraph.js file: ``place.check_runnable()``; a graph named for an Agent Server, which runs
its own); and, as every command that loads a graph says it (``AppLoadError``), a langgraph.json
of several graphs with none named.

A write runs on a worker thread (:meth:`PlaceWrites.run`), so the event loop keeps answering
the read tools while a graph runs, and one at a time: a second write waits for the first, then
finds the thread moved past the head it expected and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from playground.apps.app import App
from playground.apps.launch import AppChoice, load_apps, one_app
from playground.apps.server_graph import safe_name
from playground.apps.state_fields import delta_reducers
from playground.mcp.answers import Refused, sentence_of
from playground.mcp.bounds import clip
from playground.mcp.reads import PlaceReads
from playground.places.base import Place
from playground.places.door import database_errors
from playground.places.server_client import ServerClient
from playground.runtime.driven import driven, settings_in, thread_run_settings
from playground.timetravel.errors import CheckpointDbError

T = TypeVar("T")

# The metadata keys an Agent Server stores with each run's checkpoints: which assistant ran it.
_SERVER_KEYS = ("assistant_id", "graph_id")


class WritesRefused(ValueError):
    """``--allow-writes`` that cannot be honoured: one line, and the command exits 2."""


def runs_its_own_graphs(place: Place) -> bool:
    """Whether the place is an Agent Server, which runs its graphs itself (it has a server's
    client; no other kind does)."""
    return isinstance(getattr(place, "client", None), ServerClient)


class PlaceWrites:
    """The graphs a server's write tools run, and the one way they run (:meth:`run`).

    Made by :meth:`open` at start; :meth:`close` gives the saver back.

    Args:
        reads: the server's reads of the place (the write tools read the thread through it).
        apps: the app the person named, or each graph an Agent Server serves, by name.
        graph: the named app's graph on the place's saver, driven; None on an Agent Server.
        stack: what to close when the server ends (the saver).
    """

    def __init__(self, reads: PlaceReads, apps: Mapping[str, App], graph: Any = None,
                 stack: ExitStack | None = None) -> None:
        self.reads = reads
        self.apps = dict(apps)
        self._graph = graph
        self._stack = stack or ExitStack()
        self._limiter: anyio.CapacityLimiter | None = None

    @classmethod
    def open(cls, reads: PlaceReads, graph: str | None = None, config: str | None = None,
             graph_name: str | None = None) -> PlaceWrites:
        """The write tools' graphs for ``playground mcp PLACE --allow-writes`` (with
        ``--graph``, or ``--config`` and ``--graph-name``).

        Raises:
            WritesRefused: no graph to run, a graph named for an Agent Server, or a saver the
                database refuses (one line).
            CheckpointDbError: graphs must not run on the place (a LangGraph.js file).
            AppLoadError: the graph (or the server's list of graphs) does not load, or a
                langgraph.json lists several and none is named.
        """
        place = reads.place
        if graph or config:
            if runs_its_own_graphs(place):
                raise WritesRefused(
                    f"{place.label} is an Agent Server, which runs its own graphs: leave out "
                    "--graph and --config to run them there")
            place.check_runnable()  # before any of the graph's code is imported
            # The graph's module is imported before the protocol starts: anything it prints
            # goes to stderr, never onto the wire.
            app = one_app(AppChoice(graph=graph, config=config, graph_name=graph_name),
                          "the write tools run")
            apps = {app.name: app}
            stack = ExitStack()
            try:
                saver = stack.enter_context(place.saver(serde=app.serde()))
                driven_graph = driven(app.graph(saver))
            except BaseException as exc:
                stack.close()
                if isinstance(exc, database_errors()) and not isinstance(exc, CheckpointDbError):
                    # a driver's error (a database that refuses the saver's tables): one line
                    raise WritesRefused(f"{place.label}: the saver the graph runs on could not "
                                        f"be opened: {sentence_of(exc)}") from None
                raise
            reads.reducers = delta_reducers(app.template)
            return cls(reads, apps, driven_graph, stack)
        if runs_its_own_graphs(place):
            return cls(reads, load_apps(AppChoice(server=place.target)))
        raise WritesRefused(
            "--allow-writes runs a graph: name it with --graph path/to/file.py:graph or "
            "--config langgraph.json, or serve an Agent Server's URL, whose graphs run there")

    async def run(self, work: Callable[[], T]) -> T:
        """``work()`` on a worker thread, one write at a time, so the server's event loop
        keeps answering while a graph runs."""
        if self._limiter is None:  # made on the loop that uses it
            self._limiter = anyio.CapacityLimiter(1)
        return await anyio.to_thread.run_sync(work, limiter=self._limiter)

    def graph_for(self, thread_id: str, metadata: Mapping[str, Any]) -> Any:
        """The graph a thread runs on, with the context (or configurable values) its newest
        checkpoint records, as History replays and forks it.

        Args:
            thread_id: the thread (named in a refusal).
            metadata: its head's metadata, as the engine read it.

        Raises:
            Refused: on an Agent Server serving several graphs, the thread names none of them.
        """
        if self._graph is not None:
            (app,) = self.apps.values()
            graph = self._graph
        else:
            app = self._server_app(thread_id, metadata)
            graph = app.template
        return graph.with_settings(thread_run_settings(app, settings_in(metadata)))

    def _server_app(self, thread_id: str, metadata: Mapping[str, Any]) -> App:
        """The server's graph that ran a thread: the assistant (or graph) its checkpoints
        name, or the server's only graph."""
        if len(self.apps) == 1:
            return next(iter(self.apps.values()))
        assistant, graph_id = (metadata.get(key) for key in _SERVER_KEYS)
        for app in self.apps.values():
            if assistant is not None and getattr(app.template, "assistant_id", None) == assistant:
                return app
        if isinstance(graph_id, str) and safe_name(graph_id) in self.apps:
            return self.apps[safe_name(graph_id)]
        raise Refused(f"thread {clip(thread_id)} names none of the server's graphs "
                      f"({clip(', '.join(self.apps), 200)}) in its metadata: it cannot be run "
                      "from here")

    def close(self) -> None:
        """Give back the saver (and its connections)."""
        self._stack.close()
