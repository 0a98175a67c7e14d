"""Run any app's graph node by node: input, breakpoints, interrupt answers, errors, outcome.

A :class:`GraphRun` streams one call of ``graph.stream`` (modes ``updates`` and ``tasks``) and
turns what LangGraph yields into :class:`RunStep` records a page can show as they
arrive: a node starting, a node's update, a pause. When the stream ends, ``outcome`` says how the
run stopped, read back from the checkpointer: finished, paused at a breakpoint, waiting for an
answer to ``interrupt()``, failed in a node (with the user's traceback), or stopped at the
recursion limit. Nothing here imports Streamlit.

Verified on LangGraph 1.2.24: breakpoints passed at call time work when non-empty, and a
``Continue`` with the same breakpoints does not stop again where it stopped; ``interrupt()``
resumes with ``Command(resume=answer)``, or ``Command(resume={id: answer})`` when several wait.
"""

from __future__ import annotations

import asyncio
import json
import sysconfig
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.errors import GraphRecursionError
from langgraph.types import Command

from playground.runtime.driven import driven
from playground.runtime.review import ReviewRequest, review_request
from playground.timetravel.messages import as_message
from playground.timetravel.signals import ERROR, as_text, question_of
from playground.timetravel.status import STOPPED_ACTION, is_cancellation

DEFAULT_RECURSION_LIMIT = 25
# Frames of these are not the user's code: installed packages, the standard library (asyncio,
# concurrent.futures: a run goes through the event loop's thread) and the playground itself.
_LIBRARIES = (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"],
              str(Path(__file__).resolve().parents[1]))


@dataclass(frozen=True)
class Breakpoints:
    """Where a run pauses: before or after these nodes, or after every node (step mode)."""

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    step: bool = False

    def stream_kwargs(self) -> dict[str, Any]:
        """``interrupt_before``/``interrupt_after`` for ``graph.stream``; empty ones left out,
        because an empty list at call time is ignored (docs/architecture.md)."""
        kwargs: dict[str, Any] = {}
        if self.before:
            kwargs["interrupt_before"] = list(self.before)
        if self.step:
            kwargs["interrupt_after"] = "*"
        elif self.after:
            kwargs["interrupt_after"] = list(self.after)
        return kwargs


# LangGraph gives an interrupt raised with the older ``NodeInterrupt`` this id: resuming it with
# an answer re-raises it; the way on is to edit the state, then continue (verified on 1.2.24).
NODE_INTERRUPT_ID = "placeholder-id"


@dataclass(frozen=True)
class Question:
    """An ``interrupt()`` waiting for an answer.

    Attributes:
        interrupt_id: LangGraph's id, the key of its answer.
        node: the node that asked.
        text: the question in words.
        value: what ``interrupt()`` was given.
        review: a human-in-the-loop review of tool calls (approve / edit / reject), if it is one.
    """

    interrupt_id: str | None
    node: str
    text: str
    value: Any
    review: ReviewRequest | None = None

    @property
    def held(self) -> bool:
        """True for a ``NodeInterrupt``: a pause no answer gets past (edit the state instead)."""
        return self.interrupt_id == NODE_INTERRUPT_ID


@dataclass(frozen=True)
class NodeFailure:
    """A node that raised: which, what, and the traceback of the user's code."""

    node: str
    error: str
    traceback: str


@dataclass(frozen=True)
class RunStep:
    """One thing a run did, in the order it happened.

    Attributes:
        kind: ``start`` (a node began), ``token`` (a chat model streamed a piece of a message),
            ``update`` (a node finished and wrote), ``pause`` (a breakpoint or an interrupt
            stopped the run).
        node: the node; for a subgraph's node, ``subgraph/node``.
        lines: what the node wrote, one line per change (messages as ``ai: ...``).
        text: for ``token``, the piece of text streamed.
        message_id: for ``token``, the message it belongs to.
        tool_calls: for ``token``, tool calls the model decided in this piece, as
            ``name(args)`` lines.
    """

    kind: str
    node: str
    lines: tuple[str, ...] = ()
    text: str = ""
    message_id: str | None = None
    tool_calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended, as the checkpointer left the thread.

    Attributes:
        status: ``finished``, ``paused`` (a breakpoint), ``stopped`` (a person stopped it
            while a node ran: Continue runs it on), ``waiting`` (an interrupt asks),
            ``held`` (a ``NodeInterrupt``: edit the state to go on), ``failed`` (a node
            raised), ``recursion`` (the recursion limit stopped it).
        next: nodes due next (where it paused, waits or failed).
        questions: interrupts waiting for an answer.
        failure: the node error, for ``failed``.
        message: one line for a person.
    """

    status: str
    next: tuple[str, ...] = ()
    questions: tuple[Question, ...] = ()
    failure: NodeFailure | None = None
    message: str = ""


def parse_answer(text: str) -> Any:
    """An answer as typed: JSON when it parses (``true``, ``{"ok": 1}``, ``3``), else the text."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except (json.JSONDecodeError, ValueError):
        return text


def resume_command(questions: Sequence[Question], answers: Mapping[str | None, Any]) -> Command:
    """``Command(resume=...)`` for the waiting questions: one answer, or one per interrupt id."""
    if len(questions) <= 1:
        only = questions[0].interrupt_id if questions else None
        return Command(resume=answers.get(only, next(iter(answers.values()), None)))
    return Command(resume={q.interrupt_id: answers.get(q.interrupt_id) for q in questions})


def user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` with LangGraph's and the playground's frames left out."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if not f.filename.startswith(_LIBRARIES)]
    lines = traceback.format_list(own or frames)
    lines += traceback.format_exception_only(type(exc), exc)
    return "Traceback (most recent call last):\n" + "".join(lines)


def _plain_message(value: Any) -> dict | None:
    if isinstance(value, Mapping):  # an Agent Server's message: plain JSON already
        return dict(value) if isinstance(value.get("type"), str) else None
    kind = getattr(value, "type", None)
    if not isinstance(kind, str) or not hasattr(value, "content"):
        return None
    return {"type": kind, "content": value.content, "id": getattr(value, "id", None),
            "name": getattr(value, "name", None), "tool_calls": getattr(value, "tool_calls", None),
            "tool_call_id": getattr(value, "tool_call_id", None)}


def describe_update(update: Any, limit: int = 160) -> tuple[str, ...]:
    """A node's update in lines: ``messages + ai: ...``, ``topic = 'refund'``."""
    if not isinstance(update, Mapping):
        return () if update is None else (as_text(update, limit),)
    lines = []
    for key, value in update.items():
        items = value if isinstance(value, list) else [value]
        messages = [as_message(m) for m in (_plain_message(item) for item in items) if m]
        if messages and all(messages):
            lines.extend(f"{key} + {line}" for message in messages for line in message.lines())
        else:
            lines.append(f"{key} = {as_text(value, limit)}")
    return tuple(lines)


def _token(data: Any) -> RunStep | None:
    """A ``token`` step from a ``messages`` event: a chunk a chat model streamed.

    Whole messages (a tool's result, a model that does not stream) come with the node's update
    anyway: only chunks become tokens.
    """
    chunk, metadata = data if isinstance(data, tuple) and len(data) == 2 else (data, {})
    # A local run streams message objects; an Agent Server's run, the same as plain dicts.
    plain = chunk if isinstance(chunk, Mapping) else None
    kind = plain.get("type") if plain is not None else type(chunk).__name__
    if kind != "AIMessageChunk":
        return None
    content = plain.get("content") if plain is not None else chunk.content
    text = content if isinstance(content, str) else "".join(
        part.get("text", "") for part in content or () if isinstance(part, dict))
    pieces = (plain.get("tool_call_chunks") if plain is not None
              else getattr(chunk, "tool_call_chunks", None))
    calls = tuple(f"{call.get('name')}({call.get('args') or ''})"
                  for call in pieces or () if isinstance(call, Mapping) and call.get("name"))
    if not text and not calls:
        return None
    node = (metadata or {}).get("langgraph_node", "?") if isinstance(metadata, Mapping) else "?"
    message_id = plain.get("id") if plain is not None else chunk.id
    return RunStep("token", str(node), text=text,
                   message_id=message_id if isinstance(message_id, str) else None,
                   tool_calls=calls)


def _node_name(namespace: tuple[str, ...], name: str) -> str:
    parents = [part.split(":", 1)[0] for part in namespace]
    return "/".join([*parents, name])


@dataclass
class GraphRun:
    """One call of the graph, streamed.

    Args:
        graph: the app's compiled graph, on the playground's saver.
        config: the thread's config (``{"configurable": {"thread_id": ...}}``, optionally a
            ``checkpoint_id`` to run from).
        payload: the input, a ``Command`` (an answer), or None (continue, retry, replay).
        breakpoints: where to pause.
        recursion_limit: LangGraph's step limit for this call.
        tokens: stream chat models' messages token by token as well (``stream_mode=
            "messages"``), as ``token`` steps.
        answerer: answer the run's model (and tool) calls from a recording (a re-run).

    Attributes:
        outcome: how the run ended, once the iteration is over.
        store_changes: what the run's nodes wrote to the store, in order.
    """

    graph: Any
    config: dict
    payload: Any = None
    breakpoints: Breakpoints = field(default_factory=Breakpoints)
    recursion_limit: int = DEFAULT_RECURSION_LIMIT
    tokens: bool = False
    answerer: Any = None
    outcome: RunOutcome | None = field(default=None, init=False)
    store_changes: list = field(default_factory=list, init=False)
    running: str | None = field(default=None, init=False)
    _failed_node: str | None = field(default=None, init=False, repr=False)
    _stopped: bool = field(default=False, init=False, repr=False)
    _halted: bool = field(default=False, init=False, repr=False)
    _events: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.graph = driven(self.graph)

    def __iter__(self) -> Iterator[RunStep]:
        config = {**self.config, "recursion_limit": self.recursion_limit}
        # Root-graph events only: streaming every subgraph's own events as well (subgraphs=
        # True) costs a run about 12% on the support chat (bench/graph_run.py); a subgraph
        # shows as its node, which the drawing lights up with everything inside it.
        modes = ["updates", "tasks", "messages"] if self.tokens else ["updates", "tasks"]
        events = self._events = self.graph.stream(
            self.payload, config, stream_mode=modes, store_changes=self.store_changes,
            answerer=self.answerer, **self.breakpoints.stream_kwargs())
        ended = False  # the stream ran out (or raised), rather than being left by a Stop
        try:
            for mode, data in events:
                step = self._step((), mode, data)
                if step is not None:
                    yield step
            ended = not self._halted
        except GraphRecursionError:
            ended = True
            self.outcome = RunOutcome(
                "recursion", self._next(),
                message=f"stopped at the recursion limit ({self.recursion_limit} steps): the "
                "graph kept looping. Raise the limit, or look at the last steps for the loop",
            )
            return
        except Exception as exc:
            ended = True
            node = self._failed_node or self.running or "?"
            self.outcome = RunOutcome(
                "failed", self._next(),
                failure=NodeFailure(node, f"{type(exc).__name__}: {exc}", user_traceback(exc)),
                message=f"{node} failed: {type(exc).__name__}: {exc}",
            )
            return
        finally:
            # A page that stops drawing (Stop) leaves this generator: end the run there, between
            # two steps, rather than whenever the collector gets to it.
            events.close()
            if not ended:
                record_stop(self.graph, self.config)
        self.running = None
        # A run that ran to its end without a pause is finished: no need to read the state back.
        # A pause (a breakpoint, an interrupt) is read back, for its next nodes and questions.
        self.outcome = (outcome_of(self.graph, self.config) if self._stopped or self._halted
                        else RunOutcome("finished", message="finished"))

    def halt(self) -> None:
        """End the run between two steps from another thread (the page's next run, after a
        Stop), and wait until its finished steps are written."""
        halt = getattr(self._events, "halt", None)
        if halt is not None:
            self._halted = True
            halt()
            # Recorded here too, not only where the stream unwinds: the page that asked for the
            # halt reads the thread next, and the unwinding thread may get there after it.
            # (A second record finds the task's error written and adds nothing.)
            record_stop(self.graph, self.config)

    def _step(self, namespace: tuple[str, ...], mode: str, data: Any) -> RunStep | None:
        if mode == "messages":
            return _token(data)
        if mode == "tasks":
            node = _node_name(namespace, data.get("name", "?"))
            if "input" in data:  # a task starting
                self.running = node
                return RunStep("start", node)
            if data.get("error") is not None:
                self._failed_node = node
            return None
        for name, update in (data or {}).items():
            if name == "__interrupt__":
                self._stopped = True
                return RunStep("pause", _node_name(namespace, self.running or ""))
            return RunStep("update", _node_name(namespace, name), describe_update(update))
        return None

    def _next(self) -> tuple[str, ...]:
        try:
            return tuple(self.graph.get_state(_thread(self.config)).next)
        except Exception:  # the saver itself failed: nothing more to say
            return ()


def record_stop(graph: Any, config: dict) -> None:
    """Record that a person stopped a local run: each task due at the thread's head that has
    not finished gets the error LangGraph gives a cancelled task (``CancelledError``), as an
    ``__error__`` write under the head.

    LangGraph's own runner writes exactly this for a task it cancels, but a run cancelled from
    outside loses that write with the rest of its unwinding, so the head would read as a plain
    pause before the node. An Agent Server keeps its own (it says ``interrupted``): a graph
    that drives itself is left alone. Continue runs the stopped tasks again, as a retry does.
    A saver that cannot take the write leaves the thread as it was (paused before the node).
    """
    if getattr(graph, "drives_itself", False):
        return
    saver = getattr(graph, "checkpointer", None)
    loop = getattr(graph, "loop", None)
    if saver is None or isinstance(saver, bool) or loop is None:
        return
    try:
        snapshot = graph.get_state(_thread(config))
        due = [task for task in snapshot.tasks or ()
               if getattr(task, "error", None) is None and not getattr(task, "interrupts", ())
               and getattr(task, "result", None) is None]
        for task in due:
            loop.run(saver.aput_writes(snapshot.config, [(ERROR, asyncio.CancelledError())],
                                       task.id, _task_path(getattr(task, "path", ()))))
    except Exception:  # a stop is said on the page anyway; the thread stays readable
        return


def _task_path(path: Any) -> str:
    """A task's path as LangGraph's loop stores it beside a write (its ``task_path_str``, a
    private helper): the thread list names the node a write came from by it."""
    if isinstance(path, (tuple, list)):
        return "~" + ", ".join(_task_path(part) for part in path)
    return f"{path:010d}" if isinstance(path, int) else str(path)


def _thread(config: dict) -> dict:
    configurable = {k: v for k, v in config.get("configurable", {}).items()
                    if k not in ("checkpoint_id", "checkpoint_ns")}
    return {**config, "configurable": configurable}


def questions_of(snapshot: Any) -> tuple[Question, ...]:
    """The interrupts a thread's snapshot waits on, with the node that raised each."""
    found = []
    for task in getattr(snapshot, "tasks", ()) or ():
        for interrupt in getattr(task, "interrupts", ()) or ():
            value = getattr(interrupt, "value", interrupt)
            found.append(Question(getattr(interrupt, "id", None), task.name,
                                  question_of(value), value, review_request(value)))
    return tuple(found)


def outcome_of(graph: Any, config: dict) -> RunOutcome:
    """Where a thread stands now: finished, paused, waiting for answers, or failed."""
    snapshot = graph.get_state(_thread(config))
    waiting = tuple(snapshot.next)
    questions = questions_of(snapshot)
    if questions and all(q.held for q in questions):
        return RunOutcome("held", waiting, questions,
                          message=f"{questions[0].node} paused: {questions[0].text}")
    if questions:
        return RunOutcome("waiting", waiting, questions,
                          message=f"{questions[0].node} asks: {questions[0].text}")
    errors = [task for task in snapshot.tasks or () if getattr(task, "error", None)]
    # (an Agent Server gives the error as a line, a saver as the exception)
    failed = [task for task in errors if not is_cancellation(
        task.error if isinstance(task.error, str) else repr(task.error))]
    if errors and not failed:  # a person stopped it (Stop, a server's cancel)
        task = errors[0]
        return RunOutcome("stopped", waiting,
                          message=f"stopped in {task.name}: {STOPPED_ACTION}")
    errors = failed or errors
    if errors:
        task = errors[0]
        return RunOutcome("failed", waiting,
                          failure=NodeFailure(task.name, str(task.error), ""),
                          message=f"{task.name} failed: {task.error}")
    if waiting:
        return RunOutcome("paused", waiting, message=f"paused before {', '.join(waiting)}")
    return RunOutcome("finished", message="finished" if snapshot.values else "no run yet")


def current_outcome(graph: Any, config: dict, tree: Any) -> RunOutcome:
    """Where a thread stands, from its checkpoint tree's head when that is enough.

    A head with no questions, answers or errors under it is paused before its next nodes, or
    finished: the tree knows that without rebuilding any state. Otherwise the graph's own
    ``get_state`` tells which questions are open and whether the error still stands.
    """
    if tree.signals.get(tree.head):
        return outcome_of(graph, config)
    detail = tree.details.get(tree.head)
    waiting = tuple(detail.next) if detail else ()
    if waiting:
        return RunOutcome("paused", waiting, message=f"paused before {', '.join(waiting)}")
    return RunOutcome("finished", message="finished")
