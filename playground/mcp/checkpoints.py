"""The checkpoint tools: ``get_checkpoint`` (one checkpoint whole: values, next nodes, metadata,
pending writes, sizes) and ``diff_checkpoints`` (what changed between two).

Values are the engine's (:meth:`~playground.timetravel.storage.Storage.state`): what LangGraph's
``get_state`` gives, a DeltaChannel's value rebuilt from its snapshot and the writes since, and
each rebuild said in words, as ``playground chat`` and ``playground diff`` read them. The
difference is the engine's :func:`~playground.timetravel.diff.diff_states`, line for line what
``playground diff`` prints.
"""

from __future__ import annotations

from typing import Any

from playground.mcp.answers import Answer
from playground.mcp.arguments import checkpoint_in
from playground.mcp.bounds import DATA_BUDGET, clip, cut, json_size, jsonable, take
from playground.mcp.reads import thread_tree
from playground.mcp.threads import ID_CAP, signal_json
from playground.timetravel.diff import diff_states
from playground.timetravel.errors import UnreadableCheckpoint
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree, TreeCache, ensure_details

# Pending writes one answer lists (a fan-out may store thousands); the count says the rest.
WRITES_SHOWN = 100


def named(tree: CheckpointTree, checkpoint_id: str | None) -> dict[str, Any] | None:
    """A checkpoint as an answer names it: its id and its ``#N``."""
    if checkpoint_id is None:
        return None
    return {"checkpoint_id": cut(checkpoint_id, ID_CAP), "ordinal": tree.ordinal(checkpoint_id)}


def get_checkpoint(storage: Storage, *, thread_id: str, checkpoint: str | None = None,
                   trees: TreeCache | None = None) -> Answer:
    """One checkpoint of a thread (the head by default): its state values as LangGraph would
    load them, the nodes due next, its metadata, the writes its tasks stored (questions,
    answers and errors among them) and what it stores in bytes.

    Raises:
        UnknownThread: no such thread.
        ValueError: no checkpoint, or several, match ``checkpoint``.
    """
    tree = thread_tree(storage, thread_id, trees)
    at = checkpoint_in(tree, checkpoint)
    ensure_details(storage, tree, [at])
    detail = tree.details[at]
    record = tree.nodes[at]
    try:
        state = storage.state(thread_id, at)
        values: dict[str, Any] | None = {key: cut(jsonable(value))
                                         for key, value in state.values.items()}
        rebuilt = [how.sentence(lambda cid: tree.ordinals.get(cid)) for how in state.rebuilt]
        problem = detail.problem
    except UnreadableCheckpoint as exc:  # the rest of the checkpoint still reads
        values, rebuilt, problem = None, [], str(exc)
    metadata = storage.checkpoint_metadata(thread_id, "", [at]).get(at, {})
    writes = storage.pending_writes(thread_id, at)
    shown = [{"node": w.node, "channel": w.channel, "value": cut(jsonable(w.value)),
              "bytes": w.size, "task_id": w.task_id} for w in writes[:WRITES_SHOWN]]
    found: dict[str, Any] = {
        "thread_id": cut(thread_id, ID_CAP),
        **named(tree, at),
        "parent": named(tree, tree.parent_of(at)),
        "is_head": at == tree.head,
        "on_current_branch": at in set(tree.current_branch),
        "step": record.step, "source": record.source,
        "created_at": detail.created_at,
        "next": list(detail.next), "writers": list(detail.writers),
        "changed": list(detail.changed),
        "signals": [signal_json(signal) for signal in tree.signals.get(at, ())],
        "metadata": cut(jsonable(metadata)),
        "size": {"bytes": record.stored_bytes, "blob_bytes": record.blob_bytes,
                 "metadata_bytes": record.metadata_bytes,
                 "writes_bytes": record.writes_bytes},
        "problem": problem,
        "rebuilt": rebuilt,
        "pending_writes_total": len(writes),
    }
    # The values and writes take what the rest leaves of the answer; past it, cut.
    room = DATA_BUDGET - json_size(found) - 512
    found["pending_writes"], _ = take(shown, WRITES_SHOWN, max(room // 3, 1_024))
    found["values"] = values
    said = (f"checkpoint #{tree.ordinal(at)} of thread {clip(thread_id)}"
            + (" (the head)" if at == tree.head else "")
            + f": {record.source or '?'} step {record.step}"
            + (f", next {', '.join(detail.next)}" if detail.next else ", nothing left to run")
            + (f"; {len(values)} state key{'s' if len(values) != 1 else ''}"
               if values is not None else
               f"; its values cannot be read: {clip(problem or '', 200)}")
            + f"; {len(writes)} pending write{'s' if len(writes) != 1 else ''}")
    for signal in tree.signals.get(at, ()):
        said += f"; {clip(signal.line, 200)}"
    return Answer(said, found)


def diff_checkpoints(storage: Storage, *, thread_id: str, from_checkpoint: str | None = None,
                     to_checkpoint: str | None = None, trees: TreeCache | None = None
                     ) -> Answer:
    """What changed from one checkpoint's values to another's (by default from the head's
    parent to the head; from ``to_checkpoint``'s parent when only it is given).

    Raises:
        UnknownThread: no such thread.
        ValueError: a checkpoint that no (or more than one) checkpoint matches, or a root
            checkpoint with no parent to compare from.
    """
    tree = thread_tree(storage, thread_id, trees)
    to = checkpoint_in(tree, to_checkpoint)
    if from_checkpoint is None or not from_checkpoint.strip():
        start = tree.parent_of(to)
        if start is None:
            raise ValueError(f"checkpoint #{tree.ordinal(to)} is where the thread starts: "
                             "give from_checkpoint to compare it with another")
    else:
        start = checkpoint_in(tree, from_checkpoint)
    changes = diff_states(storage.values(thread_id, start), storage.values(thread_id, to))
    lines = changes.lines()
    found = {
        "thread_id": cut(thread_id, ID_CAP),
        "from": named(tree, start), "to": named(tree, to),
        "same": changes.is_empty,
        "lines": lines,
        "added": {path: cut(jsonable(value)) for path, value in changes.added.items()},
        "removed": {path: cut(jsonable(value)) for path, value in changes.removed.items()},
        "changed": {path: {"from": cut(jsonable(old)), "to": cut(jsonable(new))}
                    for path, (old, new) in changes.changed.items()},
        "messages": {path: said for path, said in changes.messages.items()},
    }
    said = (f"thread {clip(thread_id)}: #{tree.ordinal(start)} -> #{tree.ordinal(to)}: "
            + ("no differences" if changes.is_empty else
               f"{len(lines)} difference{'s' if len(lines) != 1 else ''}: "
               + clip("; ".join(lines[:5]), 600)))
    return Answer(said, found)
