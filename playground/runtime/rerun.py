"""Re-run a thread on the graph's current code, from one of its checkpoints, from its recording.

Someone fixed a node; the thread that went wrong is still there. A re-run starts the graph as it
is loaded now from a checkpoint of that thread, into a new branch, and plays the rest of the
original branch's recording into it: each time the run stops, the next input or
``interrupt()`` answer the original received; each chat-model call, the next reply the original
recorded (:mod:`playground.runtime.answers`); each tool call, its real result, or the recorded
one when asked. A call the recording cannot answer stops the re-run and says why. Then the new
branch is compared with the original (:mod:`playground.timetravel.compare`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langgraph.types import Command

from playground.runtime.answers import Answerer, ai_message
from playground.runtime.run import GraphRun, RunOutcome, RunStep
from playground.timetravel.messages import message_list
from playground.timetravel.recording import Recording
from playground.timetravel.runs import ACTION_KEY, RERUN

MAX_RUNS = 200  # runs of one re-run (inputs, answers, continues) before it is called a loop


@dataclass
class ReRunOutcome:
    """How a re-run ended.

    Attributes:
        status: ``done`` (the recording was played to its end), ``stopped`` (a call the
            recording could not answer, or a question it has no answer for), ``failed`` (a
            node raised: the new code's own error).
        message: one line for a person.
        last: the outcome of the last run (where the new branch stands).
        steps: every step the re-run's runs took, in order.
        replies_used: recorded model replies given.
        real_model_calls: calls that went to the real model past the recording.
        refused: True when it stopped at a call the recording could not answer (a model
            called more often, a tool called with other arguments).
    """

    status: str
    message: str
    last: RunOutcome | None = None
    steps: list[RunStep] = field(default_factory=list)
    replies_used: int = 0
    real_model_calls: int = 0
    refused: bool = False


def rerun(graph: Any, recording: Recording, *, tools_from_recording: bool = False,
          real_model_after: bool = False, on_step: Callable[[RunStep], None] | None = None,
          checkpoint_ns: str = "") -> ReRunOutcome:
    """Run ``graph`` from ``recording.start`` into a new branch, answering from the recording.

    Args:
        graph: the app's graph as loaded now, on the thread's saver.
        recording: what the original branch received and answered
            (:func:`playground.timetravel.recording.record_branch`).
        tools_from_recording: answer tool calls from the recorded results; by default tools
            run for real.
        real_model_after: when the recorded replies run out, call the real model instead of
            stopping.
        on_step: called with each step as it happens (a page streams them).
        checkpoint_ns: the namespace (the root graph's by default).
    """
    answerer = Answerer(recording, tools_from_recording=tools_from_recording,
                        real_model_after=real_model_after)
    # Every checkpoint the re-run writes says it is one: the tree names its branch "re-run of
    # #N on current code", not a replay.
    marked = {ACTION_KEY: RERUN}
    thread = {"configurable": {"thread_id": recording.thread_id}, "metadata": marked}
    config = {"configurable": {"thread_id": recording.thread_id, "checkpoint_ns": checkpoint_ns,
                               "checkpoint_id": recording.start}, "metadata": marked}
    events = list(recording.events)
    continues = dict(recording.continues)
    payload: Any = None
    skipped = 0  # recorded answers to questions this run never asked
    if not recording.start:  # from the thread's first input, on a thread of its own
        config = thread
        if not events or events[0].kind != "input":
            return ReRunOutcome("stopped", "stopped: the recording holds no first input")
        payload = as_input(events.pop(0).value)
    found = ReRunOutcome("done", "")

    def end(status: str, message: str, last: RunOutcome | None) -> ReRunOutcome:
        found.status, found.message, found.last = status, message, last
        found.replies_used, found.real_model_calls = answerer.replies_given, answerer.real_calls
        found.refused = answerer.stopped is not None
        return found

    for _ in range(MAX_RUNS):
        run = GraphRun(graph, config, payload, answerer=answerer)
        for step in run:
            found.steps.append(step)
            if on_step is not None:
                on_step(step)
        last = run.outcome
        config = thread
        if answerer.stopped:
            where = f" in {run.running or _node(last)}" if (run.running or _node(last)) else ""
            return end("stopped", f"stopped{where}: {answerer.stopped}", last)
        if last is None or last.status in ("failed", "recursion", "held"):
            return end("failed", last.message if last else "the run ended without an outcome",
                       last)
        if last.status == "waiting":
            payload = _answer(last.questions, events)
            if payload is not None:
                continue
            return end("stopped", f"stopped: {last.message}, and the recording holds no answer "
                       "for it", last)
        if last.status == "paused":
            due = [node for node in last.next if continues.get(node, 0) > 0]
            if due:
                continues[due[0]] -= 1
                payload = None
                continue
            return end("done", f"played the recording to its end: {last.message}, as the "
                       "original waited", last)
        # finished: the next input, if the original got one. Answers before it were given to
        # questions this run did not ask (a tool that asked was answered from the recording).
        while events and events[0].kind == "resume":
            events.pop(0)
            skipped += 1
        if events and events[0].kind == "input":
            payload = as_input(events.pop(0).value)
            continue
        left = (f" ({skipped} recorded answers were not asked for: their questions were in "
                "tools answered from the recording)" if skipped else "")
        return end("done", f"played the recording to its end: finished{left}", last)
    return end("stopped", f"stopped after {MAX_RUNS} runs: the graph kept stopping and going on",
               None)


def _answer(questions: tuple, events: list) -> Command | None:
    """The recorded answers to the questions waiting now, taken off ``events``: each
    question's from the answers recorded for its node, in order (one answer for one question
    waiting; a map by interrupt id for several), or None when the recording has none."""
    front = []
    for event in events:
        if event.kind != "resume":
            break
        front.append(event)

    def take(node: str | None) -> Any:
        event = next((e for e in front if e.node == node), None)
        if event is None:
            event = next((e for e in front if e.node is None), None)
        if event is None:
            raise LookupError(node)
        front.remove(event)
        events.remove(event)
        return event.value

    try:
        if len(questions) <= 1:
            node = questions[0].node if questions else None
            if not front:
                return None
            named = any(e.node == node for e in front)
            return Command(resume=take(node) if named or node is None else take(front[0].node))
        return Command(resume={q.interrupt_id: take(q.node) for q in questions})
    except LookupError:
        return None


def _node(outcome: RunOutcome | None) -> str:
    if outcome is None:
        return ""
    if outcome.failure:
        return outcome.failure.node
    return ", ".join(outcome.next)


def as_input(value: Any) -> Any:
    """A recorded input (plain data) as the graph takes it: message lists as LangChain
    messages, everything else as it was recorded."""
    if not isinstance(value, Mapping):
        return value
    return {key: _messages_or_value(item) for key, item in value.items()}


def _messages_or_value(value: Any) -> Any:
    messages = message_list(value)
    if messages is None:
        return value
    return [_message(m.role, m.raw, m) for m in messages]


def _message(role: str, raw: Mapping, message: Any) -> Any:
    from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

    content = raw.get("content", message.text)
    if role == "ai":
        return ai_message({"content": content, "id": message.id, "tool_calls": [
            {"name": c.name, "args": c.args, "id": c.id} for c in message.tool_calls]})
    if role == "tool":
        return ToolMessage(content=content, tool_call_id=message.tool_call_id or "",
                           name=message.name, id=message.id)
    if role == "system":
        return SystemMessage(content=content, id=message.id)
    return HumanMessage(content=content, id=message.id)


__all__ = ["ReRunOutcome", "as_input", "rerun"]
