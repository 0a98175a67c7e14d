"""The playground's Streamlit entry point: navigation, and the sidebar every page shares."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from playground.ui.session import THREAD_KEY, page_context
from playground.ui.workspace import normalize_room

PAGES = Path(__file__).parent / "views"

st.set_page_config(
    page_title="Time-travel playground", page_icon=":material/history:", layout="wide"
)

pages = [
    st.Page(PAGES / "start.py", title="Start", icon=":material/flag:", url_path="start",
            default=True),
    st.Page(PAGES / "agent.py", title="Agent", icon=":material/smart_toy:", url_path="agent"),
    st.Page(PAGES / "history.py", title="History", icon=":material/account_tree:",
            url_path="history"),
    st.Page(PAGES / "conflicts.py", title="Conflicts", icon=":material/sync_problem:",
            url_path="conflicts"),
    st.Page(PAGES / "sizes.py", title="Sizes", icon=":material/database:", url_path="sizes"),
    st.Page(PAGES / "schema.py", title="Schema", icon=":material/schema:", url_path="schema"),
    st.Page(PAGES / "inspect.py", title="Inspect", icon=":material/search:", url_path="inspect"),
]
navigation = st.navigation(pages)

context = page_context()
with st.sidebar:
    st.caption("Workspace")
    st.markdown(f"Room code **`{context.workspace.room}`**")
    st.caption("Share the page's link, or the code, to work in the same room.")
    with st.popover("Join a room", icon=":material/group_add:"):
        code = st.text_input("Room code", key="join_room", placeholder="e.g. monday-class")
        if st.button("Join", key="join_room_button"):
            room = normalize_room(code)
            if room is None:
                st.error("A room code is 3 to 32 letters, digits or dashes.")
            else:
                st.query_params["room"] = room
                st.session_state.pop("flash", None)
                st.rerun()
    thread = st.text_input(
        "Thread", key=THREAD_KEY, help="A conversation with the agent; each has its own history."
    )
    if thread and st.query_params.get("thread") != thread:
        st.query_params["thread"] = thread  # deep links carry the thread

navigation.run()
