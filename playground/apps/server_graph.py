"""An assistant of an Agent Server, driven as the pages drive a compiled graph.

:class:`ServerGraph` answers what the Run and History pages ask of a local
:class:`~playground.runtime.driven.DrivenGraph` (``stream``, ``invoke``, ``get_state``,
``get_state_history``, ``update_state``, ``get_graph``, ``with_settings``) with calls to the
server's documented API, so every action keeps its label and its code path:

- a run, an answer, Continue, Retry, a replay: ``runs.stream`` (``stream_mode`` updates, tasks
  and messages, so tokens stream; ``interrupt_before`` / ``interrupt_after`` for the pauses; a
  ``Command`` for an answer; ``checkpoint_id`` to run from a past checkpoint; ``metadata``
  says when the playground started the run, beside the ``run_id`` the server stores);
- an edit and a fork: ``threads.update_state`` with ``as_node`` and ``checkpoint_id``;
- Stop: ``runs.cancel`` of the run in flight;
- the drawing: ``/assistants/{id}/graph`` (xray); the state's keys and the input form:
  ``/assistants/{id}/schemas``.

The server's answers are untrusted JSON: node names are cut to a safe alphabet before they
reach a drawing, and messages stay plain dicts (never objects built from what the data names).

Thread ids: a server takes UUIDs only. A playground thread name (``room/thread-1``) maps to the
same UUID every time (:func:`server_thread_id`), and the thread is created with that name in its
metadata, so the thread list shows it by name again.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from langchain_core.runnables.graph import Edge, Graph, Node
from langgraph.types import Command, Interrupt, PregelTask, StateSnapshot

from playground.apps.server_store import ServerStore
from playground.places.server_address import NAME_KEY, ServerError, server_thread_id
from playground.places.server_client import ServerClient, explain, server_errors
from playground.timetravel.limits import clip, limits
from playground.timetravel.runs import RUN_STARTED_KEY, run_metadata

START, END = "__start__", "__end__"
# What a node name from a server may hold before it is drawn (graphviz reads <...> as markup).
_UNSAFE = re.compile(r"[^\w.:/ -]")


def safe_name(text: Any) -> str:
    """A node name from a server, fit to draw: letters, digits and ``_.:/ -`` only."""
    return clip(_UNSAFE.sub("_", str(text)), 100) or "_"


class ServerRunError(Exception):
    """A run the server ended with an error (the node's own, as the server reported it)."""


class _Shared:
    """What every copy of one assistant's graph shares: its drawings and schemas."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.drawings: dict[int, Graph] = {}
        self.schemas: dict | None = None


class ServerGraph:
    """One assistant of an Agent Server, with the run settings of a page.

    Args:
        client: the server's bounded client.
        assistant_id: the assistant (or graph id) runs go to.
        name: the graph's name, as the server lists it.
        settings: context and configurable values for every run (RunSettings), or None.
    """

    checkpointer = None  # the server keeps the checkpoints
    drives_itself = True  # runs go through the server's API, not a local event loop
    interrupt_before_nodes: tuple[str, ...] = ()
    interrupt_after_nodes: tuple[str, ...] = ()

    def __init__(self, client: ServerClient, assistant_id: str, name: str,
                 settings: Any = None, shared: _Shared | None = None) -> None:
        # settings: the runtime's RunSettings (context, configurable, metadata()), or None.
        self.client, self.assistant_id, self.name = client, assistant_id, name
        self.settings = settings
        self._shared = shared or _Shared()

    def __repr__(self) -> str:
        return f"ServerGraph({self.name!r} on {self.client.label})"

    @property
    def store(self) -> ServerStore:
        """The server's long-term store (what the Memory page reads and edits)."""
        return ServerStore(self.client)

    def with_settings(self, settings: Any) -> ServerGraph:
        """The same assistant, running with other context and configurable values."""
        return ServerGraph(self.client, self.assistant_id, self.name, settings, self._shared)

    # -- what the graph is ---------------------------------------------------------------------

    def get_graph(self, config: Any = None, *, xray: int | bool = 0) -> Graph:
        """The server's drawing of the graph (``/assistants/{id}/graph``), read once per depth;
        names cut to what a drawing may hold."""
        depth = int(xray)
        with self._shared.lock:
            held = self._shared.drawings.get(depth)
        if held is not None:
            return held
        # The API takes xray as true or a depth of 1 and more (0 is "invalid"): none for 0.
        answer = self.client.call(self.client.sdk.assistants.get_graph, self.assistant_id,
                            **({"xray": depth} if depth else {}))
        nodes: dict[str, Node] = {}
        edges: list[Edge] = []
        if isinstance(answer, dict):
            for node in answer.get("nodes") or ():
                if isinstance(node, dict) and node.get("id") is not None:
                    name = safe_name(node["id"])
                    nodes[name] = Node(id=name, name=name, data=None, metadata=None)
            for edge in answer.get("edges") or ():
                if isinstance(edge, dict) and safe_name(edge.get("source")) in nodes \
                        and safe_name(edge.get("target")) in nodes:
                    edges.append(Edge(safe_name(edge["source"]), safe_name(edge["target"]),
                                      conditional=bool(edge.get("conditional"))))
        drawing = Graph(nodes=nodes, edges=edges)
        with self._shared.lock:
            self._shared.drawings[depth] = drawing
        return drawing

    def get_subgraphs(self) -> list:
        """None known: the server's drawing with xray shows what is inside."""
        return []

    @property
    def nodes(self) -> dict[str, None]:
        """The graph's nodes as the server draws them (``__start__`` included, as LangGraph
        lists a compiled graph's)."""
        return {name: None for name in self.get_graph().nodes if name != END}

    def schemas(self) -> dict:
        """``/assistants/{id}/schemas``, read once: input, state and context JSON schemas."""
        if self._shared.schemas is None:
            answer = self.client.call(self.client.sdk.assistants.get_schemas, self.assistant_id)
            self._shared.schemas = answer if isinstance(answer, dict) else {}
        return self._shared.schemas

    def _properties(self, which: str) -> dict[str, dict]:
        schema = self.schemas().get(which)
        properties = schema.get("properties") if isinstance(schema, dict) else None
        return {safe_name(key): value for key, value in (properties or {}).items()
                if isinstance(value, dict)} if isinstance(properties, dict) else {}

    def get_input_jsonschema(self) -> dict:
        """The input schema's properties, as the server gives them (the state's when the graph
        declares no input schema of its own, as LangGraph takes its input then)."""
        return {"properties": self._properties("input_schema")
                or self._properties("state_schema")}

    def get_context_jsonschema(self) -> dict:
        """The context schema's properties (empty when the graph takes no context)."""
        return {"properties": self._properties("context_schema")}

    @property
    def channels(self) -> dict[str, None]:
        """The state's keys (what an edit may set), from the state schema."""
        return {key: None for key in self._properties("state_schema")}

    @property
    def is_chat(self) -> bool:
        """Whether the state holds a ``messages`` list (the server's schemas say so)."""
        return "messages" in self._properties("state_schema")

    # -- runs ------------------------------------------------------------------------------

    def _thread(self, config: Mapping[str, Any] | None) -> tuple[str, str | None]:
        configurable = dict((config or {}).get("configurable") or {})
        name = configurable.get("thread_id")
        if not isinstance(name, str) or not name:
            raise ServerError(f"{self.client.label}: a run needs a thread")
        return name, configurable.get("checkpoint_id")

    def ensure_thread(self, name: str) -> str:
        """The server's id of a playground thread, created (with its name in the metadata)
        when it does not exist yet."""
        thread_id = server_thread_id(name)
        metadata = {} if thread_id == name else {NAME_KEY: name}
        self.client.call(self.client.sdk.threads.create, thread_id=thread_id, metadata=metadata,
                   if_exists="do_nothing")
        return thread_id

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, *,
               stream_mode: Any = "updates", store_changes: list | None = None,
               answerer: Any = None, interrupt_before: Any = None,
               interrupt_after: Any = None, **kwargs: Any) -> ServerRun:
        """``runs.stream`` on the thread the config names, as ``(mode, data)`` pairs.

        ``store_changes`` and ``answerer`` are local-only (a server run's store writes and
        model calls happen on the server); they are ignored here.
        """
        name, checkpoint_id = self._thread(config)
        thread_id = self.ensure_thread(name)
        modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)
        modes = ["messages-tuple" if mode == "messages" else mode for mode in modes]
        settings = self.settings
        run_config: dict[str, Any] = {}
        if settings is not None and settings.configurable:
            run_config["configurable"] = dict(settings.configurable)
        limit = (config or {}).get("recursion_limit")
        if limit:
            run_config["recursion_limit"] = limit
        command = None
        if isinstance(input, Command):
            command = {key: value for key, value in (("resume", input.resume),
                                                     ("update", input.update),
                                                     ("goto", input.goto or None))
                       if value is not None}
            input = None
        arguments = dict(input=input, command=command, stream_mode=modes,
                         interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                         checkpoint_id=checkpoint_id, config=run_config or None,
                         context=dict(settings.context) if settings is not None
                         and settings.context else None,
                         metadata=self._metadata(settings),
                         multitask_strategy=kwargs.get("multitask_strategy", "reject"),
                         on_disconnect="cancel")
        return ServerRun(self, thread_id, arguments)

    @staticmethod
    def _metadata(settings: Any) -> dict[str, str]:
        """A run's metadata: its settings, and when the playground started it (the server
        stores its own ``run_id``; timetravel/runs.py)."""
        found = dict(settings.metadata()) if settings is not None else {}
        found[RUN_STARTED_KEY] = run_metadata()[RUN_STARTED_KEY]
        return found

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """A run to its end (or pause); the values at its end."""
        run = self.stream(input, config, stream_mode="values", **kwargs)
        values = None
        for mode, data in run:
            if mode == "values":
                values = data
        return values

    # -- state -----------------------------------------------------------------------------

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """``threads.get_state`` at the head, or at ``checkpoint_id``; an empty snapshot for a
        thread the server does not have."""
        name, checkpoint_id = self._thread(config)
        try:
            answer = self.client.call(self.client.sdk.threads.get_state, server_thread_id(name),
                                checkpoint_id=checkpoint_id, subgraphs=subgraphs)
        except ServerError as exc:
            if exc.status in (404, 422):
                return StateSnapshot({}, (), dict(config), None, None, None, (), ())
            raise
        return snapshot_of(answer, name)

    def get_state_history(self, config: Mapping[str, Any], **kwargs: Any
                          ) -> Iterator[StateSnapshot]:
        """``threads.get_history``, newest first, paged."""
        name, _ = self._thread(config)
        pages = self.client.history_pages(server_thread_id(name), 500, limits().max_rows)
        for page in self.client.call(list, pages):
            for entry in page:
                yield snapshot_of(entry, name)

    def checkpoint_exists(self, config: Mapping[str, Any]) -> bool:
        """Whether the checkpoint the config names is on the server."""
        return bool(self.get_state(config).created_at)

    def update_state(self, config: Mapping[str, Any], values: Any,
                     as_node: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """``threads.update_state``: a new checkpoint with ``values`` written as ``as_node``
        (a child of ``checkpoint_id`` when the config names one: a fork)."""
        name, checkpoint_id = self._thread(config)
        thread_id = self.ensure_thread(name)
        answer = self.client.call(self.client.sdk.threads.update_state, thread_id, values,
                            as_node=as_node, checkpoint_id=checkpoint_id)
        made = answer.get("checkpoint") if isinstance(answer, dict) else None
        if not isinstance(made, dict) or not isinstance(made.get("checkpoint_id"), str):
            raise ServerError(f"{self.client.label}: update_state did not say which "
                              "checkpoint it wrote")
        return {"configurable": {"thread_id": name, "checkpoint_ns": "",
                                 "checkpoint_id": made["checkpoint_id"]}}


class ServerRun:
    """A streamed run on the server, as ``(mode, data)`` pairs; :meth:`halt` cancels it.

    ``messages`` events come as ``(message, metadata)`` with the message a plain dict, as a
    local run's come with message objects; an ``error`` event ends the iteration with
    :class:`ServerRunError`.
    """

    def __init__(self, graph: ServerGraph, thread_id: str, arguments: dict) -> None:
        self.graph, self.thread_id, self.arguments = graph, thread_id, arguments
        self.run_id: str | None = None
        self._events: Any = None
        self._ended = False

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        sdk, label = self.graph.client.sdk, self.graph.client.label
        try:
            self._events = sdk.runs.stream(self.thread_id, self.graph.assistant_id,
                                           **self.arguments)
            for part in self._events:
                event, data = part.event, part.data
                mode = event.split("|", 1)[0]
                if mode == "metadata" and isinstance(data, dict):
                    self.run_id = data.get("run_id") if isinstance(data.get("run_id"), str) \
                        else self.run_id
                elif mode == "error":
                    detail = data.get("message") or data.get("error") if isinstance(data, dict) \
                        else data
                    raise ServerRunError(clip(str(detail), 600))
                elif mode == "messages" and isinstance(data, list) and len(data) == 2:
                    yield "messages", (data[0], data[1])
                elif mode in ("updates", "tasks", "values", "custom", "debug"):
                    yield mode, data
        except (ServerError, *server_errors()) as exc:
            raise explain(exc, label) from None
        finally:
            self._ended = True

    def close(self) -> None:
        """Leave the stream (the server cancels a run whose client went away)."""
        if self._events is not None:
            close = getattr(self._events, "close", None)
            if close is not None:
                # Being iterated in another thread raises ValueError: halt() is for that.
                with contextlib.suppress(ValueError):
                    close()

    def halt(self) -> None:
        """Cancel the run on the server and wait until it has stopped (Stop)."""
        if self.run_id and not self._ended:
            try:
                self.graph.client.sdk.runs.cancel(self.thread_id, self.run_id, wait=True)
            except (ServerError, *server_errors()):
                pass  # it ended meanwhile


def snapshot_of(state: Any, name: str) -> StateSnapshot:
    """A thread state the server answered, as LangGraph's ``StateSnapshot`` (plain values)."""
    state = state if isinstance(state, dict) else {}

    def config_of(part: Any) -> dict | None:
        if not isinstance(part, dict) or not isinstance(part.get("checkpoint_id"), str):
            return None
        return {"configurable": {"thread_id": name, "checkpoint_ns": "",
                                 "checkpoint_id": part["checkpoint_id"]}}

    tasks = []
    for task in state.get("tasks") or ():
        if not isinstance(task, dict):
            continue
        interrupts = tuple(
            Interrupt(value=item.get("value"), id=str(item.get("id") or "placeholder-id"))
            for item in task.get("interrupts") or () if isinstance(item, dict))
        error = task.get("error")
        tasks.append(PregelTask(str(task.get("id") or ""), safe_name(task.get("name")), (),
                                error=str(error) if error is not None else None,
                                interrupts=interrupts, result=task.get("result")))
    values = state.get("values")
    metadata = state.get("metadata")
    created = state.get("created_at")
    return StateSnapshot(
        values=values if isinstance(values, dict) else {},
        next=tuple(safe_name(node) for node in state.get("next") or ()),
        config=config_of(state.get("checkpoint")) or {"configurable": {"thread_id": name}},
        metadata=metadata if isinstance(metadata, dict) else None,
        created_at=created if isinstance(created, str) else None,
        parent_config=config_of(state.get("parent_checkpoint")),
        tasks=tuple(tasks),
        interrupts=tuple(i for task in tasks for i in task.interrupts))
