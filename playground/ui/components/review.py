"""Approve / edit / reject controls for a human-in-the-loop review (``HumanInTheLoopMiddleware``).

One bordered box per tool call waiting: the tool, what the middleware says of it, the arguments
the model chose, and a ``Decision`` radio with the decisions the app allows. ``Edit`` opens the
arguments as JSON; ``Reject`` takes an optional reason. The page's ``Resume`` sends the answer
:func:`playground.runtime.review.review_answer` builds.
"""

from __future__ import annotations

import json

import streamlit as st

from playground.runtime.review import Choice, ReviewRequest
from playground.ui.components.text_block import text_block
from playground.ui.markup import md_escape

_LABELS = {"approve": "Approve", "edit": "Edit", "reject": "Reject", "respond": "Respond"}


def review_controls(request: ReviewRequest, key: str) -> list[Choice]:
    """Draw the review of each action; return what the person chose for each."""
    choices = []
    for index, action in enumerate(request.actions):
        with st.container(border=True):
            st.markdown(f":material/rule: Review **{md_escape(action.name)}**"
                        + (f": {md_escape(action.description)}" if action.description else ""))
            shown = json.dumps(dict(action.args), indent=2, default=str)
            text_block(shown)
            decision = st.radio("Decision", action.allowed, horizontal=True,
                                format_func=lambda d: _LABELS.get(d, d),
                                key=f"{key}-{index}-decision")
            args_text = message = ""
            if decision == "edit":
                args_text = st.text_area("Edited arguments (JSON)", value=shown,
                                         key=f"{key}-{index}-args")
            elif decision == "reject":
                message = st.text_input("Reason (optional)", key=f"{key}-{index}-reason",
                                        help="Told to the model instead of the tool's result.")
            elif decision == "respond":
                message = st.text_input("Answer for the tool", key=f"{key}-{index}-respond")
            choices.append(Choice(decision, args_text, message))
    return choices
