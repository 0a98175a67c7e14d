"""Start page: what the playground teaches, and a guided tour through the other pages."""

from __future__ import annotations

import streamlit as st

st.title(":material/history: Time-travel playground")
st.markdown(
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

st.subheader("Guided tour")
for number, (page, title, text) in enumerate(TOUR, 1):
    with st.container(border=True):
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.markdown(f"**{number}. {title}.** {text}")
        right.page_link(f"views/{page}", label="Open", icon=":material/arrow_forward:")

st.subheader("Debugging your own app")
st.markdown(
    "**Inspect** opens the checkpoint database of any LangGraph app (a SQLite file or a "
    "Postgres URL) read-only, and shows its threads with the same tree and inspector."
)
st.caption(
    "Each browser tab works in its own room: its own tickets and threads. The room code is in "
    "the sidebar and in the page's address; share it to work together."
)
