"""What runs wrote to the long-term store, drawn as a diff (added, changed, removed items)."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from playground.runtime.store_log import StoreChange
from playground.ui.components.text_block import text_block


def store_diff(changes: Sequence[StoreChange]) -> str:
    """The changes as diff text: ``+`` added, ``-`` removed, ``~`` changed, with the node."""
    return "\n".join(f"{change.line()}    ({change.node or '?'})" for change in changes)


def store_changes_panel(changes: Sequence[StoreChange], title: str, empty: str = "") -> None:
    """A panel listing ``changes``; ``empty`` is said when there are none (nothing when blank)."""
    if not changes:
        if empty:
            st.caption(empty)
        return
    added = sum(c.kind == "added" for c in changes)
    removed = sum(c.kind == "removed" for c in changes)
    changed = len(changes) - added - removed
    st.markdown(f":material/database: **{title}**: {added} added, {changed} changed, "
                f"{removed} removed")
    text_block(store_diff(changes))
