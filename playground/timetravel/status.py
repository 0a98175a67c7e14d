"""Where a thread or a checkpoint stands, decided once: failed, stopped, paused, finished,
running.

Every surface says what this module decides: the thread list's rows and its status filter, the
tree's branch tips and kinds, the inspector's badges, ``playground history`` and its ``--json``,
the MCP tools. So no two of them can disagree about one checkpoint.

- **failed**: a node raised under the checkpoint (an ``__error__`` write). Nobody is asked and
  nothing waits for a person: the run stopped. Running it again retries the node that failed.
  A failed checkpoint is never paused, though LangGraph still lists that node as next.
- **stopped**: a person stopped the run while a node ran (Stop, or an Agent Server's cancel,
  which it calls ``interrupted``). LangGraph stores that as the node's error, a
  ``CancelledError``: it is no failure of the node, and Continue runs the node again from
  there. (A local run the playground stopped records the same write: ``runtime/run.py``.)
- **paused**: the checkpoint has nodes left to run and no error: at a question (a node's
  ``interrupt()`` waits for an answer) or before a node (a breakpoint, or a run stopped
  between steps). It waits for a person.
- **finished**: nothing is left to run.
- **running**: a run is going on right now; only a place that runs threads (an Agent Server)
  can tell, and it says so itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from playground.timetravel.signals import TaskSignal

FAILED, PAUSED, FINISHED, RUNNING = "failed", "paused", "finished", "running"
STOPPED = "stopped"
STATUSES = (PAUSED, STOPPED, FAILED, FINISHED)  # what every place can tell of a thread
# What Continue does at a stopped head: said wherever the status is.
STOPPED_ACTION = "Continue runs it on"
# A cancelled task's error as stored: asyncio's or concurrent.futures' CancelledError, by its
# repr (``CancelledError()``) or a server's ``CancelledError: ...`` line.
_CANCELLED = re.compile(r"^(?:[\w.]+\.)?CancelledError\b")


def is_cancellation(error: str) -> bool:
    """Whether an error, as a line (its repr), is a cancelled task's: a stop, not a failure."""
    return bool(_CANCELLED.match(error.strip()))
QUESTION_CHARS = 32  # of a question in a branch tip's label; the inspector has it whole


@dataclass(frozen=True)
class Status:
    """Where a thread or a checkpoint stands.

    Attributes:
        kind: :data:`FAILED`, :data:`STOPPED`, :data:`PAUSED`, :data:`FINISHED` or
            :data:`RUNNING`.
        node: the node that failed, was stopped or asks, or the nodes due next
            (comma-separated); "".
        detail: the error or the question, one line; "" for a breakpoint or a finish.
        asks: paused at a question (an ``interrupt()``), not before a node.
    """

    kind: str
    node: str = ""
    detail: str = ""
    asks: bool = False

    @property
    def said(self) -> str:
        """In words, whole: ``failed in tools: LookupError('no order 42')``, ``stopped in
        tick: Continue runs it on``, ``paused: refund asks "Approve $20?"``, ``paused before
        write``, ``finished``, ``running``."""
        return self._words(None)

    @property
    def short(self) -> str:
        """In words, a question cut to a tip's width: what a branch tip and a badge say."""
        return self._words(QUESTION_CHARS)

    def _words(self, limit: int | None) -> str:
        who = self.node or "a node"
        if self.kind == FAILED:
            return f"failed in {who}" + (f": {self.detail}" if self.detail and limit is None
                                         else "")
        if self.kind == STOPPED:
            return f"stopped in {who}" + (f": {STOPPED_ACTION}" if limit is None else "")
        if self.kind == PAUSED and self.asks:
            question = self.detail
            if limit is not None and len(question) > limit:
                question = question[: limit - 1] + "…"
            return f'paused: {who} asks "{question}"'
        if self.kind == PAUSED:
            return f"paused before {self.node}" if self.node else "paused"
        return self.kind

    @property
    def reason(self) -> str:
        """The thread list's reason column: the error or the question as a line (``tools
        failed: ...``, ``approve asks: ...``), "" for a breakpoint or a finish."""
        if self.kind == FAILED:
            return f"{self.node or 'the run'} failed: {self.detail}"
        if self.kind == STOPPED:
            return f"{self.node or 'the run'} stopped: {STOPPED_ACTION}"
        if self.asks:
            return f"{self.node or 'the run'} asks: {self.detail}"
        return ""


def status_at(next_nodes: Sequence[str], signals: Sequence[TaskSignal]) -> Status:
    """Where a checkpoint stands, from the nodes due after it and what its tasks left under it
    (errors before questions: a node that raised is not waiting for an answer; a real error
    before a cancellation: a step where one node failed and another was stopped failed)."""
    errors = [signal for signal in signals if signal.kind == "error"]
    failed = next((signal for signal in errors if not is_cancellation(signal.text)), None)
    if failed is not None:
        return Status(FAILED, failed.node, failed.text)
    if errors:
        return Status(STOPPED, errors[0].node, errors[0].text)
    asked = next((signal for signal in signals if signal.kind == "interrupt"), None)
    if asked is not None:
        return Status(PAUSED, asked.node, asked.text, asks=True)
    if next_nodes:
        return Status(PAUSED, ", ".join(next_nodes))
    return Status(FINISHED)
