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
from playground.timetravel.recording import Recording, branch_tip
from playground.timetravel.tree import CheckpointTree
from playground.ui.markup import md_escape

RERUN = "Re-run on current code"
TOOLS_FROM_RECORDING = "Answer tool calls from the recording"
REAL_MODEL_AFTER = "Call the real model past the recording"


@dataclass(frozen=True)
class ReRunChoice:
    """How to answer what the recording cannot: tools, and model calls past its end."""

    tools_from_recording: bool
    real_model_after: bool


def rerun_controls(tree: CheckpointTree, selected: str, key: str, on_click, args: tuple
                   ) -> ReRunChoice:
    """The re-run's toggles and button, for the branch that passes ``selected``.

    The button's ``on_click`` gets ``args``, made by the run that drew it: it checks that the
    thread is still what the page showed, before the re-run runs in the next run's body. The
    button is off on a branch's tip: nothing after it was recorded to play again.
    """
    tip = branch_tip(tree, selected)
    at_tip = tip == selected  # the tip descends from the selection, or is it
    st.markdown(f"**{RERUN}**: run the graph as it is loaded now from this checkpoint into a "
                "new branch, fed the inputs, answers and model replies this branch recorded "
                f"(to #{tree.ordinal(tip)}), then compare the two.")
    # One toggle per line: side by side, a half column cut their labels short.
    tools = st.toggle(TOOLS_FROM_RECORDING, key=f"{key}-tools",
                      help="Off: tools run for real. On: each tool call gets the result the "
                      "branch recorded for the same tool and arguments.")
    real = st.toggle(REAL_MODEL_AFTER, key=f"{key}-real-model",
                     help="Off: a model call the recording holds no reply for stops the "
                     "re-run. On: from there on the real model answers.")
    st.button(RERUN, icon=":material/model_training:", key=f"{key}-go", disabled=at_tip,
              width="stretch", on_click=on_click, args=args,
              help="This is the tip of its branch: nothing after it was recorded. Pick a "
              "checkpoint before the step you changed." if at_tip else None)
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
