"""The debugger's own 412: an action taken on a drawing of a thread that has moved on is refused.

The ticket API refuses a write whose If-Match is stale; here what a page drew of the thread (its
:class:`CheckpointTree`) is the If-Match, and the thread's checkpoints are the current version.
Another tab (or process) that ran, forked or answered since the page was drawn makes the action
stale: nothing runs, nothing is written, and the page says which checkpoint is new and who wrote
it. History and Run refuse in the same words, through :func:`refused_as_stale`.
"""

from __future__ import annotations

from playground.timetravel.errors import UnknownThread
from playground.timetravel.tree import CheckpointTree, ThreadMoved, moved_since
from playground.ui import resources
from playground.ui.session import flash


def unseen_thread(thread_id: str, checkpoint_ns: str = "") -> CheckpointTree:
    """A drawing of a thread that had no checkpoints yet (a new thread): every checkpoint the
    thread holds now is new to it."""
    return CheckpointTree(thread_id=thread_id, checkpoint_ns=checkpoint_ns, nodes={},
                          children={}, roots=(), head="", current_branch=(),
                          paused=frozenset(), details={})


def refused_as_stale(drawn: CheckpointTree, what: str) -> ThreadMoved | None:
    """Refuse ``what`` when the thread moved on since ``drawn`` was read, and say so.

    Returns what moved (its ``head`` is the thread's new head, for the page to show), or None
    when the thread holds nothing ``drawn`` did not: then the action may go on.
    """
    try:
        storage = resources.own_storage()
        try:
            moved = moved_since(storage, drawn)
        finally:
            storage.close()
    except UnknownThread:  # drawn new, and still without a checkpoint
        moved = None
    except resources.database_errors() as exc:
        # A callback runs outside the page's own error handling: say it here, and act on
        # nothing that could not be checked.
        flash("error", f"{what} refused, nothing was run: the thread could not be read to "
              f"check it is still as drawn ({exc})")
        return ThreadMoved(drawn.thread_id, (), drawn.head, (), None, 0)
    if moved is not None:
        flash("error", f"{what} refused, nothing was run: {moved.line()}. The page shows it "
              "now; look, then act on what is there.")
    return moved
