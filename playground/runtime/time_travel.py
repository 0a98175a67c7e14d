"""Time travel on a graph's thread: the commands a page or the CLI runs, each one acting.

The engine (:mod:`playground.timetravel`) runs no graph; these commands drive one:

edit_state       write a validated edit as a new checkpoint (``update_state``)
replay_from      re-run a thread from one of its past checkpoints
fork_with_edit   edit a past checkpoint and run on from the edited state
fork_from_form   History's "Edit this state and fork" form: the typed fields, parsed and forked
                 (form_field: how the form shows a key; form_changes: the edit the form holds)
resume_thread    run a paused thread on, told in words that fit any app

Replay and fork grow a new branch beside the old one; nothing is overwritten. Their result says
where the branch starts (``fork_checkpoint_id``), where it ends (``head_config``) and whether the
run paused again: ``interrupt_before`` passed at call time is ignored (docs/architecture.md), so
a replay through a paused node stops there again, with ``next`` naming it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.errors import InvalidUpdateError
from langgraph.types import Command

from playground.apps.json_text import parse_json
from playground.apps.state_fields import (
    EditRefused,
    allows_none,
    describe_hint,
    graph_nodes,
    is_text_hint,
    state_fields,
    typed_as_json,
    validate_edit,
)
from playground.runtime.run import questions_of


def checkpoint_exists(graph: Any, config: RunnableConfig) -> bool:
    """Whether the checkpoint a config names is stored (or, without an id, the thread has one).

    Args:
        graph: a compiled graph with a checkpointer.
        config: a thread config, with or without ``checkpoint_id``.
    """
    own = getattr(graph, "checkpoint_exists", None)  # a graph on a server asks the server
    if callable(own):
        return bool(own(config))
    return saver_of(graph).get_tuple(config) is not None


def saver_of(graph: Any) -> BaseCheckpointSaver:
    """The graph's checkpointer.

    Raises:
        ValueError: when the graph was compiled without one.
    """
    saver = getattr(graph, "checkpointer", None)
    if not isinstance(saver, BaseCheckpointSaver):
        raise ValueError(
            "the graph has no checkpointer: compile it with checkpointer=<a saver> to edit, "
            "replay or fork its threads"
        )
    return saver


def edit_state(
    graph: Any,
    config: RunnableConfig,
    values: Mapping[str, Any],
    as_node: str | None = None,
) -> RunnableConfig:
    """Validate an edit, then write it as a new checkpoint with ``update_state``.

    The new checkpoint (metadata source ``update``) is a child of the checkpoint ``config``
    names, or of the thread's newest one; ``next`` becomes the successors of ``as_node``.

    Args:
        graph: the compiled graph, with a checkpointer.
        config: the thread, and optionally the ``checkpoint_id`` to edit.
        values: state keys and their new values. A key with a reducer (such as
            ``Annotated[list, operator.add]``) goes through it: a list is appended, not set.
        as_node: the node the edit acts as; None lets LangGraph infer the last writer.

    Returns:
        The config of the new checkpoint.

    Raises:
        EditRefused: when the edit is invalid, names a checkpoint that does not exist, or LangGraph
            cannot tell which node it acts as. Nothing is written then.
    """
    validate_edit(graph, values, as_node)
    configurable = config.get("configurable", {})
    checkpoint_id = configurable.get("checkpoint_id")
    # update_state on an unknown checkpoint_id starts a new root checkpoint instead of failing
    if checkpoint_id and not checkpoint_exists(graph, config):
        raise EditRefused(
            f"no checkpoint {checkpoint_id!r} in thread {configurable.get('thread_id')!r}: "
            "pick one from the thread's history"
        )
    try:
        return graph.update_state(config, dict(values), as_node=as_node)
    except InvalidUpdateError as exc:
        # Raised before the saver is called (pregel/main.py), so nothing was written.
        nodes = ", ".join(graph_nodes(graph))
        if "Ambiguous" in str(exc):
            raise EditRefused(
                "cannot tell which node the edit acts as (several nodes wrote last): "
                f"set as_node to one of {nodes}"
            ) from exc
        raise EditRefused(f"LangGraph refused the edit: {exc}") from exc


@dataclass(frozen=True)
class ReplayResult:
    """What a replay or fork wrote and where the thread stands after it.

    Attributes:
        replayed_checkpoint_id: the past checkpoint the run started from.
        fork_checkpoint_id: the first checkpoint of the new branch, a child of the replayed one
            (source ``fork`` for a replay, ``update`` for a fork with an edit); None when the
            run wrote nothing.
        new_checkpoint_ids: the new branch, oldest first.
        head_config: the config of the branch's newest checkpoint.
        values: the state at the head.
        next: the nodes due at the head; not empty when the run paused at an interrupt.
    """

    replayed_checkpoint_id: str
    fork_checkpoint_id: str | None
    new_checkpoint_ids: tuple[str, ...]
    head_config: RunnableConfig
    values: dict[str, Any]
    next: tuple[str, ...]

    @property
    def paused(self) -> bool:
        """True when the new branch stopped before a node (an interrupt) instead of finishing."""
        return bool(self.next)


def replay_from(graph: Any, config: RunnableConfig) -> ReplayResult:
    """Re-run a thread from one of its past checkpoints.

    LangGraph first writes a ``fork`` checkpoint whose parent is the given checkpoint, then runs
    the nodes due there (docs/architecture.md). A checkpoint written by ``update_state`` is its
    own fork point, so the run's first checkpoint is its child directly.

    Args:
        graph: the compiled graph, with a checkpointer.
        config: a config naming the thread and the ``checkpoint_id`` to replay from.

    Returns:
        The new branch and the state at its head.

    Raises:
        ValueError: when the config names no checkpoint, a subgraph checkpoint, or one that is
            not in the thread; nothing is written then.
    """
    checkpoint_id = _require_root_checkpoint(graph, config)
    before = _newest_id(graph, config)
    graph.invoke(None, config)
    return _result(graph, config, checkpoint_id, before)


def fork_with_edit(
    graph: Any,
    config: RunnableConfig,
    values: Mapping[str, Any],
    as_node: str | None = None,
) -> ReplayResult:
    """Edit a past checkpoint and run on from the edited state.

    The edit is written as an ``update`` checkpoint, a child of the given checkpoint, and the run
    continues from it, so the new branch holds the edited state.

    Args:
        graph: the compiled graph, with a checkpointer.
        config: a config naming the thread and the ``checkpoint_id`` to edit.
        values: state keys and their new values (validated, see ``edit_state``).
        as_node: the node the edit acts as; its successors run next.

    Returns:
        The new branch and the state at its head.

    Raises:
        EditRefused: when the edit is invalid; nothing is written then.
        ValueError: when the config names no checkpoint, a subgraph checkpoint, or one that is
            not in the thread; nothing is written then.
    """
    checkpoint_id = _require_root_checkpoint(graph, config)
    before = _newest_id(graph, config)
    edited = edit_state(graph, config, values, as_node)
    # Keep the caller's configurable keys (nodes may read them); take the edit's checkpoint id.
    run_config = {
        **config,
        "configurable": {**config["configurable"], **edited["configurable"]},
    }
    graph.invoke(None, run_config)
    return _result(graph, config, checkpoint_id, before)


# The roles whose text the fork form edits as text; an AI message's tool calls and a tool's
# result stay as they were (their structure is not text a person types).
EDITABLE_ROLES = {"human": "HumanMessage", "system": "SystemMessage", "ai": "AIMessage"}


def edited_messages(shown: Any, texts: Mapping[str, str]) -> list[Any]:
    """Real LangChain messages for the conversation ``shown`` (as the safe decoder read it)
    whose text the form changed: each keeps its id, so ``add_messages`` puts it in the place
    of the message it edits.

    Args:
        shown: the decoded list of messages the form showed.
        texts: the text typed for each message, by message id.

    Raises:
        EditRefused: a changed message cannot be written back as text (an AI message with
            tool calls, a tool's result); nothing is written then.
    """
    from langchain_core import messages as lc

    from playground.timetravel.messages import message_list

    edited = []
    for message in message_list(shown) or ():
        text = texts.get(message.id or "")
        if text is None or text == message.text:
            continue
        if message.role not in EDITABLE_ROLES or message.tool_calls:
            what = ("an AI message with tool calls" if message.tool_calls
                    else f"a {message.role} message")
            raise EditRefused(f"messages: {what} keeps its text; edit a human, system or "
                              "plain AI message")
        edited.append(getattr(lc, EDITABLE_ROLES[message.role])(content=text, id=message.id))
    return edited


@dataclass(frozen=True)
class FormField:
    """How History's fork form shows one state key.

    Attributes:
        key: the state key.
        kind: its type in words (``str | None``, ``dict``).
        is_text: typed as plain text, what is typed being the string (a ``str`` field holding
            a string or None); else typed as JSON (``3``, ``{"a": 1}``, ``"text"``).
        nullable: a text field whose type allows None: a "null" box beside it, since an empty
            box is the empty string.
        text: what the field shows: the string as it is (an ETag ``"v2"`` with its quotes),
            the value as JSON, or None for a nullable text field holding None (its "null" box
            ticked). A ``str`` field not set yet shows an empty box: typing sets it.
        hint: its type hint (what a refusal of a JSON field's text says it takes).
    """

    key: str
    kind: str
    is_text: bool
    nullable: bool
    text: str | None
    hint: Any = Any

    def value(self, typed: str | None) -> Any:
        """The value a field's typed text stands for: None for a ticked "null" box, a text
        field's text as it is, any other field's JSON parsed.

        Raises:
            EditRefused: a JSON field's text is not JSON (``"<key>: not valid JSON (...); dict is
                typed as JSON, like {"a": 1}"``).
        """
        if typed is None or self.is_text:
            return typed
        return parse_json(typed, self.key, needs_quotes=typed_as_json(self.hint),
                          refuse=EditRefused)


def form_field(key: str, hint: Any, value: Any) -> FormField:
    """How the fork form shows a state key of this type hint holding this value: as text for
    a ``str`` field (:func:`~playground.apps.state_fields.is_text_hint`) holding a string or
    None, else as JSON, so that a value the hint does not foresee (a number a node wrote to a
    ``str`` key) still shows as what it is."""
    kind = describe_hint(hint)
    if is_text_hint(hint) and (value is None or isinstance(value, str)):
        nullable = allows_none(hint)
        return FormField(key, kind, True, nullable, "" if value is None and not nullable
                         else value, hint)
    return FormField(key, kind, False, False, json.dumps(value), hint)


def form_changes(
    graph: Any,
    typed: Mapping[str, str | None],
    shown: Mapping[str, Any],
    extra_text: str = "{}",
    message_texts: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """The edit History's fork form holds: the values that differ from the checkpoint's, and
    the keys of the "Other keys" object. Nothing is checked against the state's types here
    (:func:`fork_with_edit` does it): an empty result means nothing differs.

    Args:
        graph: the compiled graph (its state's type hints say how each field is typed).
        typed: what each field holds: its text (a text field's string, else JSON), or None
            for a ticked "null" box. A key not here is not edited.
        shown: the checkpoint's values, by state key.
        extra_text: the "Other keys" text, a JSON object (``{}`` for none).
        message_texts: for a conversation field, the text typed for each message, by message
            id (:func:`edited_messages`); those fields are not in ``typed``.

    Raises:
        EditRefused: a JSON field or the "Other keys" text is not valid JSON, or a changed
            message cannot be written back as text.
    """
    hints = state_fields(graph)
    changes: dict[str, Any] = {}
    for key, text in typed.items():
        field = form_field(key, hints.get(key, Any), shown.get(key))
        if text == field.text:
            continue  # as shown: not edited, even a value JSON does not carry back as it was
        value = field.value(text)
        if value != shown.get(key) or type(value) is not type(shown.get(key)):
            changes[key] = value  # (type: 1 and true are equal in Python, not in a state)
    for key, texts in (message_texts or {}).items():
        edited = edited_messages(shown.get(key), texts)
        if edited:
            changes[key] = edited
    changes.update(parse_json(extra_text, refuse=EditRefused))
    return changes


def fork_from_form(
    graph: Any,
    thread_id: str,
    checkpoint_id: str,
    typed: Mapping[str, str | None],
    shown: Mapping[str, Any],
    extra_text: str,
    as_node: str | None,
    message_texts: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[dict[str, Any], ReplayResult]:
    """Fork a checkpoint of a thread with what History's "Edit this state and fork" form holds.

    A ``str`` field's text is the string as typed (None where its "null" box is ticked); any
    other field's text is parsed as JSON (:func:`form_field`). Only the values that differ from
    what the form showed are edited, then the keys of the "Other keys" object are added (a key
    outside the schema is refused by the validation, never silently dropped), and the edit runs
    on as :func:`fork_with_edit`.

    Args:
        graph: the compiled graph, with a checkpointer.
        thread_id: the thread.
        checkpoint_id: the root-graph checkpoint the form edits.
        typed: what each state field holds (see :func:`form_changes`): ``high`` in a ``str``
            field, ``3`` or ``{"a": 1}`` in a JSON one, None for "null".
        shown: the values the form showed, by state key.
        extra_text: the "Other keys" text, a JSON object (``{}`` for none).
        as_node: the node the edit acts as; None lets LangGraph infer the last writer.
        message_texts: for a conversation field, the text typed for each message, by
            message id (:func:`edited_messages`); those fields are not in ``typed``.

    Returns:
        The edit that was written, by key, and the new branch.

    Raises:
        EditRefused: a JSON field or the "Other keys" text is not valid JSON (``"<key>: not
            valid JSON (...); ..."``), nothing changed, or the edit does not fit the state;
            nothing is written then.
        ValueError: the checkpoint is not in the thread; nothing is written then.
    """
    changes = form_changes(graph, typed, shown, extra_text, message_texts)
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "",
                               "checkpoint_id": checkpoint_id}}
    return changes, fork_with_edit(graph, config, changes, as_node=as_node)


@dataclass(frozen=True)
class Resumed:
    """What resuming a paused thread did, told in words that fit any app.

    Attributes:
        thread_id: the thread.
        line: one sentence for a person: what ran and where the thread stands now.
        ok: False when there was nothing to resume, nothing ran, or a node failed.
        ran: the nodes that ran, in the order they finished (a node run twice is named twice).
        values: the state after the run.
        next: the nodes the thread waits at now (empty when it finished).
        refused: refused before anything ran (nothing to resume, or no answer to the head's
            question): the thread is as it was.
    """

    thread_id: str
    line: str
    ok: bool
    ran: tuple[str, ...] = ()
    values: dict[str, Any] = field(default_factory=dict)
    next: tuple[str, ...] = ()
    refused: bool = False


# The one answer a head's question may not get: nothing typed (said before anything runs).
NO_ANSWER = "type an answer to the question first"


def resume_thread(graph: Any, thread_id: str, answer: Any = None) -> Resumed:
    """Run a paused thread on from its newest checkpoint (``invoke(None)``, streamed), or,
    at a question, with the person's answer (``Command(resume=answer)``).

    A thread whose ``next`` is empty while its ``tasks`` still list nodes (a process killed
    after the tasks saved their writes, before the step's checkpoint) is resumable too:
    LangGraph applies those writes and carries on. A node that fails is reported in the line,
    not raised. A head that asks a question is refused without an answer (an empty string is
    none), before anything runs: resuming it with nothing would only ask again, or, on an
    Agent Server, start a run that fails.

    Args:
        graph: the compiled graph, with a checkpointer (or a graph an Agent Server runs).
        thread_id: the thread to resume.
        answer: the answer to the head's question, as parsed from what was typed; ignored
            at a head that asks nothing (a breakpoint, a stopped run).

    Returns:
        What ran and where the thread stands, with a line such as ``resumed thread 't1': write
        ran, finished``.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    before = graph.get_state(config)
    head = before.config.get("configurable", {}).get("checkpoint_id")
    pending = tuple(before.next) or tuple(task.name for task in before.tasks)
    if not pending:
        reason = "it has no checkpoints" if head is None else "it is not paused"
        return Resumed(thread_id, f"nothing to resume in thread {thread_id!r}: {reason}", False,
                       values=dict(before.values), refused=True)
    # A NodeInterrupt's pause takes no answer (it would raise again): it runs on with None.
    questions = [question for question in questions_of(before) if not question.held]
    refused = None
    if questions and (answer is None or (isinstance(answer, str) and not answer.strip())):
        refused = f'{questions[0].node} asks "{questions[0].text}"; {NO_ANSWER}'
    elif len(questions) > 1:
        refused = (f"{len(questions)} questions wait, and one answer cannot tell them apart: "
                   "answer each on the Run page")
    if refused:
        return Resumed(thread_id, f"not resumed, nothing was run: {refused}", False,
                       values=dict(before.values), next=tuple(before.next), refused=True)
    payload = Command(resume=answer) if questions else None
    ran: list[str] = []
    failure: Exception | None = None
    try:
        # A list of modes makes every graph yield (mode, data) pairs: a graph an Agent Server
        # runs always does, and iterating such a pair as an update failed on its dict.
        for _, update in graph.stream(payload, config, stream_mode=["updates"]):
            if isinstance(update, Mapping):
                ran.extend(node for node in update
                           if isinstance(node, str) and not node.startswith("__"))
    except Exception as exc:  # a node failed: said in the line, as the Run page says it
        failure = exc
    after = graph.get_state(config)
    values, waiting = dict(after.values), tuple(after.next)
    if failure is not None:
        failed = [task.name for task in after.tasks if getattr(task, "error", None)]
        where = f" in {', '.join(failed)}" if failed else ""
        line = (f"resuming thread {thread_id!r} failed{where}: {failure}; it still waits at "
                f"{', '.join(waiting or pending)}, resume it when the cause is fixed")
        ok = False
    elif after.config["configurable"]["checkpoint_id"] == head:
        # Nothing ran: typically a state key was renamed under a paused thread (LangGraph keeps
        # interrupting on the dead key's channel version and raises nothing).
        line = (f"resumed thread {thread_id!r}, and nothing ran: it still waits at "
                f"{', '.join(waiting)}")
        ok = False
    else:
        nodes = ", ".join(dict.fromkeys(ran)) or "nothing new"
        where = f"paused before {', '.join(waiting)}" if waiting else "finished"
        line, ok = f"resumed thread {thread_id!r}: {nodes} ran, {where}", True
    return Resumed(thread_id, line, ok, tuple(ran), values, waiting)

def _require_root_checkpoint(graph: Any, config: RunnableConfig) -> str:
    configurable = config.get("configurable", {})
    thread_id = configurable.get("thread_id")
    checkpoint_id = configurable.get("checkpoint_id")
    if not checkpoint_id:
        raise ValueError(
            f"the config names no checkpoint_id: replay starts from a past checkpoint of thread "
            f"{thread_id!r}; take its config from get_state_history"
        )
    if namespace := configurable.get("checkpoint_ns"):
        # Subgraph checkpoints are not in the root history (docs/architecture.md): the tree has
        # no place to show a branch grown from them.
        raise ValueError(
            f"checkpoint {checkpoint_id!r} belongs to the subgraph namespace {namespace!r}: "
            "replay the parent graph's checkpoint that ran the subgraph instead"
        )
    if not checkpoint_exists(graph, config):
        raise ValueError(
            f"no checkpoint {checkpoint_id!r} in thread {thread_id!r}: "
            "choose one from the thread's history"
        )
    return checkpoint_id


def _thread_config(config: RunnableConfig) -> RunnableConfig:
    configurable = {
        key: value
        for key, value in config.get("configurable", {}).items()
        if key not in ("checkpoint_id", "checkpoint_ns")
    }
    return {"configurable": configurable}


def _stored(graph: Any, config: RunnableConfig) -> tuple[RunnableConfig, RunnableConfig | None]:
    """(config, parent config) of the checkpoint ``config`` names (the newest without an id):
    from the saver's row where the graph has a saver (no values decoded), else from the graph's
    own state (a graph an Agent Server runs asks the server)."""
    saver = getattr(graph, "checkpointer", None)
    if isinstance(saver, BaseCheckpointSaver):
        found = saver.get_tuple(config)
        return (found.config, found.parent_config) if found else (config, None)
    snapshot = graph.get_state(config)
    return snapshot.config, snapshot.parent_config


def _newest_id(graph: Any, config: RunnableConfig) -> str:
    # the replayed checkpoint exists, so the thread has a newest checkpoint
    return _stored(graph, _thread_config(config))[0]["configurable"]["checkpoint_id"]


def _result(graph: Any, config: RunnableConfig, checkpoint_id: str, before: str) -> ReplayResult:
    head = graph.get_state(_thread_config(config))
    # Walk from the new head back to the replayed checkpoint. Checkpoint ids are uuid6, ordered
    # by creation time (get_state_history lists them newest first by id), so ids above `before`
    # were written by this run.
    branch: list[str] = []
    reached = False
    cursor: RunnableConfig | None = head.config
    while cursor is not None:
        current = cursor["configurable"]["checkpoint_id"]
        reached = current == checkpoint_id
        if reached or current <= before:
            break
        branch.append(current)
        cursor = _stored(graph, cursor)[1]
    branch.reverse()
    if not branch:
        # The run wrote nothing (say, a finished update checkpoint): the state is the replayed one.
        head = graph.get_state(config)
    return ReplayResult(
        replayed_checkpoint_id=checkpoint_id,
        fork_checkpoint_id=branch[0] if branch and reached else None,
        new_checkpoint_ids=tuple(branch),
        head_config=head.config,
        values=dict(head.values),
        next=tuple(head.next),
    )
