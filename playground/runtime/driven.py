"""A compiled graph driven through LangGraph's async API from synchronous code.

:class:`DrivenGraph` has the synchronous methods the engine, the lessons and the pages call
(``stream``, ``invoke``, ``get_state``, ``get_state_history``, ``update_state``) and runs each
one as its async twin (``astream``, ``ainvoke``, ``aget_state``...) on the process's event loop
(:mod:`playground.event_loop`). So ``async def`` nodes, async tools and async savers work,
and sync nodes keep working: under ``astream`` LangGraph runs them in its executor. Everything
else (``get_graph``, ``nodes``, ``builder``, ``checkpointer``...) is the compiled graph's own.

A driven graph may carry :class:`RunSettings`: the runtime context and ``configurable`` values a
thread runs with. They go with every run of it (run, answer, continue, retry, replay, fork), and
each checkpoint a run writes records them in its metadata, as JSON text under
:data:`CONTEXT_KEY` and :data:`CONFIGURABLE_KEY` (LangGraph keeps only plain strings and numbers
of a run's metadata), so History can show what a run was given, and a thread reopened after a
restart runs on with the same values.

Every call that writes (run, answer, continue, retry, replay, fork, edit) also records which run
wrote each checkpoint and when that run started (:func:`playground.timetravel.runs.with_run`),
so a timeline tells a pause from running time.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.event_loop import EventLoop, shared_loop
from playground.timetravel.runs import with_run

CONTEXT_KEY = "playground_context"
CONFIGURABLE_KEY = "playground_configurable"


@dataclass(frozen=True)
class RunSettings:
    """What a thread's runs are given besides their input.

    Attributes:
        context: passed as ``context=`` (the graph's ``context_schema``), or None.
        configurable: merged into ``config["configurable"]`` (a ``config_schema`` app).
    """

    context: Mapping[str, Any] | None = None
    configurable: Mapping[str, Any] = field(default_factory=dict)

    def metadata(self) -> dict[str, str]:
        """The settings as checkpoint metadata (JSON text; LangGraph drops nested values)."""
        found = {}
        if self.context is not None:
            found[CONTEXT_KEY] = json.dumps(dict(self.context), default=str, sort_keys=True)
        if self.configurable:
            found[CONFIGURABLE_KEY] = json.dumps(dict(self.configurable), default=str,
                                                 sort_keys=True)
        return found


def settings_in(metadata: Mapping[str, Any] | None) -> RunSettings | None:
    """The settings a checkpoint's metadata records, or None when it records none.

    Metadata comes from a database: anything that is not the JSON object we wrote is ignored.
    """
    if not isinstance(metadata, Mapping):
        return None
    parsed = {}
    for key in (CONTEXT_KEY, CONFIGURABLE_KEY):
        raw = metadata.get(key)
        if isinstance(raw, str) and len(raw) <= 65_536:
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if isinstance(value, dict):
                parsed[key] = value
    if not parsed:
        return None
    return RunSettings(parsed.get(CONTEXT_KEY), parsed.get(CONFIGURABLE_KEY, {}))


def thread_run_settings(app: Any, recorded: RunSettings | None,
                        typed: Mapping[str, Any] | None = None) -> RunSettings:
    """What a thread runs with, as History replays and forks it: the text a page's form holds
    for each field (``typed``), else the values its newest checkpoint records (``recorded``),
    else the schema's defaults. A value the schema no longer takes falls back to the defaults.

    Args:
        app: the :class:`~playground.apps.app.App` the thread runs on.
        recorded: :func:`settings_in` of the thread's newest checkpoint's metadata.
        typed: a form's text for some fields (the others take the recorded or default value).
    """
    from playground.apps.inputs import InputRefused, context_fields, parse_settings, typed_text

    if app.settings_schema is None:
        return RunSettings()
    kind, schema = app.settings_schema
    fields = context_fields(app.template, schema)
    values = ((recorded.context if kind == "context" else recorded.configurable)
              if recorded is not None else None) or {}
    text = {field.name: typed_text(field, values[field.name]) if field.name in values
            else field.default for field in fields}
    text.update({name: value for name, value in (typed or {}).items() if name in text})
    try:
        parsed = parse_settings(fields, text, schema)
    except InputRefused:
        parsed = parse_settings(fields, {}, None)
    return RunSettings(context=parsed) if kind == "context" else RunSettings(configurable=parsed)


class DrivenGraph:
    """A compiled graph whose runs and state calls go through its async API on a loop.

    Args:
        graph: the compiled graph (with its checkpointer).
        loop: the loop to run on; the process's shared loop by default.
        settings: context and configurable values for every run.
    """

    def __init__(self, graph: Any, loop: EventLoop | None = None,
                 settings: RunSettings | None = None) -> None:
        self.graph = graph
        self.loop = loop or shared_loop()
        self.settings = settings or RunSettings()

    def __getattr__(self, name: str) -> Any:
        # Only reached for what this class does not define: the compiled graph's own
        # attributes (nodes, builder, channels, checkpointer, get_graph, ...).
        return getattr(self.graph, name)

    def __repr__(self) -> str:
        return f"DrivenGraph({getattr(self.graph, 'name', '?')!r})"

    def with_settings(self, settings: RunSettings | None) -> DrivenGraph:
        """The same graph, running with other context and configurable values."""
        return DrivenGraph(self.graph, self.loop, settings)

    def _config(self, config: Mapping[str, Any] | None) -> dict[str, Any]:
        config = dict(config or {})
        if self.settings.configurable:
            # The thread's own keys (thread_id, checkpoint_id) always win over settings.
            config["configurable"] = {**self.settings.configurable,
                                      **(config.get("configurable") or {})}
        recorded = self.settings.metadata()
        if recorded:
            config["metadata"] = {**(config.get("metadata") or {}), **recorded}
        # Which run wrote each checkpoint, and when it started: a timeline tells a pause
        # before a step from the step's running time by it (timetravel/runs.py).
        return with_run(config)

    def _context(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        if self.settings.context is not None and "context" not in kwargs:
            kwargs["context"] = dict(self.settings.context)
        return kwargs

    # -- runs ---------------------------------------------------------------------------------

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, *,
               store_changes: list | None = None, answerer: Any = None,
               **kwargs: Any) -> Iterator[Any]:
        """``astream`` as an iterator; closing it early cancels the run between two awaits.

        Args:
            store_changes: a list that receives every store write of the run's nodes
                (:class:`playground.runtime.store_log.StoreChange`), when the graph has a store.
            answerer: answers this run's model calls (and tool calls, if asked) from a
                recording (:class:`playground.runtime.answers.Answerer`).
        """
        events = self.graph.astream(input, self._config(config), **self._context(kwargs))
        if store_changes is not None:
            events = _collecting_store_changes(events, store_changes)
        if answerer is not None:
            from playground.runtime.answers import answered

            events = answered(events, answerer)
        return self.loop.iterate(events)

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """``ainvoke``, waited for."""
        return self.loop.run(
            self.graph.ainvoke(input, self._config(config), **self._context(kwargs)))

    # -- state ----------------------------------------------------------------------------------

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> Any:
        """``aget_state``: the thread's snapshot at its head, or at ``checkpoint_id``."""
        return self.loop.run(self.graph.aget_state(dict(config), subgraphs=subgraphs))

    def get_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> Iterator[Any]:
        """``aget_state_history``, newest first, read as it is walked."""
        return self.loop.iterate(self.graph.aget_state_history(dict(config), **kwargs))

    def update_state(self, config: Mapping[str, Any], values: Any,
                     as_node: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """``aupdate_state``: a new checkpoint with ``values`` written as ``as_node``."""
        return self.loop.run(
            self.graph.aupdate_state(self._config(config), values, as_node=as_node, **kwargs))


async def _collecting_store_changes(events: Any, changes: list) -> Any:
    """The run's events, with its nodes' store writes gathered into ``changes``: set in the
    task that walks the stream, the variable reaches every node LangGraph starts from it."""
    from playground.runtime.store_log import RUN_CHANGES

    token = RUN_CHANGES.set(changes)
    try:
        async for event in events:
            yield event
    finally:
        with contextlib.suppress(ValueError):  # finalized in another context: nothing to undo
            RUN_CHANGES.reset(token)


def driven(graph: Any, settings: RunSettings | None = None) -> DrivenGraph:
    """``graph`` on the shared loop (a graph that is driven already keeps its loop).

    A graph compiled on a sync-only saver (a stock ``SqliteSaver`` in a script or a test) runs
    on a copy whose saver does its calls in worker threads (:func:`playground.savers.threaded`).
    """
    if isinstance(graph, DrivenGraph) or getattr(graph, "drives_itself", False):
        # Driven already (a graph an Agent Server runs drives itself through its API).
        return graph if settings is None else graph.with_settings(settings)
    saver = getattr(graph, "checkpointer", None)
    if saver is not None and not isinstance(saver, bool):
        from playground.savers import has_async_api, threaded

        if not has_async_api(saver):
            graph = graph.copy(update={"checkpointer": threaded(saver)})
    return DrivenGraph(graph, settings=settings)
