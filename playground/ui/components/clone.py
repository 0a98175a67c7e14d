"""Inspect's way out of read-only: a thread (or the branch to the selected checkpoint) cloned
into the playground's own checkpoints, where History replays, forks and re-runs it.

The copy is :func:`playground.timetravel.clone.clone_thread`'s: byte for byte from a SQLite
file or a Postgres database, rebuilt from its values from an Agent Server; the place it comes
from is opened read-only and never written. Every string from the place is shown escaped.
"""

from __future__ import annotations

from contextlib import closing

import streamlit as st

from playground.places.door import open_place
from playground.timetravel.clone import FROM_VALUES, clone_thread
from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.limits import clip
from playground.timetravel.transfer import TransferRefused
from playground.timetravel.tree import CheckpointTree
from playground.ui import resources
from playground.ui.markup import md_escape
from playground.ui.session import THREAD_KEY, PageContext, address

CLONE = "Clone to work on it"
CLONED_KEY = "cloned-thread"  # the name of the copy to open in History, set by the callback
NOTE_KEY = "clone-note"  # what the copy holds, said once on History


def clone_control(context: PageContext, kind: str, target: str, label: str,
                  tree: CheckpointTree, selected: str, key: str) -> None:
    """The clone's popover: the copy's name (the thread's own by default), whether to copy only
    the branch to the selected checkpoint, and the button. A refusal says why and writes
    nothing; a copy opens in History."""
    if st.session_state.pop(CLONED_KEY, None):
        st.switch_page("views/history.py", query_params=address())
    thread = tree.thread_id
    with st.popover(CLONE, icon=":material/content_copy:"):
        st.caption("Copies the thread into the playground's own checkpoints "
                   f"({md_escape(resources.place().label, 200)}), where History replays, "
                   "forks and re-runs it. This place is only read.")
        st.text_input("Name in History", value=thread, key=f"{key}-name", max_chars=200,
                      help="The copy's thread id: this thread's own, unless you give another.")
        st.toggle(f"Only the branch to #{tree.ordinal(selected)}", key=f"{key}-branch",
                  help="The checkpoints from the thread's start to the one selected, and no "
                  "other branch.")
        st.button("Clone", icon=":material/content_copy:", key=f"{key}-go", type="primary",
                  on_click=_clone, args=(context, kind, target, label, thread, selected,
                                         tree.ordinal(selected), key))
        problem = st.session_state.get(f"{key}-problem")
        if problem:
            st.error(md_escape(problem, 600), icon=":material/error:")


def _clone(context: PageContext, kind: str, target: str, label: str, thread: str,
           selected: str, ordinal: int, key: str) -> None:
    """The button's callback: copy, then have the page open History on the copy."""
    st.session_state.pop(f"{key}-problem", None)
    name = (st.session_state.get(f"{key}-name") or "").strip() or thread
    tip = selected if st.session_state.get(f"{key}-branch") else None
    own = open_place(resources.checkpoints_target())
    try:
        with closing(open_place(target, typed=kind == "url", label=label).reads()) as source, \
                closing(own.reads(writable=True, create=True)) as copy:
            report = clone_thread(source, copy, thread,
                                  as_id=context.workspace.thread_id(name), to_checkpoint=tip)
    except (TransferRefused, UnknownThread, ValueError, *resources.database_errors()) as exc:
        # a driver's error says its class only: its text may name the place's internals
        said = str(exc) if isinstance(exc, TransferRefused | UnknownThread | ValueError |
                                      CheckpointDbError) else type(exc).__name__
        st.session_state[f"{key}-problem"] = f"Not cloned, nothing written: {clip(said, 500)}"
        return
    how = (" It was rebuilt from the server's values (values and next at each checkpoint), "
           "not copied byte for byte." if report.how == FROM_VALUES else "")
    what = f"the branch to #{ordinal} of thread" if tip else "thread"
    st.session_state[NOTE_KEY] = (
        name, f"Cloned {what} {thread} from {label}: {report.checkpoints:,} checkpoints, "
        f"{report.writes:,} writes. Here it is {name}: replay it, fork it, re-run it on your "
        f"current code.{how}")
    st.session_state[THREAD_KEY] = name
    st.query_params["thread"] = name
    st.session_state[CLONED_KEY] = True


def clone_note(thread: str) -> None:
    """Say, once, on History, what a clone just copied into this thread."""
    kept = st.session_state.get(NOTE_KEY)
    if kept and kept[0] == thread:
        st.session_state.pop(NOTE_KEY)
        st.success(md_escape(kept[1], 800), icon=":material/content_copy:")
