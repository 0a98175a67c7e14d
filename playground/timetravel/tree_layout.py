"""A thread's checkpoint tree laid out as a git graph: a row per checkpoint, a lane per branch.

Rows follow creation order (a checkpoint's ``#N``), so the picture reads like ``git log
--graph`` and a long thread is drawn whole, never folded. Each branch is the run of
checkpoints from where it leaves an older branch (its fork point) along each checkpoint's oldest
child to a leaf (the first-child rule: the original run goes on through every fork point, and a
later child starts a branch of its own); it takes the lowest lane that is free over its rows, so
a thread with a thousand short replays still needs only a few lanes. The original run is always
lane 0, and the head is a mark on its tip's label, so nothing drawn moves when the head does.

Every branch tip carries a label a person reads (``head``, ``paused: approve asks "..."``,
``failed in tools``, ``fork of #3 (edited)``, ``replay of #3``), built from what the tree already
holds: sources, signals and the leaves' decoded details. Which node wrote each checkpoint comes
from the writes' owners (task paths, no values decoded), in one pass for the whole thread.

A finished tip says ``finished`` unless the caller hands in an :data:`Ending`: the app's own
reading of a checkpoint's values that says how its last step ended (the ticket agent's
``412 refused`` or ``written v3``). The engine knows no app: it only calls what it is given, on
the values the safe decoder gave, and keeps what comes back as short, plain text.

Plain data only: :mod:`playground.ui.components.history_tree` turns a layout into a chart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from playground.timetravel.bulk import paused_gc
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.limits import clip
from playground.timetravel.records import UNKNOWN_NODE, checkpoint_name
from playground.timetravel.runs import RERUN
from playground.timetravel.signals import SIGNAL_CHANNELS
from playground.timetravel.status import FAILED as FAILED_STATUS
from playground.timetravel.status import FINISHED, status_at
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, TreeCache, ensure_details

# What a checkpoint is, as the picture colours it (the legend names each).
STEP, INPUT, EDIT, REPLAY, PAUSED, FAILED, BROKEN = (
    "a node ran", "new input", "edited (update_state)", "replay or fork start", "paused",
    "failed", "broken parent link")
KINDS = (STEP, INPUT, EDIT, REPLAY, PAUSED, FAILED, BROKEN)
ENDING_CHARS = 32  # of what an Ending says, in a tip's label
_ROW_BYTES = 400  # a laid-out row in memory, for the tree cache's budget
_SIGNALS = frozenset(SIGNAL_CHANNELS)

# How a step ended, in words (``412 refused``), read from a checkpoint's decoded values; None
# when the values do not say. An app offers one (``App.step_ending``); it reads fields and
# nothing else, for the values come from a database.
Ending = Callable[[Mapping[str, Any]], str | None]


@dataclass(frozen=True, slots=True)
class Row:
    """One checkpoint of the picture.

    Attributes:
        checkpoint_id: the checkpoint.
        ordinal: its ``#N`` (creation order, 1 the oldest): the row it is drawn on.
        lane: the lane of its branch (0 is the head's).
        parent_ordinal, parent_lane: where its line comes from; None for a root.
        node: what it is, named as every surface names it
            (:func:`~playground.timetravel.records.checkpoint_name`: ``loop · plan``,
            ``input``, ``loop · __start__``, ``update · plan``, ``fork``).
        kind: one of :data:`KINDS`.
        branch: the index of its branch in :attr:`TreeLayout.branches`.
        tip: the label of the branch it ends, or "" when it ends none.
    """

    checkpoint_id: str
    ordinal: int
    lane: int
    parent_ordinal: int | None
    parent_lane: int | None
    node: str
    kind: str
    branch: int
    tip: str = ""


@dataclass(frozen=True)
class Branch:
    """A run of checkpoints from where it leaves an older branch to its tip.

    Attributes:
        tip: the branch's newest checkpoint (a leaf).
        first: its oldest checkpoint.
        fork_point: the checkpoint it leaves (None for a branch that starts at a root).
        lane: where it is drawn.
        label: what it is, in words: whether it holds the head, where its tip stands, and
            its name.
        origin: its name alone, how it was made and where it starts (:func:`branch_origin`):
            it never changes once the branch exists.
    """

    tip: str
    first: str
    fork_point: str | None
    lane: int
    label: str
    origin: str = ""


@dataclass(frozen=True)
class TreeLayout:
    """The whole picture: rows oldest first, branches head's first, and the lanes used."""

    thread_id: str
    rows: tuple[Row, ...]
    branches: tuple[Branch, ...]
    lanes: int

    @property
    def kinds(self) -> frozenset[str]:
        """The kinds of checkpoint the thread has (of :data:`KINDS`)."""
        found = self.__dict__.get("_kinds")
        if found is None:
            found = frozenset(row.kind for row in self.rows)
            object.__setattr__(self, "_kinds", found)
        return found

    def branch_of(self, row: Row) -> Branch:
        """The branch a row is drawn on."""
        return self.branches[row.branch]

    def row(self, checkpoint_id: str) -> Row:
        """The row of a checkpoint (``rows`` are in ordinal order)."""
        return self.rows[self._ordinals()[checkpoint_id] - 1]

    def _ordinals(self) -> dict[str, int]:
        found = self.__dict__.get("_ordinal_index")
        if found is None:
            found = {row.checkpoint_id: row.ordinal for row in self.rows}
            object.__setattr__(self, "_ordinal_index", found)
        return found


def along_branch(layout: TreeLayout, tree: CheckpointTree, checkpoint_id: str,
                 newer: bool, toward: str | None = None) -> str | None:
    """The next checkpoint along a branch: its parent (older), or (newer) its child on the way
    to ``toward`` (the tip a person walked down from: a walk back up returns to the branch it
    came from), else its child on the branch it is drawn on, else its oldest child; None at
    either end."""
    if not newer:
        return tree.parent_of(checkpoint_id)
    children = tree.children.get(checkpoint_id, ())
    if toward is not None and toward in tree.nodes and toward != checkpoint_id:
        path = tree.path_to(toward)
        if checkpoint_id in path:
            return path[path.index(checkpoint_id) + 1]
    branch = layout.row(checkpoint_id).branch
    same = next((kid for kid in children if layout.row(kid).branch == branch), None)
    return same or (children[0] if children else None)


def kept_layout(cache: TreeCache, storage: Storage, tree: CheckpointTree,
                ending: Ending | None = None) -> TreeLayout:
    """:func:`tree_layout`, kept in the tree cache while the thread is unchanged."""
    # The ending is part of the key: one page's tips in the app's words, another's plain.
    return cache.derived(storage, tree, ("layout", ending),
                         lambda: tree_layout(storage, tree, ending),
                         lambda found: len(found.rows) * _ROW_BYTES)


def tree_layout(storage: Storage | None, tree: CheckpointTree,
                ending: Ending | None = None) -> TreeLayout:
    """Lay ``tree`` out as a git graph.

    Args:
        storage: where the tree was read; each checkpoint's writer is read from it (the
            writes' owners, no values). Without it, rows name sources only.
        tree: the thread's tree.
        ending: how a step ended, in words, from a checkpoint's values: said instead of
            ``finished`` at the tip of a branch a node ran to the end (its values read from
            ``storage``). None labels every finished tip ``finished``.
    """
    with paused_gc():  # a row per checkpoint, none in a cycle
        return _layout(storage, tree, ending)


def _layout(storage: Storage | None, tree: CheckpointTree, ending: Ending | None
            ) -> TreeLayout:
    ordinals = tree.ordinals
    branches = _branches(tree)
    lanes = _assign_lanes(tree, branches, ordinals)
    lane_of: dict[str, int] = {}
    branch_of: dict[str, int] = {}
    for index, ((_tip, members, _fork), lane) in enumerate(zip(branches, lanes, strict=True)):
        for cid in members:
            lane_of[cid] = lane
            branch_of[cid] = index
    writers = _writers(storage, tree) if storage is not None else {}
    endings = (_endings(storage, tree, [tip for tip, _members, _fork in branches], ending)
               if storage is not None and ending is not None else {})
    labels = {tip: branch_label(tree, members, fork, endings.get(tip))
              for tip, members, fork in branches}
    # a stopped node's cancellation is no failure: its tip is drawn as a pause (it waits for
    # Continue), its label says stopped
    errors = {cid for cid, signals in tree.signals.items()
              if status_at((), signals).kind == FAILED_STATUS}
    rows = []
    for cid, record in tree.nodes.items():
        parent = tree.parent_of(cid)
        rows.append(Row(
            cid, ordinals[cid], lane_of[cid],
            None if parent is None else ordinals[parent],
            None if parent is None else lane_of[parent],
            _node_of(record.source, writers.get(cid) or _edited_as(tree, cid)),
            _kind(tree, cid, record.source, cid in errors),
            branch_of[cid],
            labels.get(cid, ""),
        ))
    found = tuple(Branch(tip, members[-1], fork, lane, labels[tip],
                         branch_origin(tree, members[-1], fork))
                  for (tip, members, fork), lane in zip(branches, lanes, strict=True))
    return TreeLayout(tree.thread_id, tuple(rows), found, max(lanes, default=0) + 1)


def _branches(tree: CheckpointTree) -> list[tuple[str, list[str], str | None]]:
    """(tip, members newest first, fork point) of each branch, by the first-child rule: a
    branch runs from its first checkpoint along each checkpoint's oldest child to a leaf, and
    every younger child starts a branch of its own, which leaves its parent (the fork point).
    A new branch is always a younger child, so it never changes another branch, and where the
    head is changes none either. Ordered by their first checkpoint, oldest first: the original
    run first (it is drawn on lane 0)."""
    found = []
    starts: list[tuple[str, str | None]] = [(root, None) for root in tree.roots]
    while starts:
        first, fork = starts.pop()
        members, current = [first], first
        while kids := tree.children.get(current):
            starts.extend((kid, current) for kid in kids[1:])
            current = kids[0]
            members.append(current)
        found.append((current, members[::-1], fork))
    ordinals = tree.ordinals
    found.sort(key=lambda branch: ordinals[branch[1][-1]])
    return found


def _assign_lanes(tree: CheckpointTree, branches: list, ordinals: Mapping[str, int]
                  ) -> list[int]:
    """The lowest lane free over each branch's rows (from its fork point to its tip); the
    original run keeps lane 0 over the whole thread, so no branch added later, and no move of
    the head, moves a branch drawn before."""
    busy: list[list[tuple[int, int]]] = []  # per lane, the row spans taken
    lanes = []
    for index, (tip, members, fork) in enumerate(branches):
        low = ordinals[fork] if fork is not None else ordinals[members[-1]]
        span = (low, ordinals[tip])
        if index == 0:
            busy.append([(1, len(tree))])
            lanes.append(0)
            continue
        for lane in range(1, len(busy) + 1):
            if lane == len(busy):
                busy.append([])
            if all(span[1] < start or span[0] > end for start, end in busy[lane]):
                busy[lane].append(span)
                lanes.append(lane)
                break
    return lanes


def _writers(storage: Storage, tree: CheckpointTree) -> dict[str, tuple[str, ...]]:
    """Who wrote each checkpoint a node ran to: the owners of the writes under its parent."""
    parents = {}
    for cid, record in tree.nodes.items():
        parent = tree.parent_of(cid)
        if parent is not None and record.source == "loop":
            parents.setdefault(parent, []).append(cid)
    if not parents:
        return {}
    owners: dict[str, dict[str, None]] = defaultdict(dict)
    nameless: set[str] = set()
    for parent, node, _task, channel in storage.write_owners(tree.thread_id, list(parents),
                                                             tree.checkpoint_ns):
        if channel in _SIGNALS:
            continue
        if node == UNKNOWN_NODE:
            nameless.add(parent)
        else:
            owners[parent][node] = None
    found: dict[str, tuple[str, ...]] = {}
    unnamed = []
    for parent, children in parents.items():
        for child in children:
            # A parent with several loop children (two runs from one checkpoint) holds both
            # runs' writes: each child's own writers are in its blob.
            if len(children) == 1 and parent not in nameless and owners.get(parent):
                found[child] = tuple(owners[parent])
            else:
                unnamed.append(child)
    if unnamed:
        ensure_details(storage, tree, unnamed)
        for child in unnamed:
            detail = tree.details.get(child)
            if detail is not None and detail.writers:
                found[child] = tuple(detail.writers)
    return found


def _endings(storage: Storage, tree: CheckpointTree, tips: list[str], ending: Ending
             ) -> dict[str, str]:
    """What ``ending`` says of each finished tip a node wrote (a failed, asking or paused tip
    says so itself; an edit's values hold what the step before it left, not how a step
    ended). A tip whose values cannot be read says ``finished``."""
    found = {}
    for tip in tips:
        stopped = any(signal.kind in ("error", "interrupt") for signal in tree.signals.get(tip, ()))
        if stopped or tip in tree.paused or tree.nodes[tip].source != "loop":
            continue
        try:
            values = storage.values(tree.thread_id, tip, tree.checkpoint_ns)
        except CheckpointDbError:  # unreadable: the inspector says why
            continue
        said = ending(values)
        if isinstance(said, str) and said.strip():
            # one short line whatever the values held: the label is a row of the picture
            found[tip] = clip(" ".join(said.split()), ENDING_CHARS)
    return found


def _edited_as(tree: CheckpointTree, cid: str) -> tuple[str, ...]:
    """The node an ``update_state`` wrote as, where the tree has its details already (no
    blob is read for a name alone)."""
    detail = tree.details.get(cid)
    if detail is None or tree.nodes[cid].source != "update":
        return ()
    return tuple(detail.writers)


def _node_of(source: str | None, writers: tuple[str, ...] | None) -> str:
    return checkpoint_name(source, writers or ())


def _kind(tree: CheckpointTree, cid: str, source: str | None, failed: bool) -> str:
    if cid in tree.broken:
        return BROKEN
    if failed:
        return FAILED
    if cid in tree.paused or cid in tree.stopped:
        return PAUSED
    if source == "update":
        return EDIT
    if source == "fork":
        return REPLAY
    if source == "input":
        return INPUT
    return STEP


def branch_label(tree: CheckpointTree, members: list[str], fork_point: str | None,
                 ending: str | None = None) -> str:
    """A branch in words: which holds the head, where its tip stands, and what it is
    (``head · paused: approve asks "..." · replay of #3``). The last part, the branch's name
    (:func:`branch_origin`), never changes once the branch exists.

    Args:
        tree: the thread's tree.
        members: the branch's checkpoints, newest (its tip) first.
        fork_point: the checkpoint the branch leaves, or None for one that starts at a root.
        ending: how the tip's step ended, in words (``412 refused``), said instead of
            ``finished`` when the tip neither failed nor waits.
    """
    tip = members[0]
    parts = ["head"] if tip == tree.head else []
    status = tree.tip_status(tip)
    parts.append(ending if status.kind == FINISHED and ending else status.short)
    parts.append(branch_origin(tree, members[-1], fork_point))
    return " · ".join(parts)


def branch_origin(tree: CheckpointTree, first: str, fork_point: str | None) -> str:
    """A branch's name: how it was made and where it starts (``original run``, ``fork of #8
    (edited)``, ``replay of #4``, ``re-run of #9 on current code``). It is read from the
    branch's own first checkpoint and its fork point, so no branch added later, and no move of
    the head, changes it."""
    if fork_point is None:
        if first in tree.broken:
            return "after a broken link"
        return "original run" if first == tree.roots[0] else "another run"
    return _made(tree, first, fork_point)


def _made(tree: CheckpointTree, cid: str, parent: str) -> str:
    at = tree.ordinal(parent)
    record = tree.nodes[cid]
    if record.action == RERUN:  # the playground's re-run tags every checkpoint it writes
        return f"re-run of #{at} on current code"
    if record.source == "update":
        return f"fork of #{at} (edited)"
    if record.source == "fork":
        return f"replay of #{at}"
    if record.source == "input":
        return f"new input from #{at}"
    return f"second run from #{at}"
