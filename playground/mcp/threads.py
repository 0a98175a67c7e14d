"""The thread tools: ``list_threads`` (the thread list, a page at a time) and ``get_thread``
(one thread: its status, head, branches and checkpoints).

Both answer what ``playground threads`` and ``playground history`` answer, from the same
engine calls: :func:`~playground.timetravel.thread_list.thread_page` for the list (its rows are
the rows of ``threads --json``); :func:`~playground.timetravel.tree.load_tree` and
:func:`~playground.timetravel.tree_layout.tree_layout` for a thread, kept across calls
(:func:`~playground.mcp.reads.thread_tree`). Each checkpoint carries the fields of
``history --json``, and each branch the label History draws at its tip.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from playground.mcp.answers import Answer
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
from playground.timetravel.signals import TaskSignal
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import ThreadRow, own_metadata, thread_page
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
                 trees: TreeCache | None = None) -> Answer:
    """The newest threads of the place (after ``cursor``), with the thread list's filters
    (``trees`` is taken as every tool takes it; a list reads no thread's tree).

    Raises:
        ValueError: a filter or cursor the thread list refuses (one sentence).
        CheckpointDbError: the place could not be read.
    """
    query = thread_query(status, since, until, metadata, text, limit, cursor)
    page = thread_page(storage, query)
    rows, more = take((thread_row(row) for row in page.rows), limit, DATA_BUDGET - 1_024)
    if more:
        # The page did not fit the answer: read it again as long as the rows that fit, so its
        # cursor goes on right after the last row shown.
        page = thread_page(storage, replace(query, limit=len(rows)))
        rows = [thread_row(row) for row in page.rows]
    data = {"place": storage.label, "writer": storage.writer, "threads": rows,
            "next_cursor": page.next_cursor, "scanned": page.scanned, "cut_short": page.cut}
    said = f"{len(rows)} thread{'s' if len(rows) != 1 else ''}"
    said += " matching" if query.filtered else ""
    said += f" in {clip(storage.label)} (newest first"
    said += f"; more with cursor={page.next_cursor})" if page.next_cursor else "; no more)"
    if page.cut:
        said += f"; the read stopped early: {clip(page.cut, 200)}"
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
