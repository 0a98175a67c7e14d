"""Two branches of a thread compared step by step, from the checkpoint they share.

A fork is a question: what did it change? The answer is the two paths from their common
ancestor, side by side: each step's node and what it wrote, aligned by node so that a branch
that took another way (a different node, an extra loop) reads as "the paths part here" and "the
paths meet again" rather than as every later step differing. The first step where the branches
differ is named in words, then the difference of the two final states (messages compared one
by one: added, changed, removed, tool calls and their results).

A step is a checkpoint. What it wrote is read from the pending writes its node stored under the
checkpoint it ran from (one batched read for both branches, no state decoded); ``__start__``,
which writes a run's input into the state, is called ``input``. An ``update_state`` edit (no
node wrote it) shows the values it changed, a list channel such as ``messages`` only the items
it added or replaced. A checkpoint that changed nothing (the copy a replay starts from, an
input checkpoint before ``__start__`` ran) is no step of the graph and is left out, so a replay
on unchanged code compares as the same as its original.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from playground.timetravel.diff import StateDiff, diff_states
from playground.timetravel.limits import clip, limits
from playground.timetravel.messages import as_message, describe
from playground.timetravel.records import is_internal_channel, step_nodes, written_by
from playground.timetravel.status import FINISHED, Status
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, ensure_details

# What a step no node wrote is called, by its checkpoint's source.
_SOURCE_LABELS = {"input": "input", "update": "update_state", "fork": "fork"}


class CompareRefused(ValueError):
    """Two checkpoints that cannot be compared (unknown, or one thread has a single branch)."""


@dataclass(frozen=True)
class BranchStep:
    """One step of a branch: the checkpoint it made, who made it and what they wrote.

    Attributes:
        checkpoint_id: the checkpoint the step made.
        step: its step number (LangGraph's metadata), None when unknown.
        source: ``loop``, ``input``, ``update`` or ``fork``.
        nodes: the nodes whose writes made it, or its source's name when no node did
            (``input``, ``update_state``, ``fork``).
        writes: ``(channel, value)`` of each state channel written, in the order stored.
    """

    checkpoint_id: str
    step: int | None
    source: str | None
    nodes: tuple[str, ...]
    writes: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        """The step's node names joined, e.g. ``plan`` or ``left + right``."""
        return " + ".join(self.nodes)

    def lines(self, limit: int = 80) -> list[str]:
        """The node, then one ``channel = value`` line per write."""
        return [self.label, *(f"  {channel} = {describe(value, limit)}"
                              for channel, value in self.writes)]

    def same_as(self, other: BranchStep) -> bool:
        """Same nodes writing the same values (the checkpoints themselves differ by id, and
        messages are compared by what they say, not by the ids a run gave them)."""
        return self.nodes == other.nodes and _same(_said(self.writes), _said(other.writes))


@dataclass(frozen=True)
class StepPair:
    """Two steps aligned side by side, or one with nothing across from it.

    Attributes:
        left: the step on the left branch, or None.
        right: the step on the right branch, or None.
        note: what happens to the paths here, in words: ``the paths part`` or ``the paths meet
            again`` (None where they run alongside).
    """

    left: BranchStep | None
    right: BranchStep | None
    note: str | None = None

    @property
    def same(self) -> bool:
        """Both sides ran the same nodes and wrote the same values."""
        return self.left is not None and self.right is not None and self.left.same_as(
            self.right)


FINISHED_STATUS = Status(FINISHED)


@dataclass(frozen=True)
class BranchComparison:
    """Two branches of one thread, aligned step by step from their common ancestor.

    Attributes:
        thread_id: the thread.
        left: the checkpoint the left branch ends at.
        right: the checkpoint the right branch ends at.
        ancestor: the newest checkpoint both branches hold (None when they share none).
        pairs: the aligned steps after the ancestor.
        first_difference: index in ``pairs`` of the first pair that differs, None when none.
        final: the difference from the left branch's last state to the right's.
        left_next, right_next: the nodes each end has next (empty: the branch finished).
        left_status, right_status: where each end stands, as every surface says it (a
            failed end is failed, never waiting: :mod:`~playground.timetravel.status`).
    """

    thread_id: str
    left: str
    right: str
    ancestor: str | None
    pairs: tuple[StepPair, ...]
    first_difference: int | None
    final: StateDiff = field(default_factory=StateDiff)
    left_next: tuple[str, ...] = ()
    right_next: tuple[str, ...] = ()
    left_status: Status = FINISHED_STATUS
    right_status: Status = FINISHED_STATUS

    @property
    def identical(self) -> bool:
        """Every step and the final state are the same on both sides."""
        return self.first_difference is None and self.final.is_empty

    def difference_line(self) -> str:
        """The first difference in one sentence, naming the node on each side."""
        if self.first_difference is None:
            return ("no step differs" if self.final.is_empty
                    else "no step differs, but the final states do")
        pair = self.pairs[self.first_difference]
        at = f"step {self.first_difference + 1} after the common ancestor"
        if pair.left is None:
            return f"first difference at {at}: only the right branch runs {pair.right.label}"
        if pair.right is None:
            return f"first difference at {at}: only the left branch runs {pair.left.label}"
        if pair.left.nodes != pair.right.nodes:
            return (f"first difference at {at}: the left branch runs {pair.left.label}, the "
                    f"right runs {pair.right.label}")
        before, after = dict(pair.left.writes), dict(pair.right.writes)
        channels = sorted(c for c in before.keys() | after.keys()
                          if c not in before or c not in after
                          or not _same(_said(before[c]), _said(after[c])))
        what = f" ({', '.join(channels)})" if channels else ""
        return f"first difference at {at}: both run {pair.left.label}, writing other values{what}"

    def lines(self, width: int = 48, name: Callable[[str], str] = str) -> list[str]:
        """The comparison as text: the ancestor, the steps side by side, the final states.

        Args:
            width: characters of a side's column.
            name: how a checkpoint id is shown (the CLI adds its ``#N``).
        """
        ancestor = name(self.ancestor) if self.ancestor else (
            "none (the branches share no checkpoint)")
        out = [f"thread {clip(self.thread_id, 200)}",
               f"left:  {name(self.left)} ({self.left_status.short})",
               f"right: {name(self.right)} ({self.right_status.short})",
               f"common ancestor: {ancestor}", self.difference_line(), "",
               "= same  ~ differs  ! the first difference", ""]
        for index, pair in enumerate(self.pairs):
            mark = "!" if index == self.first_difference else ("=" if pair.same else "~")
            left = pair.left.lines() if pair.left else ["-"]
            right = pair.right.lines() if pair.right else ["-"]
            for row in range(max(len(left), len(right))):
                a = left[row] if row < len(left) else ""
                b = right[row] if row < len(right) else ""
                prefix = f"{mark} {index + 1:>3}  " if row == 0 else "       "
                out.append(f"{prefix}{clip(a, width):<{width}}  {clip(b, width)}")
            if pair.note:
                out.append(f"       ({pair.note})")
        out += ["", "final state, left -> right:"]
        out += [f"  {line}" for line in self.final.lines()] or ["  (the same)"]
        return out

    def to_json(self) -> dict:
        """The comparison as plain JSON data."""
        from playground.timetravel.decode import to_jsonable

        def step(value: BranchStep | None) -> dict | None:
            if value is None:
                return None
            return {"checkpoint_id": value.checkpoint_id, "step": value.step,
                    "source": value.source, "nodes": list(value.nodes),
                    "writes": [{"channel": c, "value": to_jsonable(v)} for c, v in value.writes]}

        return {
            "thread_id": self.thread_id, "left": self.left, "right": self.right,
            "ancestor": self.ancestor, "first_difference": self.first_difference,
            "left_next": list(self.left_next), "right_next": list(self.right_next),
            "left_status": self.left_status.kind, "right_status": self.right_status.kind,
            "first_difference_line": self.difference_line(),
            "steps": [{"left": step(p.left), "right": step(p.right), "same": p.same,
                       "note": p.note} for p in self.pairs],
            "final": self.final.lines(),
        }


def newest_branches(tree: CheckpointTree) -> tuple[str, str]:
    """The heads of the two newest branches (the tips made last), the default pair.

    Raises:
        CompareRefused: the thread has one branch only.
    """
    tips = sorted(tree.leaves, key=tree.ordinal, reverse=True)
    if len(tips) < 2:
        raise CompareRefused(f"thread {tree.thread_id!r} has one branch: fork or replay a "
                             "checkpoint to have two to compare")
    older, newer = tips[1], tips[0]
    return older, newer


def common_ancestor(tree: CheckpointTree, a: str, b: str) -> str | None:
    """The newest checkpoint on the paths to both ``a`` and ``b``."""
    shared = None
    for x, y in zip(tree.path_to(a), tree.path_to(b), strict=False):
        if x != y:
            break
        shared = x
    return shared


def compare_branches(storage: Storage, tree: CheckpointTree, left: str, right: str
                     ) -> BranchComparison:
    """Compare the branch ending at ``left`` with the one ending at ``right``.

    Args:
        storage: the database the tree was read from.
        tree: the thread's tree.
        left, right: the checkpoints the two branches end at (any two of the tree).

    Raises:
        CompareRefused: a checkpoint the tree does not hold.
    """
    for checkpoint_id in (left, right):
        if checkpoint_id not in tree.nodes:
            raise CompareRefused(f"no checkpoint {clip(checkpoint_id, 80)!r} in thread "
                                 f"{tree.thread_id!r}")
    ancestor = common_ancestor(tree, left, right)
    paths = [_after(tree.path_to(end), ancestor) for end in (left, right)]
    steps = branch_steps(storage, tree, paths[0] + paths[1])
    pairs = align([steps[cid] for cid in paths[0] if cid in steps],
                  [steps[cid] for cid in paths[1] if cid in steps])
    first = next((i for i, pair in enumerate(pairs) if not pair.same), None)
    values = [storage.values(tree.thread_id, end, tree.checkpoint_ns) for end in (left, right)]
    waiting = [tree.details[end].next if end in tree.details else () for end in (left, right)]
    return BranchComparison(tree.thread_id, left, right, ancestor, tuple(pairs), first,
                            diff_states(values[0], values[1]), *waiting,
                            tree.tip_status(left), tree.tip_status(right))


def align(left: list[BranchStep], right: list[BranchStep]) -> list[StepPair]:
    """Pair two branches' steps by their nodes, saying where the paths part and meet again.

    Steps with the same nodes pair one to one from the start. Where they differ, the paths meet
    again at the nearest pair of steps with the same nodes (fewest steps skipped on both sides
    together, looked for up to :data:`MEET_WINDOW` steps ahead); the steps skipped pair across
    as far as both sides go, and the rest stand alone (an extra loop on one side).
    """
    pairs: list[StepPair] = []
    i = j = 0
    parted = False
    while i < len(left) and j < len(right):
        if left[i].nodes == right[j].nodes:
            pairs.append(StepPair(left[i], right[j], "the paths meet again" if parted else None))
            parted = False
            i, j = i + 1, j + 1
            continue
        skip = _meeting(left, right, i, j)
        di, dj = skip if skip else (len(left) - i, len(right) - j)
        for offset in range(max(di, dj)):
            a = left[i + offset] if offset < di else None
            b = right[j + offset] if offset < dj else None
            pairs.append(StepPair(a, b, "the paths part" if offset == 0 else None))
        parted = True
        i, j = i + di, j + dj
    tail = [StepPair(step, None) for step in left[i:]] + [StepPair(None, step)
                                                        for step in right[j:]]
    if tail:
        pairs.append(StepPair(tail[0].left, tail[0].right, "the paths part"))
        pairs.extend(tail[1:])
    return pairs


MEET_WINDOW = 200  # steps ahead on both sides together where two parted paths may meet again


def _meeting(left: list[BranchStep], right: list[BranchStep], i: int, j: int
             ) -> tuple[int, int] | None:
    """Steps to skip on each side until both run the same nodes again, fewest first."""
    for total in range(1, MEET_WINDOW + 1):
        for di in range(total + 1):
            dj = total - di
            if (i + di < len(left) and j + dj < len(right)
                    and left[i + di].nodes == right[j + dj].nodes):
                return di, dj
    return None


def _after(path: tuple[str, ...], ancestor: str | None) -> list[str]:
    return list(path[path.index(ancestor) + 1:] if ancestor in path else path)


def branch_steps(storage: Storage, tree: CheckpointTree, ids: Iterable[str]
                 ) -> dict[str, BranchStep]:
    """Each checkpoint as a step: its writer nodes and their writes (or, for a checkpoint no
    node wrote, the state values that changed); a replay's starting copy is left out."""
    ids = list(dict.fromkeys(ids))
    ensure_details(storage, tree, ids)
    parents = {cid: tree.parent_of(cid) for cid in ids}
    stored = storage.pending_writes_of(
        tree.thread_id, [p for p in parents.values() if p is not None], tree.checkpoint_ns)
    steps = {}
    for cid in ids:
        record, detail = tree.nodes[cid], tree.details.get(cid)
        writers = detail.writers if detail else ()
        changed = detail.changed if detail else ()
        if writers and record.source != "update":
            writes = tuple((w.channel, w.value) for w in stored.get(parents[cid], ())
                           if written_by(w.node, writers) and not is_internal_channel(w.channel))
            steps[cid] = BranchStep(cid, record.step, record.source, step_nodes(writers),
                                    writes)
        elif changed or record.source not in ("fork", "input"):
            # an update_state edit: what it changed, messages as the ones it added or replaced
            steps[cid] = BranchStep(cid, record.step, record.source,
                                    (_SOURCE_LABELS.get(record.source or "", record.source
                                                        or "?"),),
                                    _changed_values(storage, tree, cid, parents[cid], changed))
        # else: a replay's starting copy, or an input checkpoint before __start__ ran: the
        # same state as the parent, no step of the graph
    return steps


def _changed_values(storage: Storage, tree: CheckpointTree, checkpoint_id: str,
                    parent_id: str | None, changed: tuple[str, ...]) -> tuple:
    channels = [channel for channel in changed if not is_internal_channel(channel)]
    if not channels:
        return ()
    values = storage.values(tree.thread_id, checkpoint_id, tree.checkpoint_ns)
    before = (storage.values(tree.thread_id, parent_id, tree.checkpoint_ns)
              if parent_id is not None else {})
    writes = []
    for channel in channels:
        value, old = values.get(channel), before.get(channel)
        if isinstance(value, list) and isinstance(old, list):
            # a list channel (messages above all) shows its new or changed items only
            value = [item for item in value if not any(_same(item, was) for was in old)]
        writes.append((channel, value))
    return tuple(writes)


def _said(value: Any, depth: int = 0) -> Any:
    """A value with every message in it reduced to what it says (see ``ChatMessage.said``);
    below the depth limit a value from a database is compared as it is."""
    if depth >= limits().max_depth:
        return value
    message = as_message(value)
    if message is not None:
        return ("message", message.said())
    if isinstance(value, (list, tuple)):
        return [_said(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {key: _said(item, depth + 1) for key, item in value.items()}
    return value


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # a decoded value whose comparison raises is not the same
        return False
