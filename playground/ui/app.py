"""The playground's Streamlit entry point: navigation between pages."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

PAGES = Path(__file__).parent / "pages"

st.set_page_config(page_title="Time-travel playground", page_icon=":material/history:",
                   layout="wide")

navigation = st.navigation(
    [
        st.Page(PAGES / "agent.py", title="Agent", icon=":material/smart_toy:", default=True),
    ]
)
navigation.run()
