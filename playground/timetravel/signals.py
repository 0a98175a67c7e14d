"""What a task left under a checkpoint besides state: a question, an answer, an error.

LangGraph stores these as pending writes on reserved channels of the checkpoint the task ran
from: ``__interrupt__`` holds the ``Interrupt`` values a node raised with ``interrupt()``,
``__resume__`` the answers given with ``Command(resume=...)``, and ``__error__`` the exception of
a node that failed (its ``repr``). Read from safely decoded writes, so they are plain data here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from playground.timetravel.decode import UNREAD_KEY, is_unread, to_jsonable, type_name

INTERRUPT = "__interrupt__"
RESUME = "__resume__"
ERROR = "__error__"
SIGNAL_CHANNELS = (INTERRUPT, RESUME, ERROR)
_TEXT_LIMIT = 300


@dataclass(frozen=True)
class TaskSignal:
    """One question, answer or error a task stored under a checkpoint.

    Attributes:
        kind: ``interrupt`` (a node asks), ``answer`` (a resume value) or ``error``.
        node: the node whose task wrote it ("" when LangGraph's own resume task did).
        text: one line for a person: the question, the answer, or the exception.
        value: the decoded value, plain data.
        interrupt_id: the interrupt's id (to answer one of several), for questions.
    """

    kind: str
    node: str
    text: str
    value: Any
    interrupt_id: str | None = None

    @property
    def line(self) -> str:
        """The signal as one line: ``refund asks: Approve ...?``, ``lookup failed: ...``."""
        who = self.node or "the run"
        if self.kind == "interrupt":
            return f"{who} asks: {self.text}"
        if self.kind == "error":
            return f"{who} failed: {self.text}"
        return f"answered: {self.text}"


def as_text(value: Any, limit: int = _TEXT_LIMIT) -> str:
    """A short, readable text for a plain value (strings as they are, the rest as JSON)."""
    if is_unread(value):
        text = f"<{value[UNREAD_KEY]}>"
    elif isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(to_jsonable(value), ensure_ascii=False, default=repr)
        except (TypeError, ValueError, RecursionError):
            text = "<a value that cannot be shown>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def question_of(value: Any) -> str:
    """The words of an interrupt's value: its ``question`` (or similar) field, or the value."""
    if isinstance(value, dict):
        for key in ("question", "message", "prompt", "description", "text"):
            if isinstance(value.get(key), str):
                return as_text(value[key])
    return as_text(value)


# The keys of an interrupt LangGraph.js stores as plain JSON: ``{id, value}`` today, and
# ``{value, when, resumable, ns}`` in its older releases.
_JS_INTERRUPT_KEYS = frozenset({"id", "value", "when", "resumable", "ns", "interrupt_id"})


def _is_interrupt(item: Any) -> bool:
    if type_name(item):  # a typed Interrupt (Python), in any module
        return type_name(item).endswith(".Interrupt")
    return (isinstance(item, dict) and "value" in item and len(item) > 1
            and set(item) <= _JS_INTERRUPT_KEYS)


def _interrupts(value: Any) -> list[tuple[Any, str | None]]:
    # A list of Interrupt values; older LangGraph stored one, or a bare value.
    items = value if isinstance(value, list) else [value]
    found = []
    for item in items:
        if _is_interrupt(item):
            interrupt_id = item.get("id") or item.get("interrupt_id")
            found.append((item.get("value"), interrupt_id if isinstance(interrupt_id, str)
                          else None))
        else:
            found.append((item, None))
    return found


def signals_of(writes: Iterable[tuple[str, str, Any]]) -> tuple[TaskSignal, ...]:
    """The questions, answers and errors among one checkpoint's pending writes.

    Args:
        writes: ``(node, channel, decoded value)`` of each write, in stored order; writes on
            other channels are ignored.
    """
    signals: list[TaskSignal] = []
    answers: dict[str, TaskSignal] = {}
    for node, channel, value in writes:
        if channel == INTERRUPT:
            for asked, interrupt_id in _interrupts(value):
                signals.append(TaskSignal("interrupt", node, question_of(asked), asked,
                                          interrupt_id))
        elif channel == ERROR:
            signals.append(TaskSignal("error", node, as_text(value), value))
        elif channel == RESUME:
            # LangGraph writes the answer twice: once for the resume command, once as the list
            # the node consumed. Show each answer once.
            answer = value[0] if isinstance(value, list) and len(value) == 1 else value
            text = as_text(answer)
            if text not in answers or (node and not answers[text].node):
                answers[text] = TaskSignal("answer", node, text, answer)
    return (*signals, *answers.values())


@dataclass(frozen=True)
class AnsweredQuestion:
    """A question a node asked with ``interrupt()`` and the answer that took the run on.

    Attributes:
        checkpoint_id: the checkpoint that waited for the answer (both are stored under it).
        question: the question, as :attr:`TaskSignal.line` says it.
        answer: the answer's text.
    """

    checkpoint_id: str
    question: str
    answer: str


def answered_questions(path: Iterable[str], signals: Mapping[str, tuple[TaskSignal, ...]],
                       newest: int = 20) -> list[AnsweredQuestion]:
    """The questions asked and answered along ``path`` (checkpoint ids, oldest first): the
    ``newest`` of them, oldest first. A question without an answer (the thread still waits)
    is left out; two questions answered at one checkpoint each pair with their answer in order.
    """
    found: list[AnsweredQuestion] = []
    for checkpoint_id in path:
        stored = signals.get(checkpoint_id, ())
        asked = [s for s in stored if s.kind == "interrupt"]
        given = [s for s in stored if s.kind == "answer"]
        # fewer answers than questions: the rest are still waiting
        for question, answer in zip(asked, given, strict=False):
            found.append(AnsweredQuestion(checkpoint_id, question.line, answer.text))
    return found[-newest:]
