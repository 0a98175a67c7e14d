"""``compare_branches``: two branches of a thread side by side from their common ancestor, as
``playground branches --json`` says it (:func:`~playground.timetravel.compare.compare_branches`):
each step's node and what it wrote, where the paths part and meet again, the first difference
in words, and the difference of the two final states.
"""

from __future__ import annotations

from typing import Any

from playground.mcp.answers import Answer, Refused
from playground.mcp.arguments import checkpoint_in
from playground.mcp.bounds import (
    DATA_BUDGET,
    VALUE_CAP,
    clip,
    cursor_for,
    fit,
    json_size,
    jsonable,
    position_of,
    take,
)
from playground.mcp.checkpoints import named
from playground.mcp.reads import thread_tree
from playground.timetravel.compare import compare_branches as compare
from playground.timetravel.compare import newest_branches
from playground.timetravel.storage import Storage
from playground.timetravel.tree import TreeCache


def compare_branches(storage: Storage, *, thread_id: str, left: str | None = None,
                     right: str | None = None, limit: int, cursor: str | None = None,
                     trees: TreeCache | None = None) -> Answer:
    """The branch ending at ``left`` against the one ending at ``right`` (by default the two
    newest branches: the older tip left, the newest right), steps paged.

    Raises:
        UnknownThread: no such thread.
        ValueError: only one of left and right, a checkpoint that no (or more than one)
            checkpoint matches, a thread with one branch, or a cursor this tool did not give.
    """
    start = position_of(cursor, "compare_branches")
    if (left is None) != (right is None):
        raise Refused("give both left and right, or neither for the two newest branches")
    tree = thread_tree(storage, thread_id, trees)
    if left is None or right is None:
        ends = newest_branches(tree)
    else:
        ends = checkpoint_in(tree, left), checkpoint_in(tree, right)
    found: dict[str, Any] = jsonable(compare(storage, tree, *ends).to_json())
    steps = found.pop("steps")
    found["left"], found["right"] = named(tree, ends[0]), named(tree, ends[1])
    found["ancestor"] = named(tree, found["ancestor"])
    found["final"] = fit(found["final"], VALUE_CAP)
    found["steps_total"] = len(steps)
    if start > len(steps):
        raise ValueError(f"the cursor goes past the comparison's {len(steps)} steps: start "
                         "again without a cursor")
    room = DATA_BUDGET - json_size(found) - 256
    page, _ = take((fit(step, VALUE_CAP) for step in steps[start:]), limit, room)
    end = start + len(page)
    found["steps"] = page
    found["next_cursor"] = cursor_for("compare_branches", end) if end < len(steps) else None
    ancestor = found["ancestor"]
    said = (f"thread {clip(thread_id)}: #{tree.ordinal(ends[0])} (left) against "
            f"#{tree.ordinal(ends[1])} (right), "
            + (f"common ancestor #{ancestor['ordinal']}" if ancestor else "no common ancestor")
            + f"; {clip(found['first_difference_line'], 300)}"
            + f"; steps {start + 1} to {end} of {len(steps)}"
            + (f"; more with cursor={found['next_cursor']}" if found["next_cursor"] else ""))
    return Answer(said, found)
