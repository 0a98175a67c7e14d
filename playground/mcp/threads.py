"""The thread tools: ``list_threads`` (the thread list, a page at a time, and how many match)
and ``get_thread`` (one thread: its status, head, branches and checkpoints).

Both answer what ``playground threads`` and ``playground history`` answer, from the same
engine calls: :func:`~playground.timetravel.thread_list.thread_page` for the list (its rows are
the rows of ``threads --json``) and :func:`~playground.timetravel.thread_list.count_threads`
for ``count=true`` (``threads --count``); :func:`~playground.timetravel.tree.load_tree` and
:func:`~playground.timetravel.tree_layout.tree_layout` for a thread, kept across calls
(:func:`~playground.mcp.reads.thread_tree`). Each checkpoint carries the fields of
``history --json``, and each branch the label History draws at its tip.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from playground.mcp.answers import Answer, Refused
from playground.mcp.arguments import thread_query
from playground.mcp.bounds import (
    DATA_BUDGET,
    clip,
    cursor_for,
    cut,
    json_size,
    jsonable,
    position_of,
    take,
)
from playground.mcp.reads import thread_layout, thread_tree
from playground.timetravel.limits import ReadStopped
from playground.timetravel.signals import TaskSignal
from playground.timetravel.status import FAILED
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import (
    ThreadCount,
    ThreadPage,
    ThreadQuery,
    ThreadRow,
    count_threads,
    group_errors,
    own_metadata,
    thread_page,
)
from playground.timetravel.tree import CheckpointTree, TreeCache, ensure_details, tip_fields
from playground.timetravel.tree_layout import TreeLayout

# An id longer than this (a database may pad one to megabytes) is cut where it is shown.
ID_CAP = 1_024
# Branches a thread's answer lists (the head's, then the newest tips); the count says the rest.
BRANCHES_SHOWN = 20


def thread_row(row: ThreadRow) -> dict[str, Any]:
    """A thread list row: ``threads --json``'s, its id and metadata cut when too large."""
    found = row.as_json()
    found["thread_id"] = cut(found["thread_id"], ID_CAP)
    found["reason"] = cut(found["reason"])
    found["metadata"] = cut(jsonable(found["metadata"]))
    return found


def list_threads(storage: Storage, *, status: str | None = None, since: str | None = None,
                 until: str | None = None, metadata: dict | list | None = None,
                 text: str | None = None, limit: int, cursor: str | None = None,
                 count: bool = False, group_by: str | None = None,
                 trees: TreeCache | None = None) -> Answer:
    """The newest threads of the place (after ``cursor``), with the thread list's filters,
    and how many match in all; with ``count``, only how many match (:func:`count_answer`);
    with ``group_by="error"``, the failed threads grouped by error (:func:`groups_answer`).
    (``trees`` is taken as every tool takes it; a list reads no thread's tree.)

    Raises:
        ValueError: a filter or cursor the thread list refuses (one sentence).
        CheckpointDbError: the place could not be read.
    """
    query = thread_query(status, since, until, metadata, text, limit, cursor)
    if group_by is not None:
        return groups_answer(storage, query, group_by, count)
    if count:
        return count_answer(storage, query)
    page = thread_page(storage, query)
    rows, more = take((thread_row(row) for row in page.rows), limit, DATA_BUDGET - 1_024)
    if more:
        # The page did not fit the answer: read it again as long as the rows that fit, so its
        # cursor goes on right after the last row shown.
        page = thread_page(storage, replace(query, limit=len(rows)))
        rows = [thread_row(row) for row in page.rows]
    matching = page_count(storage, query, page, len(rows))
    # The facts first, the rows last: what the summary says is all here too.
    data = {"place": storage.label, "writer": storage.writer, "shown": len(rows),
            **matching.as_json(), "next_cursor": page.next_cursor, "scanned": page.scanned,
            "complete": page.complete, "cut_short": page.cut, "threads": rows}
    said = f"{len(rows)} shown of {matching.words(query.filtered)} in {clip(storage.label)}"
    said += " (newest first"
    said += f"; more with cursor={page.next_cursor})" if page.next_cursor else "; no more)"
    if matching.cut:
        said += f"; counting stopped: {clip(matching.cut, 200)}"
    elif not matching.exact:
        said += "; count=true counts them all"
    if page.cut:
        said += f"; the read stopped early: {clip(page.cut, 200)}"
    return Answer(said, data)


@dataclass(frozen=True)
class Matching:
    """How many threads match a list's filters, in all (not only the page shown).

    Attributes:
        count: the count when ``exact``, else the least it can be.
        exact: whether ``count`` is every thread that matches.
        counted_by: ``database`` (counted in its own query), ``walk`` (threads read one by
            one), ``page`` (the page is the whole list), or None (not counted: ``count`` is
            what the page shows).
        cut: why counting stopped before the end (the read's deadline), or None.
    """

    count: int
    exact: bool
    counted_by: str | None = None
    cut: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The facts an answer carries: ``matching`` when exact, else ``matching_at_least``
        (one of them is null, so a lower bound is never read as a count)."""
        return {"matching": self.count if self.exact else None,
                "matching_at_least": None if self.exact else self.count,
                "counted_by": self.counted_by, "count_cut_short": self.cut}

    def words(self, filtered: bool) -> str:
        """What a page is shown of: ``400 that match``, ``at least 20 that match``, ``8
        threads`` (no filter)."""
        said = f"{self.count:,}" if self.exact else f"at least {self.count:,}"
        if filtered:
            return f"{said} that match"
        return f"{said} thread{'s' if self.count != 1 or not self.exact else ''}"

    def sentence(self, filtered: bool) -> str:
        """A count by itself: ``400 threads match``, ``At least 20 threads match``, ``8
        threads`` (no filter)."""
        said = f"{self.count:,}" if self.exact else f"At least {self.count:,}"
        said += f" thread{'s' if self.count != 1 or not self.exact else ''}"
        if filtered:
            said += " match" if self.count != 1 or not self.exact else " matches"
        return said


def page_count(storage: Storage, query: ThreadQuery, page: ThreadPage, shown: int) -> Matching:
    """How many threads match ``query`` in all, for a page's answer: counted by the database
    where it counts them in its own queries (:meth:`Storage.counted`: statuses, times, metadata),
    never by reading threads one by one (``count=true`` does that). A count the read's deadline
    stops, or one the database cannot make, is "at least" what the page shows (exact when the
    page is the whole list)."""
    if not query.match:  # text in an error or a question: only read threads can tell
        try:
            found = storage.counted(replace(query, after=None))
        except ReadStopped as exc:  # the page took the deadline: say what is known
            return Matching(shown, False, cut=str(exc))
        if found is not None:
            return Matching(max(found, shown), True, "database")
    if query.after is None and page.next_cursor is None and page.cut is None:
        return Matching(shown, True, "page")
    return Matching(shown, False)


def count_answer(storage: Storage, query: ThreadQuery) -> Answer:
    """How many threads match ``query``, with no page: the engine's count
    (:func:`~playground.timetravel.thread_list.count_threads`, as ``threads --count``), by the
    database where it can, else by reading the threads within the read's deadline; a count the
    deadline stops says where: "at least N".

    Raises:
        Refused: a cursor (a count is of the whole list).
        CheckpointDbError: the place could not be read, or the deadline came before one thread
            was counted.
    """
    if query.after:
        raise Refused("count=true counts the whole list: give it no cursor")
    read = {"counted": 0, "scanned": 0}

    def progress(counted: int, scanned: int) -> None:
        read.update(counted=counted, scanned=scanned)

    try:
        found = count_threads(storage, query, progress)
    except ReadStopped as exc:
        # The deadline came between two pages (count_threads stops only inside a page): the
        # pages counted so far are the answer.
        if not read["scanned"]:
            raise
        found = ThreadCount(read["counted"], read["scanned"], str(exc))
    matching = Matching(found.count, found.cut is None,
                        "database" if found.by_query else "walk", found.cut)
    data = {"place": storage.label, "writer": storage.writer, **matching.as_json(),
            "scanned": found.scanned}
    said = f"{matching.sentence(query.filtered)} in {clip(storage.label)}"
    if found.cut:
        said += (f": the count stopped after reading {found.scanned:,} threads "
                 f"({clip(found.cut, 200)})")
    else:
        said += (" (counted by the database)" if found.by_query
                 else f" (read {found.scanned:,} threads)")
    return Answer(said, data)


def group_json(group) -> dict[str, Any]:
    """An error group (:class:`~playground.timetravel.error_groups.ErrorGroup`), its texts
    cut when too large."""
    found = group.as_json()
    found["error"] = cut(found["error"])
    found["nodes"] = cut(jsonable(found["nodes"]))
    found["example"] = {"thread_id": cut(group.example_thread, ID_CAP),
                        "error": cut(group.example_error)}
    return found


def groups_answer(storage: Storage, query: ThreadQuery, group_by: str, count: bool) -> Answer:
    """Every failed thread that matches ``query``, grouped by error (the engine's
    :func:`~playground.timetravel.thread_list.group_errors`, as ``threads --group-by error``):
    the largest groups first, up to ``query.limit`` and the answer's budget; a walk the read's
    deadline stopped says how many failed threads it grouped.

    Raises:
        Refused: a grouping other than error, another status, a cursor or ``count``.
        CheckpointDbError: the place could not be read.
    """
    if group_by != "error":
        raise Refused(f"group_by takes \"error\", not {clip(str(group_by), 40)!r}")
    if query.status not in (None, FAILED):
        raise Refused("group_by=\"error\" groups the failed threads: give status failed or "
                      f"none, not {query.status}")
    if query.after or count:
        raise Refused("group_by=\"error\" groups every failed thread in one answer: give it "
                      "no cursor and no count")
    found = group_errors(storage, query)
    groups, more = take((group_json(group) for group in found.groups), query.limit,
                        DATA_BUDGET - 1_024)
    data = {"place": storage.label, "writer": storage.writer, "group_by": "error",
            "failed_read": found.failed, "groups_total": len(found.groups),
            "shown": len(groups), "complete": found.complete, "cut_short": found.cut,
            "groups": groups}
    said = (f"{found.failed:,} failed thread{'s' if found.failed != 1 else ''} in "
            f"{len(found.groups):,} group{'s' if len(found.groups) != 1 else ''} of errors in "
            f"{clip(storage.label)}; {len(groups)} shown, the largest first")
    if more:
        said += f" (the other {len(found.groups) - len(groups):,} are smaller)"
    if found.cut:
        said += (f"; the read stopped early, so these are the groups of the {found.failed:,} "
                 f"read: {clip(found.cut, 200)}")
    return Answer(said, data)


def signal_json(signal: TaskSignal) -> dict[str, Any]:
    """A question, answer or error a task stored, as ``history --json`` gives it (its value
    cut when too large)."""
    return {"kind": signal.kind, "node": signal.node, "text": signal.text,
            "value": cut(jsonable(signal.value)), "interrupt_id": signal.interrupt_id}


def checkpoint_entry(tree: CheckpointTree, layout: TreeLayout, checkpoint_id: str,
                     metadata: dict, forks: set[str], branch: set[str]) -> dict[str, Any]:
    """One checkpoint of a thread: the fields of ``history --json``, the node that wrote it and
    its kind as History draws them (``a node ran``, ``paused``, ``failed``...). Its details must
    be in the tree (:func:`~playground.timetravel.tree.ensure_details`)."""
    record = tree.nodes[checkpoint_id]
    detail = tree.details[checkpoint_id]
    parent = tree.parent_of(checkpoint_id)
    row = layout.row(checkpoint_id)
    return {
        "checkpoint_id": cut(checkpoint_id, ID_CAP),
        "ordinal": tree.ordinal(checkpoint_id),
        "parent_checkpoint_id": record.parent_id,
        "parent_ordinal": tree.ordinal(parent) if parent is not None else None,
        "step": record.step,
        "source": record.source,
        "node": row.node,
        "kind": row.kind,
        "next": list(detail.next),
        "writers": list(detail.writers),
        "changed": list(detail.changed),
        "created_at": detail.created_at,
        "metadata": cut(jsonable(metadata)),
        "bytes": record.stored_bytes,
        "blob_bytes": record.blob_bytes,
        "paused": checkpoint_id in tree.paused,
        **tip_fields(tree, checkpoint_id),
        "fork_point": checkpoint_id in forks,
        "on_current_branch": checkpoint_id in branch,
        "signals": [signal_json(signal) for signal in tree.signals.get(checkpoint_id, ())],
        "problem": detail.problem,
        "broken_link": tree.broken.get(checkpoint_id),
    }


def branches_of(tree: CheckpointTree, layout: TreeLayout) -> list[dict[str, Any]]:
    """The thread's branches, the head's first and then the newest tips, with the label
    History shows at each tip (``head · paused: approve asks "..."``, ``replay of #3``)."""
    sizes = Counter(row.branch for row in layout.rows)
    order = sorted(range(len(layout.branches)),
                   key=lambda index: (layout.branches[index].tip != tree.head,
                                      -tree.ordinal(layout.branches[index].tip)))
    found = []
    for index in order[:BRANCHES_SHOWN]:
        branch = layout.branches[index]
        found.append({
            "label": branch.label, "name": branch.origin,
            "tip": cut(branch.tip, ID_CAP), "tip_ordinal": tree.ordinal(branch.tip),
            "first_ordinal": tree.ordinal(branch.first),
            "fork_point_ordinal": (tree.ordinal(branch.fork_point)
                                   if branch.fork_point is not None else None),
            "checkpoints": sizes[index],
        })
    return found


def thread_status(storage: Storage, tree: CheckpointTree) -> dict[str, Any]:
    """The thread's status as the thread list says it (``failed``, ``paused``, ``finished``,
    an Agent Server's ``running``), its reason, and the head's error or question by itself."""
    ((_, line),) = list(storage.thread_lines([tree.thread_id]))
    head_signals = tree.signals.get(tree.head, ())
    if line is None:  # deleted since the tree was read
        status, reason, said, metadata, summary = "unknown", "", "unknown", {}, None
    else:
        summary, signals, first_metadata = line
        head_signals = signals or head_signals
        state = storage.thread_status(summary, signals)
        status, reason, said = state.kind, state.reason, state.said
        metadata = own_metadata(first_metadata)
    error = next((s for s in head_signals if s.kind == "error"), None)
    question = next((s for s in head_signals if s.kind == "interrupt"), None)
    return {
        "status": status, "status_said": cut(said), "reason": cut(reason),
        "error": {"node": error.node, "text": error.text} if error else None,
        "question": ({"node": question.node, "text": question.text,
                      "interrupt_id": question.interrupt_id} if question else None),
        "stored_bytes": summary.stored_bytes if summary else None,
        "newest_at": summary.newest_at if summary else None,
        "metadata": cut(jsonable(metadata)),
    }


def get_thread(storage: Storage, *, thread_id: str, limit: int, cursor: str | None = None,
               trees: TreeCache | None = None) -> Answer:
    """One thread: its status and reason, head, branches with their labels, and its
    checkpoints newest first, a page at a time.

    Raises:
        UnknownThread: no such thread.
        ValueError: a cursor this tool did not give.
    """
    # The cursor names the #N the next page starts at (newest first): checkpoints a run adds
    # meanwhile get higher numbers, so a page never repeats or skips one.
    after = position_of(cursor, "get_thread")
    tree = thread_tree(storage, thread_id, trees)
    layout = thread_layout(storage, tree, trees)
    ensure_details(storage, tree, [tree.head])
    head = tree.details.get(tree.head)
    found = {
        "thread_id": cut(thread_id, ID_CAP),
        **thread_status(storage, tree),
        "head": {"checkpoint_id": cut(tree.head, ID_CAP), "ordinal": tree.ordinal(tree.head),
                 "next": list(head.next) if head else []},
        "checkpoints_total": len(tree),
        "branches_total": len(layout.branches),
        "branches": branches_of(tree, layout),
    }
    newest_first = list(reversed(tree.nodes))
    if cursor and not 1 <= after <= len(tree):
        raise ValueError(f"the cursor starts at #{after}, not one of the thread's {len(tree)} "
                         "checkpoints (some were deleted since?): start again without a cursor")
    start = len(tree) - after if cursor else 0
    wanted = newest_first[start:start + limit]
    ensure_details(storage, tree, wanted)
    metadata = storage.checkpoint_metadata(thread_id, "", wanted)
    forks, branch = set(tree.forks), set(tree.current_branch)
    entries = (checkpoint_entry(tree, layout, cid, metadata.get(cid, {}), forks, branch)
               for cid in wanted)
    room = DATA_BUDGET - json_size(found) - 256
    page, _ = take(entries, limit, room)
    end = start + len(page)
    found["checkpoints"] = page
    found["next_cursor"] = (cursor_for("get_thread", len(tree) - end)
                            if end < len(newest_first) else None)
    shown = (f"#{tree.ordinal(wanted[0])} to #{tree.ordinal(wanted[len(page) - 1])}"
             if page else "none")
    said = (f"thread {clip(thread_id)}: {found['status']}"
            + (f" ({clip(str(found['reason']), 200)})" if found["reason"] else "")
            + f"; {len(tree)} checkpoints, {len(layout.branches)} branch"
            + ("es" if len(layout.branches) != 1 else "")
            + f", head #{tree.ordinal(tree.head)}; checkpoints shown newest first: {shown}"
            + (f"; more with cursor={found['next_cursor']}" if found["next_cursor"] else ""))
    return Answer(said, found)
