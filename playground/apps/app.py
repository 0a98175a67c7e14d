"""An app: a graph the playground runs, with what the pages need to know about it.

One ``App`` per server process: the user's graph (``playground run --graph ...``) or the
built-in ticket agent. Pages never build graphs themselves; they ask the app for its graph on
the server's saver, so every page gets its graph one way.

The user's compiled graph is loaded once per process; ``graph(saver)`` hands out
``compiled.copy(update={"checkpointer": saver})`` (verified on LangGraph 1.2.24), so the
playground's saver is used whether or not the app compiled one in, and the original is left
untouched. The saver's serializer allows the classes the graph's state declares
(:func:`playground.serde.state_types`) and nothing else beyond LangGraph's safe types.
"""

from __future__ import annotations

import threading
import typing
from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.pregel import Pregel

from playground.serde import graph_serde, state_types

START, END = "__start__", "__end__"

# (saver, context) -> the graph on that saver; context carries what the built-in agent needs
# from the page (its room's ticket client) and is ignored by user graphs.
Builder = Callable[[BaseCheckpointSaver | None, Any], Pregel]


class App:
    """A graph the playground runs.

    Args:
        name: short name (the graph's name in langgraph.json, or the file's stem).
        spec: what the server was started with (``examples/support_chat.py:graph``).
        template: the compiled graph, for its schema, nodes and drawing.
        build: makes the graph on a saver; by default a copy of ``template`` with it.
        builtin: True for the ticket agent, whose workshop lessons the pages show.
        description: one line about the graph, if the app gave one.
    """

    def __init__(self, name: str, spec: str, template: Pregel, build: Builder | None = None,
                 builtin: bool = False, description: str = "") -> None:
        self.name, self.spec, self.template = name, spec, template
        self.builtin, self.description = builtin, description
        self._build = build
        self._copies: dict[int, tuple[BaseCheckpointSaver, Pregel]] = {}
        self._lock = threading.Lock()

    def graph(self, saver: BaseCheckpointSaver, context: Any = None) -> Pregel:
        """The app's graph checkpointing to ``saver``.

        A user graph's copy is made once per saver and shared by every session (compiled graphs
        are safe to share; each run is keyed by its thread config).
        """
        if self._build is not None:
            return self._build(saver, context)
        with self._lock:
            held = self._copies.get(id(saver))
            if held is None or held[0] is not saver:
                held = (saver, self.template.copy(update={"checkpointer": saver}))
                self._copies = {**self._copies, id(saver): held}
            return held[1]

    @property
    def state_schema(self) -> type | None:
        """The state schema of the graph's builder (None for graphs without one)."""
        builder = getattr(self.template, "builder", None)
        return getattr(builder, "state_schema", None)

    @property
    def input_schema(self) -> type | None:
        """What the graph takes as input: the builder's input schema, else its state."""
        builder = getattr(self.template, "builder", None)
        return getattr(builder, "input_schema", None) or self.state_schema

    def serde(self) -> JsonPlusSerializer:
        """The serializer its saver uses: safe types plus the classes its state declares."""
        return graph_serde(state_types(self.state_schema) if self.state_schema else ())

    @property
    def nodes(self) -> list[str]:
        """The graph's own nodes, in definition order (without ``__start__``)."""
        return [name for name in self.template.nodes if name != START]

    @property
    def has_messages(self) -> bool:
        """True when the state has a ``messages`` channel holding a list of messages."""
        schema = self.state_schema
        if schema is None:
            return "messages" in getattr(self.template, "channels", {})
        try:
            hint = typing.get_type_hints(schema, include_extras=True).get("messages")
        except Exception:
            hint = getattr(schema, "__annotations__", {}).get("messages")
        return hint is not None and "Message" in str(hint)
