"""Text shown as it was written: its line breaks and spaces kept, wrapped at the column's edge.

Pages show stored text this way (a tool's result, a diff, the store's namespaces, a run's log)
instead of with ``st.code``: the first ``st.code`` on a page makes the browser load Streamlit's
syntax highlighter with every language's grammar, which took 1.7 s of the page's main thread
on a 1,000-checkpoint History (measured in Chromium, bench/history_tree.py's machine), and its
lines do not wrap. ``st.text`` never reads markup, so text from a database stays text.
"""

from __future__ import annotations

import streamlit as st


def text_block(text: str) -> None:
    """Show ``text`` in a bordered box, every character as written, long lines wrapped."""
    with st.container(border=True):
        st.text(text)
