"""History's "Re-run on current code": the controls, and the re-run streamed as it goes.

The re-run itself is :func:`playground.runtime.rerun.rerun`; the recording it plays is read by
:func:`playground.timetravel.recording.record_branch`. This draws the two toggles and the
button, streams each step of the new branch into a status box, and says in one line how it
ended. Every string that came from the thread or the graph reaches the page escaped.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from playground.runtime.rerun import ReRunOutcome, rerun
from playground.runtime.run import RunStep
from playground.timetravel.recording import Recording
from playground.timetravel.tree import CheckpointTree
from playground.ui.markup import md_escape

RERUN = "Re-run on current code"
TOOLS_FROM_RECORDING = "Answer tool calls from the recording"
REAL_MODEL_AFTER = "Call the real model past the recording"
BRANCHES_OFFERED = 20  # branches a fork point offers to re-run, the walked one first


@dataclass(frozen=True)
class ReRunChoice:
    """How to answer what the recording cannot: tools, and model calls past its end."""

    tools_from_recording: bool
    real_model_after: bool


def branch_choices(tree: CheckpointTree, selected: str, walked: str,
                   names: dict[str, str]) -> list[tuple[str, str]]:
    """The branches a re-run from ``selected`` could play, as (tip, "to #15 · fork of #8
    (edited)"): the one the person walked first, then every other tip after ``selected``,
    newest first (at most :data:`BRANCHES_OFFERED`)."""
    tips, todo = [], [selected]
    while todo:
        current = todo.pop()
        kids = tree.children.get(current, ())
        if not kids and current != selected:
            tips.append(current)
        todo.extend(kids)
    tips.sort(key=tree.ordinal, reverse=True)
    ordered = [walked, *(tip for tip in tips if tip != walked)][:BRANCHES_OFFERED]
    return [(tip, f"to #{tree.ordinal(tip)} · {names.get(tip, '')}".rstrip(" ·"))
            for tip in ordered]


def _edit_after(tree: CheckpointTree, selected: str, tip: str) -> str | None:
    """The first state edit on the way from ``selected`` to ``tip`` (a re-run cannot play
    one: it was never an input), as ``#13``; None when there is none."""
    path = tree.path_to(tip)
    for cid in path[path.index(selected) + 1:]:
        if tree.nodes[cid].source == "update":
            return f"#{tree.ordinal(cid)}"
    return None


# Said beside the button where it is off because the checkpoint is a branch's tip: said on
# the page, not only on hover, since a failed thread's head is where a person arrives first.
_AT_TIP = ("This is the tip of its branch: nothing after it was recorded to feed a re-run. "
           "Pick an earlier checkpoint (#1 re-runs the whole branch).")
_RETRY_FAILED = " Or Retry the head: its failed step runs again on the current code."


def rerun_controls(tree: CheckpointTree, selected: str, walked: str, names: dict[str, str],
                   key: str, on_click) -> ReRunChoice | None:
    """The re-run's branch, toggles and button, for a branch that passes ``selected``.

    The branch is the one the person walked (``walked``, a tip); where others leave after
    ``selected`` too, a picker offers them, the walked one first, and the text names the one
    that will play before anything runs. The button's ``on_click`` gets (tree, selected, tip),
    made by the run that drew it. It is off on a branch's tip (nothing after it was recorded),
    and where the branch holds a state edit (an edit is not an input a run can be given).
    """
    choices = branch_choices(tree, selected, walked, names)
    if not choices:  # a tip: nothing after it to play
        tip = selected
    elif len(choices) == 1:
        tip = choices[0][0]
    else:
        labels = dict(choices)
        picked = f"{key}-branch"
        if st.session_state.get(picked) not in labels:
            st.session_state[picked] = choices[0][0]
        tip = st.selectbox("Branch to re-run", list(labels), key=picked,
                           format_func=lambda t: labels[t],
                           help="Several branches go on from this checkpoint: the one you "
                           "walked is first.")
    at_tip = tip == selected
    edit = None if at_tip else _edit_after(tree, selected, tip)
    named = dict(choices).get(tip, f"to #{tree.ordinal(tip)}")
    st.markdown(f"**{RERUN}**: run the graph as it is loaded now from this checkpoint into a "
                "new branch, fed the inputs, answers and model replies that the branch "
                f"{md_escape(named, 200)} recorded, then compare the two.")
    if at_tip:
        st.caption(":material/info: " + _AT_TIP + (
            _RETRY_FAILED if selected == tree.head and selected in tree.failed else ""))
    if edit:
        st.caption(f":material/info: That branch holds a state edit at {edit} (update_state): "
                   "an edit is not an input a run can be given, so it cannot be re-run from "
                   "here. Pick a checkpoint after the edit, or another branch.")
    # One toggle per line: side by side, a half column cut their labels short.
    tools = st.toggle(TOOLS_FROM_RECORDING, key=f"{key}-tools",
                      help="Off: tools run for real. On: each tool call gets the result the "
                      "branch recorded for the same tool and arguments.")
    real = st.toggle(REAL_MODEL_AFTER, key=f"{key}-real-model",
                     help="Off: a model call the recording holds no reply for stops the "
                     "re-run. On: from there on the real model answers.")
    st.button(RERUN, icon=":material/model_training:", key=f"{key}-go",
              disabled=at_tip or edit is not None, width="stretch", on_click=on_click,
              args=(tree, selected, tip),
              help=_AT_TIP if at_tip else None)
    return ReRunChoice(tools, real)


def stream_rerun(graph, recording: Recording, tree: CheckpointTree,
                 choice: ReRunChoice) -> ReRunOutcome:
    """Run the re-run with each step shown as it happens; returns how it ended."""
    label = f"{RERUN} from #{tree.ordinal(recording.start)}"
    with st.status(f"{label}…", expanded=True) as status:

        def shown(step: RunStep) -> None:
            if step.kind == "start":
                status.update(label=f"{label}: running {md_escape(step.node, 200)}…")
            elif step.kind == "update":
                status.markdown(f"**{md_escape(step.node)}** " + (
                    "  \n".join(md_escape(line, 300) for line in step.lines) or "(no change)"))

        outcome = rerun(graph, recording, tools_from_recording=choice.tools_from_recording,
                        real_model_after=choice.real_model_after, on_step=shown)
        status.update(label=f"{label}: {md_escape(outcome.message, 300)}",
                      state={"done": "complete", "stopped": "error"}.get(outcome.status,
                                                                        "error"),
                      expanded=outcome.status != "done")
    return outcome


def outcome_line(outcome: ReRunOutcome, recording: Recording) -> tuple[str, str]:
    """The flash kind and one line for how a re-run ended."""
    used = ""
    if recording.replies or outcome.real_model_calls:
        used = (f" ({outcome.replies_used} of {len(recording.replies)} recorded model replies "
                "used" + (f", {outcome.real_model_calls} real model calls"
                          if outcome.real_model_calls else "") + ")")
    if outcome.status == "done":
        return "success", f"Re-run on current code: {outcome.message}{used}."
    if outcome.status == "stopped":
        return "warning", f"Re-run on current code {outcome.message}{used}."
    return "error", f"Re-run on current code failed: {outcome.message}{used}."
