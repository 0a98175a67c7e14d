"""``get_timeline``: where a branch's time and tokens went, step by step, as ``playground
timeline --json`` says it (:func:`~playground.timetravel.timeline.timeline`): running, waiting
for a person, idle before an edit, tokens per step and per node, and the slowest step.

The totals come whole; the steps page oldest first (a 10,000-checkpoint branch has as many).
"""

from __future__ import annotations

from typing import Any

from playground.mcp.answers import Answer
from playground.mcp.arguments import checkpoint_in
from playground.mcp.bounds import (
    DATA_BUDGET,
    clip,
    cursor_for,
    json_size,
    jsonable,
    position_of,
    take,
)
from playground.mcp.checkpoints import named
from playground.mcp.reads import thread_tree
from playground.timetravel.storage import Storage
from playground.timetravel.timeline import RUN, kept_timeline, timeline
from playground.timetravel.tree import TreeCache


def slowest(steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The running step that took longest (of those whose time is known), or None."""
    timed = [step for step in steps if step["kind"] == RUN and step["seconds"] is not None]
    return max(timed, key=lambda step: step["seconds"]) if timed else None


def get_timeline(storage: Storage, *, thread_id: str, checkpoint: str | None = None,
                 limit: int, cursor: str | None = None, trees: TreeCache | None = None
                 ) -> Answer:
    """The timeline of the branch ending at ``checkpoint`` (the head's by default).

    Raises:
        UnknownThread: no such thread.
        ValueError: a checkpoint that no (or more than one) checkpoint matches, or a cursor
            this tool did not give.
    """
    start = position_of(cursor, "get_timeline")
    tree = thread_tree(storage, thread_id, trees)
    tip = checkpoint_in(tree, checkpoint)
    found = jsonable((kept_timeline(trees, storage, tree, tip) if trees is not None
                      else timeline(storage, tree, tip)).to_json())
    steps = found.pop("steps")
    found["branch_tip"] = named(tree, tip)
    found["slowest_step"] = slowest(steps)
    found["steps_total"] = len(steps)
    if start > len(steps):
        raise ValueError(f"the cursor goes past the branch's {len(steps)} steps: start again "
                         "without a cursor")
    room = DATA_BUDGET - json_size(found) - 256
    page, _ = take(steps[start:], limit, room)
    end = start + len(page)
    found["steps"] = page
    found["next_cursor"] = cursor_for("get_timeline", end) if end < len(steps) else None
    tokens = found["tokens"]
    worst = found["slowest_step"]
    said = (f"thread {clip(thread_id)}, branch to #{tree.ordinal(tip)}: ran "
            f"{found['run_seconds']:.3f} s, waited {found['wait_seconds']:.3f} s, idle "
            f"{found['idle_seconds']:.3f} s; tokens {tokens['input']:,} in, "
            f"{tokens['output']:,} out"
            + (f"; slowest step #{worst['ordinal']} {clip(worst['node'], 60)} "
               f"({worst['seconds']:.3f} s)" if worst else "")
            + f"; steps {start + 1} to {end} of {len(steps)}"
            + (f"; more with cursor={found['next_cursor']}" if found["next_cursor"] else ""))
    return Answer(said, found)
