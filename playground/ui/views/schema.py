"""Schema page: a renamed state key strands a paused thread, add-then-remove does not, and
renaming the key inside the thread's newest checkpoint repairs it."""

from __future__ import annotations

import streamlit as st

from playground.lessons import tour
from playground.lessons.schema_lesson import (
    ADD_REMOVE,
    ADD_REMOVE_REQUEST,
    NEW,
    OLD,
    STRANDED,
    STRANDED_REQUEST,
    StepResult,
    ThreadLook,
    add_then_remove,
    apply_repair,
    deploy_rename,
    lesson_steps,
    look,
    pause_under_etag,
    preview_repair,
    resume_repaired,
    schema_keys,
    stranded_threads,
)
from playground.timetravel.messages import describe
from playground.timetravel.migrate import MigrationRefused
from playground.ui import resources
from playground.ui.markup import md_escape
from playground.ui.session import flash, note, page_context, show_flash

TRIED_KEY = "schema_rename_tried"
PREVIEW_KEY = "schema_preview"
_BADGES = {
    "to do": ":gray-badge[to do]",
    "done": ":green-badge[done]",
    "stuck": ":red-badge[stuck]",
    "paused": ":orange-badge[paused]",
    "repaired": ":blue-badge[repaired]",
    "failed": ":red-badge[failed]",
}

context = page_context()
workspace = context.workspace
resources.saver()  # the checkpoint file and its tables exist before the lesson reads them
checkpoints = resources.checkpoints_target()
stranded_id = workspace.thread_id(STRANDED)
add_remove_id = workspace.thread_id(ADD_REMOVE)
room = workspace.room

st.title(":material/schema: Schema")
st.caption(
    "A paused conversation is a checkpoint on disk, written under the state schema of the day. "
    "What happens when you rename a state key and deploy while a thread is paused? Four steps, "
    "in order: pause, deploy the rename, the safe way to rename, and the repair."
)


def _flash_step(result: StepResult) -> None:
    flash(result.kind, result.text)


def _shown(value: object) -> str:
    # The one way every page writes a value (an ETag as "v1"), cut to fit a cell.
    return describe(value, 200)


def _channels_table(seen: ThreadLook) -> list[dict]:
    keys = set(schema_keys(NEW))
    return [
        {"channel in the checkpoint": channel, "value": _shown(value),
         f"in the {NEW} schema?": "yes" if channel in keys else "no: unknown to the new graph"}
        for channel, value in seen.channels.items()
    ]


def _act(action: str) -> None:
    """Run one step's command before the page draws (a button callback), so every status,
    table and enabled button below shows the state after it."""
    ctx = page_context()
    space = ctx.workspace
    thread, other_thread = space.thread_id(STRANDED), space.thread_id(ADD_REMOVE)
    path = resources.checkpoints_target()
    try:
        if action == "start over":
            for thread_id in (thread, other_thread):
                resources.saver().delete_thread(thread_id)
            for key in (TRIED_KEY, PREVIEW_KEY):
                st.session_state.pop(key, None)
            flash("info", "The lesson's threads were deleted: start again at step 1.")
        elif action == "pause":
            for key in (TRIED_KEY, PREVIEW_KEY):
                st.session_state.pop(key, None)
            _flash_step(pause_under_etag(ctx.agent(OLD), thread))
        elif action == "deploy":
            st.session_state[TRIED_KEY] = space.room
            _flash_step(deploy_rename(ctx.agent(NEW), thread))
        elif action == "add-remove":
            _flash_step(add_then_remove(ctx.agent(OLD), ctx.agent("both"), other_thread))
        elif action == "preview":
            report = preview_repair(path, thread)
            st.session_state[PREVIEW_KEY] = (space.room, report)
            flash("info", f"Dry run: renaming {OLD} to {NEW} in checkpoint "
                  f"{report.checkpoint_id} would change {', '.join(report.changed)}. "
                  "Nothing was written.")
        elif action == "apply":
            report = apply_repair(path, thread)
            st.session_state[PREVIEW_KEY] = (space.room, report)
            flash("success", f"Repaired: {', '.join(report.changed)} now name {NEW}. Resume "
                  "the thread with the version schema.")
        elif action == "resume":
            result = resume_repaired(ctx.agent(NEW), thread)
            _flash_step(result)
            if result.status == "repaired":
                note(tour.REPAIRED, result.text)
    except MigrationRefused as exc:
        flash("error", f"Not repaired, nothing was changed: {exc}")


graph_new = context.agent(NEW)
stranded = look(checkpoints, graph_new, stranded_id)
other = look(checkpoints, graph_new, add_remove_id)
tried = st.session_state.get(TRIED_KEY) == room
steps = lesson_steps(stranded, other, tried)
kept = st.session_state.get(PREVIEW_KEY)
report = kept[1] if kept and kept[0] == room else None

show_flash()
for column, step in zip(st.columns(4), steps, strict=False):
    with column.container(border=True):
        st.markdown(f"**{step.number}. {step.title}**  \n{_BADGES.get(step.status)}")
        st.caption(step.note)
st.button("Start the lesson over", icon=":material/restart_alt:", on_click=_act,
          args=("start over",),
          help="Delete the lesson's two threads. Tickets and other threads stay.")

with st.container(border=True):
    st.subheader("Step 1 · Pause a thread under the etag schema")
    st.markdown(
        f"Thread `{STRANDED}` asks *{STRANDED_REQUEST}*. It reads the ticket, keeps the ETag "
        f"it read in a state key named **{OLD}**, and pauses before the write: the checkpoint "
        "on disk holds that key."
    )
    st.button("Pause a thread under etag", type="primary", icon=":material/pause_circle:",
              on_click=_act, args=("pause",))
    if stranded.exists:
        st.markdown(f"Newest checkpoint `{stranded.checkpoint_id}`, waiting before "
                    f"**{', '.join(stranded.waiting_at) or 'nothing (finished)'}**.")
        st.dataframe(_channels_table(stranded), hide_index=True, width="stretch")

with st.container(border=True):
    st.subheader("Step 2 · Deploy the rename (etag becomes version)")
    st.markdown(
        f"The team renames **{OLD}** to **{NEW}** and deletes the old key, then deploys. The "
        "user comes back and the thread is resumed with the new graph."
    )
    st.button("Deploy the rename and resume", icon=":material/rocket_launch:",
              disabled=not stranded.waiting_at, on_click=_act, args=("deploy",))
    if steps[1].status == "stuck":
        st.error(
            "Stuck, silently. resume() returned the old values, ran nothing and raised nothing; "
            f"the thread still waits before **write**. The paused checkpoint holds a channel "
            f"named **{OLD}** (see step 1); the new graph has no such key, so that channel's "
            "version is never marked as seen and LangGraph stops before write again on every "
            "resume. The ticket was not written, and no error tells anyone.",
            icon=":material/report:",
        )
        left, right = st.columns(2)
        left.markdown(f"**Keys of the {NEW} schema**")
        left.markdown(", ".join(f"`{key}`" for key in schema_keys(NEW)))
        right.markdown("**What the new graph sees of this thread**")
        right.json(stranded.seen_by_new_schema)
        st.caption(f"No {OLD} and no {NEW}: the version the thread read is invisible to it.")
    elif steps[1].status == "repaired":
        st.success("This thread was stuck here; step 4 repaired it.", icon=":material/build:")

with st.container(border=True):
    st.subheader("Step 3 · Do the rename as add-then-remove")
    st.markdown(
        f"The safe way: release 1 **adds** {NEW} and keeps {OLD} (the `both` schema: nodes "
        f"write both, read whichever is set). Thread `{ADD_REMOVE}` asks *{ADD_REMOVE_REQUEST}*, "
        "pauses under the etag schema, and is resumed by release 1. Release 2 may remove "
        f"{OLD} only once no thread holds it any more, finished ones included (step 4 lists "
        "them)."
    )
    st.button("Pause a thread and resume with both keys", icon=":material/add_circle:",
              on_click=_act, args=("add-remove",))
    if other.exists:
        st.markdown(f"Thread `{ADD_REMOVE}`: waiting before "
                    f"**{', '.join(other.waiting_at) or 'nothing (finished)'}**; "
                    f"outcome: {other.outcome or '-'}")
        st.dataframe(
            [{"channel": k, "value": _shown(v)} for k, v in other.channels.items()],
            hide_index=True, width="stretch",
        )

with st.container(border=True):
    st.subheader("Step 4 · Repair the stranded thread")
    st.markdown(
        f"A resume loads only the thread's newest checkpoint. Renaming the channel {OLD} to "
        f"{NEW} inside that one blob (values, versions, what each node has seen) lets the new "
        "graph resume it. Preview the change first; older checkpoints stay as they were."
    )
    # Each step's result shows once its step is done: before the rename is deployed (step
    # 2), no thread is stranded by it yet, so the list waits for it.
    deployed = steps[1].status != "to do"
    found = stranded_threads(checkpoints, f"{room}/") if deployed else []
    if not deployed:
        st.caption(f"Deploy the rename in step 2 first: this step then lists the threads of "
                   f"this room the {NEW} schema cannot resume.")
    elif found:
        st.markdown(f"**Threads of this room the {NEW} schema cannot resume**")
        st.dataframe(
            [{"thread": workspace.thread_name(t.thread_id),
              "stuck": "now (paused)" if t.paused else "at its next resume",
              "unknown channels": ", ".join(t.unknown_channels),
              "suggested repair": ", ".join(f"{s.old} -> {s.new} ({s.reason})"
                                            for s in t.suggestions) or "none"}
             for t in found],
            hide_index=True, width="stretch",
        )
        st.caption(f"A finished thread that still holds {OLD} is not stuck yet: its next turn "
                   "pauses as usual, and the resume after it runs nothing. A suggested repair "
                   f"means: {OLD} holds a value and {NEW} is the one schema key "
                   "the checkpoint never set.")
    elif stranded.exists:
        st.caption(f"No thread of this room holds channels the {NEW} schema lacks.")
    preview_ok = (report is not None and not report.applied and stranded.stranded
                  and report.checkpoint_id == stranded.checkpoint_id)
    preview_col, apply_col, resume_col = st.columns(3)
    preview_col.button("Preview the repair (dry run)", icon=":material/preview:",
                       width="stretch", disabled=not stranded.stranded, on_click=_act,
                       args=("preview",))
    apply_col.button("Apply the repair", type="primary", icon=":material/build:",
                     width="stretch", disabled=not preview_ok, on_click=_act, args=("apply",),
                     help="Preview first: the repair rewrites the checkpoint you previewed.")
    resume_col.button("Resume with the version schema", icon=":material/resume:",
                      width="stretch", disabled=not stranded.waiting_at, on_click=_act,
                      args=("resume",))
    if report is not None:
        title = "Applied" if report.applied else "Dry run (nothing written yet)"
        st.markdown(f"**{title}**: rename `{report.old}` to `{report.new}` in checkpoint "
                    f"`{report.checkpoint_id}` of `{workspace.thread_name(report.thread_id)}`")
        st.dataframe([{"place in the checkpoint": place, "change": f"{report.old} -> "
                       f"{report.new}"} for place in report.changed],
                     hide_index=True, width="stretch")
    if steps[3].status == "done":
        st.success(f"Resumed with the version schema and written: "
                   f"{md_escape(stranded.outcome, 300)}",
                   icon=":material/check_circle:")

