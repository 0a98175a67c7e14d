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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.pregel import Pregel
from langgraph.store.base import BaseStore

from playground.serde import graph_serde, state_types

START, END = "__start__", "__end__"

# (saver, context) -> the graph on that saver; context carries what the built-in agent needs
# from the page (its room's ticket client) and is ignored by user graphs.
Builder = Callable[[BaseCheckpointSaver | None, Any], Pregel]
# A checkpoint's decoded values -> how the step that wrote them ended, in words, or None
# (playground.timetravel.tree_layout.Ending: the history tree says it at a branch's tip).
StepEnding = Callable[[Mapping[str, Any]], str | None]


class App:
    """A graph the playground runs.

    Args:
        name: short name (the graph's name in langgraph.json, or the file's stem).
        spec: what the server was started with (``examples/support_chat.py:graph``).
        template: the compiled graph, for its schema, nodes and drawing.
        build: makes the graph on a saver; by default a copy of ``template`` with it.
        builtin: True for the ticket agent, whose workshop lessons the pages show.
        description: one line about the graph, if the app gave one.
        store_config: langgraph.json's ``store`` section (``index``, ``ttl``), if any.
        warnings: what the person starting the server should know (a missing env file).
        folders: where the app's own source files are (what a reload imports again).
        step_ending: how a step ended, in words, read from a checkpoint's values (the ticket
            agent's ``412 refused``); None for a graph whose values say nothing the
            playground can read (its finished tips say ``finished``). It reads fields of
            values from a database: it must never run or import anything they name.
    """

    # True for a graph an Agent Server runs (playground.apps.server_app): no local saver or
    # store, no code to re-run here.
    runs_on_server = False

    def __init__(self, name: str, spec: str, template: Pregel, build: Builder | None = None,
                 builtin: bool = False, description: str = "",
                 store_config: dict | None = None, warnings: tuple[str, ...] = (),
                 folders: tuple[Path, ...] = (), step_ending: StepEnding | None = None) -> None:
        self.name, self.spec, self.template = name, spec, template
        self.builtin, self.description = builtin, description
        self.store_config, self.warnings, self.folders = store_config, warnings, folders
        self.step_ending = step_ending
        self._build = build
        self._copies: dict[tuple, tuple] = {}
        self._lock = threading.Lock()

    def graph(self, saver: BaseCheckpointSaver, context: Any = None,
              store: BaseStore | None = None) -> Pregel:
        """The app's graph checkpointing to ``saver`` (and with ``store`` as its long-term
        store, whether or not the app compiled one in).

        A user graph's copy is made once per saver and store and shared by every session
        (compiled graphs are safe to share; each run is keyed by its thread config).
        """
        if self._build is not None:
            return self._build(saver, context)
        key = (id(saver), id(store))
        with self._lock:
            held = self._copies.get(key)
            if held is None or held[0] is not saver or held[1] is not store:
                update: dict[str, Any] = {"checkpointer": saver}
                if store is not None:
                    update["store"] = store
                held = (saver, store, self.template.copy(update=update))
                self._copies = {**self._copies, key: held}
            return held[2]

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
        """True when the state's ``messages`` channel merges with ``add_messages`` (or is a
        DeltaChannel on LangGraph's messages reducer): a chat.

        Read from the channel's reducer, not from the annotation's text, so
        ``Annotated[list, add_messages]``, ``list[AnyMessage]`` in ``MessagesState``, a dataclass
        or a Pydantic state all count (``str(Annotated[list, add_messages])`` has no "Message").
        """
        return is_chat_channel(getattr(self.template, "channels", {}).get("messages"))

    @property
    def managed_keys(self) -> frozenset[str]:
        """State keys LangGraph fills in itself (``IsLastStep``, ``RemainingSteps``): never an
        input, never state a person edits."""
        builder = getattr(self.template, "builder", None)
        return frozenset(getattr(builder, "managed", None) or ())

    @property
    def settings_schema(self) -> tuple[str, type] | None:
        """What a run is given besides its input: ``("context", schema)`` for a
        ``context_schema`` passed as ``context=``, ``("configurable", schema)`` for an older
        ``Configuration`` read with ``from_runnable_config`` (values in
        ``config["configurable"]``; LangGraph 1.x files ``config_schema=`` as the context
        schema), or None."""
        builder = getattr(self.template, "builder", None)
        schema = getattr(builder, "context_schema", None)
        if not isinstance(schema, type):
            return None
        if hasattr(schema, "from_runnable_config"):
            return "configurable", schema
        return "context", schema


def is_chat_channel(channel: Any) -> bool:
    """True for a channel whose reducer is LangGraph's ``add_messages`` (or wraps it), or a
    DeltaChannel folded by LangGraph's messages reducer (the chat form of LangGraph 1.2)."""
    from langgraph.channels.delta import DeltaChannel
    from langgraph.graph.message import _messages_delta_reducer, add_messages

    if isinstance(channel, DeltaChannel):
        return channel.reducer is _messages_delta_reducer
    operator = getattr(channel, "operator", None)
    if operator is None:
        return False
    return operator is add_messages or "add_messages" in getattr(operator, "__qualname__", "")
