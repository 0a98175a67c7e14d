"""The playground's own drawings as Streamlit custom components (``st.components.v2``: drawn in
the page, no iframe): the history tree and the timeline.

Their JavaScript is d3, built by Vite from ``frontend/drawings`` into one module,
``assets/drawings.js``, committed so that ``pip install`` needs no Node; each component's data
names the drawing it is (``"drawing"``). Python decides what is drawn and sends it as plain data;
the browser draws it and reports a click or a drag. docs/architecture.md says why d3 and not a
chart library.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

_ASSETS = Path(__file__).parent / "assets"
_JS = (_ASSETS / "drawings.js").read_text(encoding="utf-8")


def _component(name: str, css: str):
    return st.components.v2.component(
        f"playground.{name}", js=_JS, css=(_ASSETS / css).read_text(encoding="utf-8"),
        # in the page's own DOM (classes carry a prefix per drawing): Streamlit's font, and
        # the marks found by a test or a screen reader like any other element
        isolate_styles=False,
    )


HISTORY_TREE = _component("history_tree", "history_tree.css")
TIMELINE = _component("timeline", "timeline.css")
