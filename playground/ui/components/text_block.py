"""Text shown as it was written: its line breaks and spaces kept, wrapped at the column's edge.

Pages show stored text this way (a tool's result, a diff, the store's namespaces, a run's log)
instead of with ``st.code``: the first ``st.code`` on a page makes the browser load Streamlit's
syntax highlighter with every language's grammar, which took 1.7 s of the page's main thread
on a 1,000-checkpoint History (measured in Chromium, bench/history_tree.py's machine), and its
lines do not wrap. ``st.text`` never reads markup, so text from a database stays text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from playground.timetravel.decode import to_jsonable
from playground.timetravel.delta import describe_unfolded, is_unfolded
from playground.timetravel.messages import describe


def text_block(text: str) -> None:
    """Show ``text`` in a bordered box, every character as written, long lines wrapped."""
    with st.container(border=True):
        st.text(text)


def fields_block(values: Mapping[str, Any], empty: str = "(empty)", limit: int = 300,
                 ordinal: Callable[[str], int | None] = lambda _: None) -> None:
    """A state's or a record's fields, one per line, each value as a person writes it in JSON
    (``etag: "v1"``, ``priority: "high"``, ``done: false``, messages as ``human: ...``), cut
    to ``limit`` characters with "..."; ``empty`` when there are none. A DeltaChannel value
    only its app's reducer folds reads as its snapshot and the writes since (``ordinal`` names
    their checkpoints ``#N``)."""
    if not values:
        text_block(empty)
        return
    # no padding to line the values up: the box's font is proportional
    text_block("\n".join(
        f"{key}: {describe_unfolded(value, ordinal, limit)}" if is_unfolded(value)
        else f"{key}: {describe(value, limit)}" for key, value in values.items()))


def state_block(values: Mapping[str, Any], empty: str = "(empty)",
                ordinal: Callable[[str], int | None] = lambda _: None) -> None:
    """A state, read-only, the one way every page shows one: its fields as a person writes
    them (:func:`fields_block`: an ETag as ``"v1"``), then the whole structure to unfold in the
    **As JSON** viewer, the one place a string's own quotes are escaped (``"\\"v1\\""``)."""
    fields_block(values, empty=empty, ordinal=ordinal)
    if values:
        with st.expander("As JSON", icon=":material/data_object:"):
            st.json(to_jsonable(values), expanded=2)
