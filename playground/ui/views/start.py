"""Start page: the playground's two uses, the workshop's guided tour, and your own graph."""

from __future__ import annotations

import streamlit as st

from playground.ui import resources

app = resources.app()
st.title(":material/history: Time-travel playground")
INTRO = (
    "A LangGraph agent that edits tickets through a REST API, and every checkpoint it keeps, "
    "in plain view. The agent **reads** a ticket, **plans** a change, **pauses**, and on the "
    "next turn **writes** it back with the version it read (`If-Match`). Its state holds only "
    "ids and versions, so a turn can resume in another process, and a stale write gets a "
    "**412** instead of overwriting someone else's edit."
)

TOUR = [
    ("agent.py", "Run a turn", "On **Agent**, keep the request `raise t7 to high` and press "
     "**Run turn**: the agent reads t7, proposes the change and pauses before `write`."),
    ("agent.py", "Restart", "Press **Restart process**: the saver and its connection are "
     "dropped, as if the server restarted. Only the checkpoint file remains."),
    ("agent.py", "Resume", "Press **Resume**: turn 2 loads the paused checkpoint from the file "
     "and writes t7 with `If-Match`. The ticket's ETag moves on."),
    ("conflicts.py", "Conflict", "On **Conflicts**, start a turn, press **Simulate concurrent "
     "edit**, then resume: the API answers 412 and says who changed the ticket."),
    ("history.py", "Time travel", "On **History**, step through every checkpoint of the "
     "thread and press **Replay from here** on an old one: a new branch appears in the tree."),
    ("history.py", "Fork", "Still on **History**, edit a checkpoint's state and press **Fork "
     "with edit**. Unknown keys and wrong types are refused before anything is written."),
    ("sizes.py", "Sizes", "On **Sizes**, see what each checkpoint stores, what a resume "
     "loads, and how whole responses in state grow into megabytes. Prune old checkpoints."),
    ("schema.py", "Schema", "On **Schema**, pause a thread, then deploy a rename of `etag` "
     "to `version`: the resume does nothing. Add-then-remove works; a repair unsticks it."),
]

OWN_GRAPH = [
    ("run.py", "Run it", "On **Run**, send a message (or fill the input form): each node's "
     "update streams in and the graph lights up the node that runs. Set **Pause before** or "
     "**Pause after** on a node, or step mode, and **Continue** from there."),
    ("run.py", "Answer it", "When a node calls `interrupt()`, its question shows: type an "
     "**Answer** and press **Resume**. A node that raises shows your traceback; fix the file, "
     "press **Reload graph**, then **Retry**."),
    ("history.py", "Fork it", "On **History**, the thread's every checkpoint is a tree: replay "
     "from any of them, or edit a state and fork. On Run, **Edit and fork** a message."),
    ("sizes.py", "Weigh it", "On **Sizes**, what each checkpoint stores and what a resume "
     "loads; prune old checkpoints."),
]


def tour(steps: list[tuple[str, str, str]]) -> None:
    """Numbered steps, each with a link to its page in this room (a link opened in a new tab
    stays in the room)."""
    room = {"room": st.session_state.get("room", "")} if st.session_state.get("room") else None
    for number, (page, title, text) in enumerate(steps, 1):
        with st.container(border=True):
            left, right = st.columns([5, 1], vertical_alignment="center")
            left.markdown(f"**{number}. {title}.** {text}")
            right.page_link(f"views/{page}", label="Open", icon=":material/arrow_forward:",
                            query_params=room)


if not app.builtin:
    # The page speaks of the graph this server runs; the ticket agent is another server's.
    st.markdown(
        f"This server runs **your graph**, `{app.name}` (`{app.spec}`), on your machine: no "
        "account, and nothing leaves it. Every run checkpoints to the playground's saver, so "
        "each thread can be paused, answered, replayed and forked."
    )
    st.subheader("Debugging your graph")
    tour(OWN_GRAPH)
    st.caption("The ticket agent's workshop (412 conflicts, schema renames) runs when the "
               "server is started without --graph: `make run`.")
    st.stop()

st.markdown(INTRO)
st.subheader("Guided tour")
tour(TOUR)

st.subheader("Debugging your own app")
st.markdown(
    "Start the playground on your own graph, `playground run --graph path/to/app.py:graph` "
    "(or `--config langgraph.json`), and every page works on it: **Run** runs it with "
    "breakpoints and answers its `interrupt()`s, **History** replays and forks its threads. "
    "**Inspect** opens the checkpoint database of any LangGraph app (a SQLite file or a "
    "Postgres URL) read-only, safely: nothing in it is ever run."
)
st.caption(
    "This browser works in its own room: its own tickets and threads. The room code is in the "
    "sidebar and in the page's address; share it to work together. A page opened without one, "
    "in a new tab or from a bookmark, comes back to this room; Leave room starts a new one."
)
