"""Where a thread's time and tokens went, read from what its checkpoints already hold.

No recorder is needed: every checkpoint has the time it was written (``ts``; ``created_at`` on
an Agent Server), and every AI message a node stored carries its ``usage_metadata`` (input and
output tokens, cache reads where the provider gives them) and its ``response_metadata`` (the
model's name). A step runs between its parent checkpoint and itself; its node (or each of a
parallel step's nodes, on a row of its own) is the checkpoint's writer; its tokens are those of
the new AI messages its tasks wrote (the pending writes under the parent).

Running, waiting and idle are told apart (docs/architecture.md, "The timeline"):

- A run the playground drives records its id and start in every checkpoint it writes
  (:mod:`playground.timetravel.runs`; an Agent Server stores its ``run_id`` too). A step whose
  checkpoint belongs to another run than its parent was paused first (a breakpoint,
  ``interrupt()``, a restart, the gap between turns): from the parent's time to the run's start
  is a wait (:data:`WAIT`), and only the rest is running (:data:`RUN`).
- Where the run changes and its start is not recorded, or a thread carries no run ids and
  LangGraph's own resume mark moved (``versions_seen["__interrupt__"]``: the loop copies the
  channel versions there when a run resumes, verified on LangGraph 1.2.24), the step is running
  that *may include a pause*, and says so: it is never silently counted as plain running.
  After an answered question (``interrupt()``) without a recorded start, the step is a wait.
- The gap before a new input is a wait between turns.
- An edit, a fork, a replay's fork or an update is an instant (:data:`EDIT`, no duration) at the
  moment it was made; the time from its parent to it is idle (:data:`IDLE`): neither running
  nor waiting for a person, kept apart from both totals and from the node table.

A node's share is of the branch's running wall time: a parallel step counts once per node, and
the sum of its tasks' times is a column of its own (task time), so no share passes 100%.

Untrusted data: a timestamp that is missing, unreadable, out of range or earlier than its
parent's makes that step's time unknown; a token count that is not a whole number between 0 and
:data:`MAX_TOKENS` makes that message's usage unknown. Neither is ever guessed, nor stretches a
chart. The playground never calls a model to count.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from playground.timetravel.bulk import paused_gc
from playground.timetravel.messages import as_message
from playground.timetravel.records import UNKNOWN_NODE, step_nodes
from playground.timetravel.signals import INTERRUPT, SIGNAL_CHANNELS
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, TreeCache, ensure_details

PRICES_ENV = "PLAYGROUND_PRICES"  # the price table `playground run --prices` names
MAX_TOKENS = 100_000_000  # per message: more is not a count any model reports
EARLIEST = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
LATEST_AHEAD = dt.timedelta(days=1)  # a time this far past the reader's clock is not real
RUN, WAIT, EDIT, IDLE = "run", "wait", "edit", "idle"
KINDS = (RUN, WAIT, IDLE, EDIT)
MAY_INCLUDE_PAUSE = "may include a pause"
PAUSE_WORTH_SECONDS = 0.5  # a stock step shorter than this is not checked for a resume
NEXT_INPUT = "(next input)"  # the row of the wait before a new input
MESSAGES = "messages"
SIGNALS = frozenset(SIGNAL_CHANNELS)
_NO_WRITERS = frozenset({"input", "update", "fork"})  # sources whose step no node ran
_NOTED = SIGNALS | {MESSAGES}  # channels whose every write tells a timeline something
_EDITS = frozenset({"update", "fork"})  # sources of a checkpoint a person made


@dataclass(frozen=True)
class Usage:
    """Tokens of the AI messages of one step's node (summed), and what could not be read."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    messages: int = 0  # AI messages whose usage was read
    without: int = 0  # AI messages that carried no usage, or an unreadable one
    models: tuple[str, ...] = ()

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input + other.input, self.output + other.output,
                     self.cache_read + other.cache_read, self.messages + other.messages,
                     self.without + other.without,
                     tuple(dict.fromkeys(self.models + other.models)))


_NO_USAGE = Usage()  # shared: a Usage never changes


class Step(NamedTuple):
    """One row of the timeline: a node's part of one step, or a wait (a named tuple: a long
    thread has tens of thousands).

    Attributes:
        checkpoint_id: the checkpoint the step wrote.
        parent_id: the checkpoint it ran from.
        ordinal: the checkpoint's ``#N``.
        step: LangGraph's step number.
        node: the node (``update_state``, ``fork``, or what a person was asked, for an edit or
            a wait).
        kind: ``run``; ``wait`` (for an answer, a pause before a step, between turns);
            ``idle`` (the time before an edit or a fork); ``edit`` (an instant: an edit, a fork,
            a replay's fork or an update, at the moment it was made, ``start == end``).
        start, end: seconds after the branch's first checkpoint; None when unknown.
        unknown: why the time is unknown, or None.
        usage: the tokens of the AI messages this node wrote in this step.
        note: what else a person should know (``waited for an answer``).
        maybe_paused: a running step that crossed into a new run whose start is not recorded:
            its time may include a pause.
    """

    checkpoint_id: str
    parent_id: str
    ordinal: int
    step: int | None
    node: str
    kind: str
    start: float | None
    end: float | None
    unknown: str | None = None
    usage: Usage = _NO_USAGE
    note: str = ""
    task_id: str = ""  # which task of a parallel step, where the place keeps task ids
    maybe_paused: bool = False

    @property
    def seconds(self) -> float | None:
        """How long it took, or None when unknown."""
        return None if self.start is None or self.end is None else self.end - self.start


@dataclass(frozen=True)
class NodeTotals:
    """One node's share of a timeline."""

    node: str
    calls: int  # steps it ran in
    seconds: float  # wall time of the steps it ran in, each step once
    unknown: int  # steps of this node whose time is unknown
    usage: Usage
    share: float  # of the branch's known running wall time: never above 1
    cost: float | None = None
    task_seconds: float = 0.0  # its tasks' times summed (parallel tasks each count)
    maybe_paused: int = 0  # its steps whose time may include a pause


@dataclass(frozen=True)
class Timeline:
    """A branch's steps, oldest first, with totals per node and for the branch.

    Attributes:
        thread_id: the thread.
        branch: the checkpoints of the branch, oldest first (its root to its tip).
        started_at: the branch's first checkpoint time (ISO), or None.
        steps: the rows.
    """

    thread_id: str
    branch: tuple[str, ...]
    started_at: str | None
    steps: tuple[Step, ...]

    @property
    def run_seconds(self) -> float:
        """Known running time (parallel nodes of a step counted once)."""
        return _step_seconds(s for s in self.steps if s.kind == RUN)

    @property
    def wait_seconds(self) -> float:
        """Known time spent waiting: for a person, paused before a step, between turns."""
        return _step_seconds(s for s in self.steps if s.kind == WAIT)

    @property
    def idle_seconds(self) -> float:
        """Known time before edits, forks and replays: neither running nor waiting."""
        return _step_seconds(s for s in self.steps if s.kind == IDLE)

    @property
    def maybe_paused(self) -> int:
        """Steps counted as running whose time may include a pause (start not recorded)."""
        return len({s.checkpoint_id for s in self.steps if s.maybe_paused})

    @property
    def usage(self) -> Usage:
        """Every step's tokens."""
        total = Usage()
        for step in self.steps:
            total += step.usage
        return total

    def own_after(self, checkpoint_id: str | None) -> Timeline:
        """The branch's own part after ``checkpoint_id`` (a common ancestor): only its steps
        that wrote a checkpoint after it, less the idle stretch that opens the part (the time
        between the ancestor being written and the branch being made from it, which belongs
        to no run). The whole timeline when ``checkpoint_id`` is None or not on the branch."""
        if checkpoint_id is None or checkpoint_id not in self.branch:
            return self
        after = set(self.branch[self.branch.index(checkpoint_id) + 1:])
        steps = [step for step in self.steps if step.checkpoint_id in after]
        first = self.branch[self.branch.index(checkpoint_id) + 1] \
            if len(self.branch) > self.branch.index(checkpoint_id) + 1 else None
        steps = [step for step in steps if not (step.checkpoint_id == first
                                                and step.kind == IDLE)]
        return replace(self, steps=tuple(steps))

    def totals(self, prices: Mapping[str, Mapping[str, float]] | None = None
               ) -> list[NodeTotals]:
        """Per node, slowest first: steps, the wall time of the steps it ran in (a parallel
        step once), its tasks' time summed, tokens, share of the running wall time (never
        above 100%), and the cost when a price table names its models (per million tokens).
        Idle time, instants and the wait before a new input are no node's."""
        by_node: dict[str, list[Step]] = defaultdict(list)
        for step in self.steps:
            if step.kind in (RUN, WAIT) and step.node != NEXT_INPUT:
                by_node[step.node].append(step)
        running = self.run_seconds or 0.0
        found = []
        for node, steps in by_node.items():
            ran = [s for s in steps if s.kind == RUN]
            wall: dict[str, float] = {}
            for s in ran:
                if s.seconds is not None:
                    wall[s.checkpoint_id] = s.seconds  # a step's tasks share its wall time
            seconds = sum(wall.values())
            usage = Usage()
            for step in steps:  # a node that ran once answered spent its tokens too
                usage += step.usage
            found.append(NodeTotals(
                node, len({s.checkpoint_id for s in steps}), seconds,
                len({s.checkpoint_id for s in ran if s.seconds is None}), usage,
                min(1.0, seconds / running) if running else 0.0,
                cost_of(usage, prices) if prices else None,
                sum(s.seconds for s in ran if s.seconds is not None),
                len({s.checkpoint_id for s in ran if s.maybe_paused})))
        found.sort(key=lambda totals: totals.seconds, reverse=True)
        return found

    def to_json(self, prices: Mapping[str, Mapping[str, float]] | None = None) -> dict:
        """The timeline as plain JSON (``playground timeline --json``)."""
        usage = self.usage
        return {
            "thread_id": self.thread_id, "branch_tip": self.branch[-1] if self.branch else None,
            "started_at": self.started_at,
            "run_seconds": round(self.run_seconds, 6), "wait_seconds": round(self.wait_seconds, 6),
            "idle_seconds": round(self.idle_seconds, 6),
            "steps_that_may_include_a_pause": self.maybe_paused,
            "tokens": _usage_json(usage),
            "steps": [{"checkpoint_id": s.checkpoint_id, "ordinal": s.ordinal, "step": s.step,
                       "node": s.node, "kind": s.kind, "start": _round(s.start),
                       "end": _round(s.end), "seconds": _round(s.seconds),
                       "unknown": s.unknown, "note": s.note or None,
                       "may_include_a_pause": s.maybe_paused,
                       "tokens": _usage_json(s.usage)} for s in self.steps],
            "nodes": [{"node": t.node, "calls": t.calls, "seconds": round(t.seconds, 6),
                       "task_seconds": round(t.task_seconds, 6),
                       "unknown_times": t.unknown, "share": round(t.share, 4),
                       "steps_that_may_include_a_pause": t.maybe_paused,
                       "tokens": _usage_json(t.usage), "cost": t.cost}
                      for t in self.totals(prices)],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _usage_json(usage: Usage) -> dict:
    return {"input": usage.input, "output": usage.output, "cache_read": usage.cache_read,
            "messages": usage.messages, "without_usage": usage.without,
            "models": list(usage.models)}


def _step_seconds(steps: Iterable[Step]) -> float:
    seen: dict[str, float] = {}
    for step in steps:
        if step.seconds is not None:
            seen[step.checkpoint_id] = step.seconds  # parallel nodes of one step: once
    return sum(seen.values())


def cost_of(usage: Usage, prices: Mapping[str, Mapping[str, float]]) -> float | None:
    """The money a node's tokens cost by a price table (per million tokens, by model), or None
    when its model is not in the table or it called several models."""
    if len(usage.models) != 1 or usage.models[0] not in prices:
        return None
    price = prices[usage.models[0]]
    return (usage.input * float(price.get("input", 0)) +
            usage.output * float(price.get("output", 0))) / 1_000_000


def read_prices(path: Path | None) -> dict[str, dict[str, float]] | None:
    """A price table (money per million tokens, by model name), checked; None without one.

    Raises:
        ValueError: not JSON, or not ``{"model": {"input": number, "output": number}}``.
    """
    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a JSON price table ({exc})") from None
    ok = isinstance(data, dict) and all(
        isinstance(model, str) and isinstance(price, dict) and all(
            key in ("input", "output") and isinstance(value, int | float)
            and not isinstance(value, bool) and value >= 0 for key, value in price.items())
        for model, price in data.items())
    if not ok:
        raise ValueError(f'{path}: a price table maps a model to {{"input": 3.0, "output": '
                         "15.0}, money per million tokens")
    return data


def parse_time(value: Any, now: dt.datetime | None = None) -> dt.datetime | None:
    """A checkpoint's time, or None when it is missing, unreadable or out of range."""
    return parse_times([value], now)[0]


def parse_times(values: Iterable[Any], now: dt.datetime | None = None
                ) -> list[dt.datetime | None]:
    """:func:`parse_time` of each value, in one loop (a long branch has tens of thousands).

    ISO text up to 64 characters (a ``Z`` for UTC too; a time without a zone is taken as UTC)
    between :data:`EARLIEST` and a day past ``now``; anything else is None.
    """
    latest = (now or dt.datetime.now(dt.UTC)) + LATEST_AHEAD
    parse, utc, found = dt.datetime.fromisoformat, dt.UTC, []
    append = found.append
    for value in values:
        if type(value) is not str or len(value) > 64:
            append(None)
            continue
        try:
            moment = parse(value)
        except ValueError:
            append(None)
            continue
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=utc)
        append(moment if EARLIEST <= moment <= latest else None)
    return found


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_TOKENS else None


def usage_of(messages: Iterable[Any]) -> Usage:
    """The tokens of the AI messages among ``messages`` (decoded, plain data)."""
    total = Usage()
    for value in messages:
        message = as_message(value)
        if message is None or message.role != "ai":
            continue
        raw = message.raw  # a mapping: as_message reads only those
        metadata = raw.get("usage_metadata")
        if isinstance(raw.get("kwargs"), Mapping):  # a LangChain.js envelope
            metadata = raw["kwargs"].get("usage_metadata")
        counts = None
        if isinstance(metadata, Mapping):
            read, wrote = _count(metadata.get("input_tokens")), _count(
                metadata.get("output_tokens"))
            details = metadata.get("input_token_details")
            cached = _count(details.get("cache_read")) if isinstance(details, Mapping) else 0
            if read is not None and wrote is not None:
                counts = (read, wrote, cached or 0)
        if counts is None:
            total += Usage(without=1)
            continue
        total += Usage(counts[0], counts[1], counts[2], 1, 0, _model(raw))
    return total


def _model(raw: Mapping) -> tuple[str, ...]:
    for holder in (raw, raw.get("kwargs") if isinstance(raw.get("kwargs"), Mapping) else {}):
        metadata = holder.get("response_metadata")
        if isinstance(metadata, Mapping):
            for key in ("model_name", "model", "model_id"):
                name = metadata.get(key)
                if isinstance(name, str) and name:
                    return (name[:200],)
    return ()


def _messages_in(value: Any) -> list:
    return value if isinstance(value, list) else [value]


class _WritesUnder:
    """The writes under one checkpoint, as a timeline needs them: what was asked (an
    interrupt's node), each node's tasks in order, and whether a task's path named no node."""

    __slots__ = ("asked", "nameless", "tasks")

    def __init__(self) -> None:
        self.asked: str | None = None
        self.tasks: dict[str, list[str]] = {}
        self.nameless = False

    def named(self) -> tuple[str, ...]:
        """The nodes the task paths name, by name (a stable order, whatever order the kind
        gave the writes in)."""
        if len(self.tasks) == 1 and not self.nameless:  # most steps: one node, one task
            return tuple(self.tasks)
        return tuple(sorted(node for node in self.tasks if node != UNKNOWN_NODE))

    def tasks_of(self, writers: tuple[str, ...]) -> dict[str, list[str]]:
        """Each writer's tasks. A ``Send`` fan-out runs one node as several tasks whose stored
        paths do not name it: the step's single writer owns them."""
        if not self.nameless and ((len(self.tasks) == 1 and writers[0] in self.tasks)
                                  or all(node in writers for node in self.tasks)):
            return self.tasks
        owned: dict[str, list[str]] = {}
        for node, ids in self.tasks.items():
            owner = node if node in writers or len(writers) != 1 else writers[0]
            held = owned.setdefault(owner, [])
            held.extend(task for task in ids if task not in held)
        return owned


@dataclass(frozen=True)
class _BranchWrites:
    """Who wrote under each checkpoint of a branch.

    Most checkpoints of a long thread have one task's plain writes under them: those keep just
    ``(node, task id)`` in ``one_task``, a lean row for the common step. Any other has its whole
    account in ``accounts``. ``with_messages`` lists the checkpoints with a write on the
    messages channel (the only values a timeline reads).
    """

    one_task: dict[str, tuple[str, str]]
    accounts: dict[str, _WritesUnder]
    with_messages: list[str]


def _run_changes(storage: Storage, tree: CheckpointTree, branch: list[str] | tuple[str, ...],
                 zero: float | None, offsets: list[float | None]
                 ) -> tuple[set[int], dict[int, float]]:
    """The steps (indexes into ``branch``) whose checkpoint began a new run, and, where that
    run's start is recorded, the start (seconds after ``zero``, the branch's first time).

    A run is told by the ``run_id`` its checkpoints record (a run the playground drove, or an
    Agent Server's). Where neither side of a step records one (a stock LangGraph thread), by
    LangGraph's own mark: a resumed run's first checkpoint holds another
    ``versions_seen["__interrupt__"]`` than its parent (:meth:`Storage.resume_marks`, read for
    those steps only). A mark that cannot be read on one side counts as a change: a step is
    never silently counted as plain running. A stock step shorter than
    :data:`PAUSE_WORTH_SECONDS` is not looked at: a pause inside it could move no total by more
    than that, and a long thread's steps are mostly milliseconds (reading every blob's mark
    would double the timeline's cost).
    """
    nodes = tree.nodes
    records = [nodes[cid] for cid in branch]
    crossed: set[int] = set()
    unmarked: list[int] = []
    for at in range(1, len(records)):
        ran, before = records[at].run_id, records[at - 1].run_id
        if ran is None and before is None:
            start, end = offsets[at - 1], offsets[at]
            if records[at].source == "loop" and start is not None and end is not None \
                    and end - start >= PAUSE_WORTH_SECONDS:  # a resume's first is the loop's
                unmarked.append(at)
        elif ran != before:
            crossed.add(at)
    if unmarked:
        ids = {branch[at] for at in unmarked} | {branch[at - 1] for at in unmarked}
        marks = storage.resume_marks(tree.thread_id, ids, tree.checkpoint_ns)
        crossed.update(at for at in unmarked
                       if marks.get(branch[at]) != marks.get(branch[at - 1]))
    starts: dict[int, float] = {}
    if crossed and zero is not None:
        known = sorted(at for at in crossed if records[at].run_id is not None)
        for at, moment in zip(known, parse_times(records[at].run_started_at for at in known),
                              strict=True):
            if moment is not None:
                starts[at] = moment.timestamp() - zero
    return crossed, starts


_STEP_BYTES = 300  # a row of a timeline in memory (a named tuple of ids, numbers, a Usage)


def kept_timeline(cache: TreeCache, storage: Storage, tree: CheckpointTree,
                  tip: str | None = None) -> Timeline:
    """:func:`timeline`, kept in ``cache`` (the one ``tree`` came from, in its memory budget)
    while the thread is unchanged, so a page's rerun does not read it again."""
    return cache.derived(storage, tree, ("timeline", tip or tree.head),
                         lambda: timeline(storage, tree, tip),
                         lambda found: (len(found.steps) + len(found.branch)) * _STEP_BYTES)


def timeline(storage: Storage, tree: CheckpointTree, tip: str | None = None) -> Timeline:
    """The timeline of the branch that ends at ``tip`` (the head's by default).

    Reads the branch's checkpoint times (from the tree's records where it was read with them)
    and who wrote under each checkpoint, without decoding either where the kind can read them
    from its rows' heads and task paths; and the values of the writes on ``messages`` only,
    under the checkpoints that have some.
    """
    with paused_gc():  # a row per step, none in a cycle
        return _timeline(storage, tree, tip)


def _timeline(storage: Storage, tree: CheckpointTree, tip: str | None) -> Timeline:
    """:func:`timeline`: read the branch's times and writes, then tell its steps apart."""
    tip = tip or tree.head
    branch = tree.current_branch if tip == tree.head else tree.path_to(tip)
    stored_times = _stored_times(storage, tree, branch)
    writes = _branch_writes(storage, tree, branch)
    messages = _messages_by_task(storage, tree, writes.with_messages)
    _read_unnamed_writers(storage, tree, branch, writes)
    times = parse_times(stored_times.get(cid) for cid in branch)
    zero, offsets = _offsets(times)
    crossed, run_starts = _run_changes(storage, tree, branch, zero, offsets)
    steps = _steps(tree, branch, offsets, writes, messages, crossed, run_starts)
    started = times[0] if branch else None
    return Timeline(tree.thread_id, branch, started.isoformat() if started else None,
                    tuple(steps))


def _stored_times(storage: Storage, tree: CheckpointTree, branch: list[str] | tuple[str, ...]
                  ) -> dict[str, Any]:
    """Each checkpoint's time as stored (not parsed yet), by checkpoint id."""
    nodes = tree.nodes
    # Times come with the records where the kind reads them there; the rest are read now.
    unread = [cid for cid in branch if nodes[cid].created_at is None]
    stored = {} if len(unread) == len(branch) else {cid: nodes[cid].created_at for cid in branch}
    if unread:
        stored.update(storage.checkpoint_times(tree.thread_id, unread, tree.checkpoint_ns))
    return stored


def _branch_writes(storage: Storage, tree: CheckpointTree, branch: list[str] | tuple[str, ...]
                   ) -> _BranchWrites:
    """Who wrote under each checkpoint of the branch but its tip, gathered in one pass over the
    writes' owners (no value decoded)."""
    one_task: dict[str, tuple[str, str]] = {}
    accounts: dict[str, _WritesUnder] = {}
    with_messages: list[str] = []
    for cid, node, task_id, channel in storage.write_owners(tree.thread_id, branch[:-1],
                                                            tree.checkpoint_ns):
        if channel not in _NOTED and node != UNKNOWN_NODE:
            only_task = one_task.get(cid)
            if only_task is None and cid not in accounts:
                one_task[cid] = (node, task_id)
                continue
            if only_task is not None and only_task[1] == task_id and only_task[0] == node:
                continue  # the same task's next channel
        account = accounts.get(cid)
        if account is None:
            # Another task, a signal, a message or a task whose path names no node: the
            # checkpoint gets the whole account.
            account = accounts[cid] = _WritesUnder()
            only_task = one_task.pop(cid, None)
            if only_task is not None:
                account.tasks[only_task[0]] = [only_task[1]]
        if channel == INTERRUPT:
            account.asked = account.asked or node
            continue
        if channel in SIGNALS:
            continue
        if channel == MESSAGES:
            with_messages.append(cid)
        if node == UNKNOWN_NODE:
            account.nameless = True
        task_ids = account.tasks.get(node)
        if task_ids is None:
            account.tasks[node] = [task_id]
        elif task_id not in task_ids:
            task_ids.append(task_id)
    return _BranchWrites(one_task, accounts, with_messages)


def _messages_by_task(storage: Storage, tree: CheckpointTree, with_messages: list[str]
                      ) -> dict[tuple[str, str], list]:
    """The messages each task wrote, by ``(checkpoint id, task id)``: the only values read
    (for their usage), under the checkpoints that have some."""
    written: dict[tuple[str, str], list] = defaultdict(list)
    if with_messages:
        for write in storage.stored_writes(tree.thread_id, tree.checkpoint_ns, with_messages,
                                           channels=[MESSAGES]):
            written[(write.checkpoint_id, write.task_id)].extend(_messages_in(write.value))
    return written


def _read_unnamed_writers(storage: Storage, tree: CheckpointTree,
                          branch: list[str] | tuple[str, ...], writes: _BranchWrites) -> None:
    """Decode the checkpoints whose writers the writes' task paths do not name (a Send's task,
    a file without task paths), for those only: their details then name the writers."""
    nodes, one_task, accounts = tree.nodes, writes.one_task, writes.accounts
    unnamed = [child for parent, child in itertools.pairwise(branch)
               if parent not in one_task and (parent not in accounts or accounts[parent].nameless)
               and nodes[child].source not in _NO_WRITERS]
    ensure_details(storage, tree, unnamed)


def _offsets(times: list[dt.datetime | None]) -> tuple[float | None, list[float | None]]:
    """The branch's first known time (a timestamp, None when no time is known), and each
    checkpoint's time in seconds after it (None where unknown)."""
    origin = next((moment for moment in times if moment is not None), None)
    zero = origin.timestamp() if origin is not None else 0.0
    offsets = [None if moment is None else moment.timestamp() - zero for moment in times]
    return (zero if origin is not None else None), offsets


def _steps(tree: CheckpointTree, branch: list[str] | tuple[str, ...],
           offsets: list[float | None], writes: _BranchWrites,
           messages: dict[tuple[str, str], list], crossed: set[int],
           run_starts: dict[int, float]) -> list[Step]:
    """The rows of the branch's steps, oldest first: the wait before each new input, an edit's
    idle time and instant, and a row per task of each node that ran (after a wait, where the
    step began a run whose start falls inside it)."""
    nodes, details, ordinals = tree.nodes, tree.details, tree.ordinals
    one_task, accounts = writes.one_task, writes.accounts
    shown_as: dict[tuple[str, ...], tuple[str, ...]] = {}  # writers -> as a person reads them
    label_of: dict[str, str] = {}  # the same, for one node
    nothing_written = _WritesUnder()  # the account of a checkpoint with no writes under it
    steps: list[Step] = []
    append = steps.append  # the loop runs once per step of a long thread: kept lean
    for at in range(1, len(branch)):
        parent, child = branch[at - 1], branch[at]
        record = nodes[child]
        start, end, unknown = offsets[at - 1], offsets[at], None
        if start is None or end is None:
            unknown = "its time, or its parent's, is missing or out of range"
            start = end = None
        elif end < start:
            unknown = "its time is earlier than its parent's"
            start = end = None
        ordinal, step = ordinals[child], record.step
        source = record.source
        if source == "input":
            append(Step(child, parent, ordinal, step, NEXT_INPUT, WAIT, start, end, unknown,
                        note="between two turns"))
            continue
        detail = details.get(child)
        only_task = one_task.get(parent)
        if (only_task is not None and detail is None and source not in _EDITS
                and at not in crossed):
            # The common step: one node ran one task, asked nothing, wrote no messages.
            node, task_id = only_task
            label = label_of.get(node)
            if label is None:
                label = label_of[node] = step_nodes((node,))[0]
            append(Step(child, parent, ordinal, step, label, RUN, start, end, unknown,
                        _NO_USAGE, "", task_id))
            continue
        account = accounts.get(parent, nothing_written)
        if only_task is not None:  # a leaf, decoded: the general way below, with its writers
            account = _WritesUnder()
            account.tasks[only_task[0]] = [only_task[1]]
        writers = tuple(detail.writers) if detail else account.named()
        if source in _EDITS or not writers:
            # An instant at the moment it was made; the time before it is idle.
            name = "update_state" if source == "update" else source or "?"
            if start is not None and end > start:
                append(Step(child, parent, ordinal, step, name, IDLE, start, end,
                            note=f"idle: nothing ran before this {name}"))
            append(Step(child, parent, ordinal, step, name, EDIT, end, end, unknown,
                        note="an instant: made at this moment"))
            continue
        shown = shown_as.get(writers)
        if shown is None:  # __start__ writing a run's input reads as "input"
            shown = shown_as[writers] = step_nodes(writers)
        waited_until, kind, note, may_include_pause = _how_it_ran(
            at in crossed, run_starts.get(at), start, end, account.asked)
        if waited_until is not None:
            why = (f"waited for an answer to {account.asked}" if account.asked
                   else "waiting between runs" if nodes[parent].source in _EDITS
                   else f"paused before {', '.join(shown)}")
            append(Step(child, parent, ordinal, step, account.asked or shown[0], WAIT,
                        start, waited_until, unknown, note=why))
            start = waited_until
        tasks = account.tasks_of(writers)
        for node, label in zip(writers, shown, strict=True):
            for task_id in tasks.get(node) or ("",):
                written = messages.get((parent, task_id)) if messages else None
                append(Step(child, parent, ordinal, step, label, kind, start, end, unknown,
                            usage_of(written) if written else _NO_USAGE, note, task_id,
                            may_include_pause))
    return steps


def _how_it_ran(began_run: bool, run_start: float | None, start: float | None,
                end: float | None, asked: str | None) -> tuple[float | None, str, str, bool]:
    """How a step that is not an edit counts its time: when the wait before it ends (the
    recorded start of the new run it began, where that falls inside the step; else None), the
    kind and note of its rows, and whether their running time may include a pause."""
    waited_until, may_include_pause = None, False
    if began_run:  # the step began a new run: it was paused before
        if run_start is not None and start is not None and start < run_start <= end:
            waited_until = run_start  # the run's start is known: a wait before, running after
        elif start is not None and (run_start is None or run_start > end):
            # A start not recorded (or not believable): never counted as plain running.
            may_include_pause = True
    if asked and waited_until is None:
        # After a question was answered the node ran again, and the run's start is not
        # known: the gap is mostly the wait.
        return None, WAIT, f"waited for an answer to {asked}", False
    if may_include_pause:
        note = f"{MAY_INCLUDE_PAUSE}: it began a new run whose start is not recorded"
        return None, RUN, note, True
    return waited_until, RUN, "", False
