"""Run page: run the app's graph in the browser, node by node, pause it, answer it, fork it.

The graph is drawn from ``get_graph(xray=1)`` with the running and next nodes highlighted; the
input is a chat box when the state has ``messages``, else a form from the input schema. A run
streams each node's update as it arrives; breakpoints (``Pause before`` / ``Pause after``, step
mode) stop it, ``Continue`` goes on, ``interrupt()`` questions get an ``Answer`` and ``Resume``,
a node error shows the user's traceback with ``Reload graph`` and ``Retry``. Every action is a
named command of ``playground.runtime``; this page only draws and dispatches.
"""

from __future__ import annotations

import streamlit as st
from langchain_core.messages import HumanMessage

from playground.apps.drawing import graph_dot
from playground.apps.inputs import InputRefused, input_fields, parse_input
from playground.apps.loader import AppLoadError
from playground.runtime.chat import ChatActionRefused, edit_and_fork, regenerate
from playground.runtime.run import (
    DEFAULT_RECURSION_LIMIT,
    Breakpoints,
    GraphRun,
    RunOutcome,
    current_outcome,
    parse_answer,
    resume_command,
)
from playground.timetravel.decode import to_jsonable
from playground.timetravel.edit import EditRefused
from playground.timetravel.errors import UnknownThread
from playground.timetravel.messages import ChatTurn, conversations
from playground.ui import resources
from playground.ui.components.conversation import conversation
from playground.ui.session import THREAD_KEY, flash, page_context, show_flash

PREFIX = "run-"
LOG_KEY = PREFIX + "log"  # {thread_id: (lines of the last run, its outcome)}
SHOWN_LOG = 200

context = page_context()
app = resources.app()
graph = context.graph()
thread_config = {"configurable": {"thread_id": context.thread_id}}

st.title(f":material/play_circle: Run · {app.name}")
st.caption(
    (f"{app.description}. " if app.description else "")
    + f"`{app.spec}`, checkpoints in `{resources.checkpoints_target()}`. Run it, pause it, "
    "answer its questions, edit and fork its threads; every run lands in History."
)


# -- threads ------------------------------------------------------------------------------


def _threads() -> list[str]:
    """Thread names this session may open: its room's, and the app's own (``/id``)."""
    source = resources.own_source()
    try:
        ids = [t.thread_id for t in source.threads()]
    finally:
        source.close()
    names = (context.workspace.thread_name(thread_id) for thread_id in ids)
    return [name for name in names if name is not None]  # other rooms' threads stay hidden


def _pick_thread() -> None:
    st.session_state[THREAD_KEY] = st.session_state[PREFIX + "thread"]


def _new_thread(existing: list[str]) -> None:
    number = len(existing) + 1
    while f"thread-{number}" in existing:
        number += 1
    st.session_state[THREAD_KEY] = f"thread-{number}"


threads = _threads()
if context.thread not in threads:
    threads = [context.thread, *threads]
pick_col, new_col = st.columns([4, 1], vertical_alignment="bottom")
pick_col.selectbox("Thread", threads, index=threads.index(context.thread), key=PREFIX + "thread",
                   on_change=_pick_thread,
                   help="This room's threads, and threads the app wrote itself (/id).")
new_col.button("New thread", icon=":material/add:", on_click=_new_thread, args=(threads,),
               width="stretch")


# -- breakpoints and settings -----------------------------------------------------------------

with st.expander("Breakpoints and settings", icon=":material/tune:",
                 expanded=bool(st.session_state.get(PREFIX + "before")
                               or st.session_state.get(PREFIX + "after"))):
    before_col, after_col = st.columns(2)
    pause_before = before_col.multiselect("Pause before", app.nodes, key=PREFIX + "before")
    pause_after = after_col.multiselect("Pause after", app.nodes, key=PREFIX + "after")
    step_col, limit_col, xray_col = st.columns(3)
    step_mode = step_col.toggle("Step mode", key=PREFIX + "step",
                                help="Pause after every node; Continue runs the next one.")
    limit = limit_col.number_input("Recursion limit", 1, 10_000, DEFAULT_RECURSION_LIMIT,
                                   key=PREFIX + "limit")
    xray = xray_col.toggle("Expand subgraphs", value=True, key=PREFIX + "xray")
breakpoints = Breakpoints(tuple(pause_before), tuple(pause_after), step_mode)


# -- the thread now ---------------------------------------------------------------------------

source = resources.own_source()
try:
    tree = resources.tree_cache().get(source, context.thread_id)
except UnknownThread:
    tree = None
outcome = current_outcome(graph, thread_config, tree) if tree else RunOutcome("new")
values = resources.values_cache().get(source, tree, tree.head) if tree else {}
source.close()
last_log, last_failure = st.session_state.get(LOG_KEY, {}).get(context.thread_id, ((), None))

left, right = st.columns([2, 3])
with left:
    drawing = st.empty()


def draw(running: str | None = None, done: RunOutcome | None = None) -> None:
    """The graph, with the node that runs now, or where the thread waits or failed."""
    shown = done or outcome
    failed = shown.failure.node if shown.failure else None
    waiting = () if running else shown.next
    drawing.graphviz_chart(
        graph_dot(graph, waiting_at=waiting, interrupt_before=pause_before,
                  interrupt_after=pause_after, xray=xray, running=running, failed=failed),
        width="content",
    )


draw()


def stream(run: GraphRun, what: str) -> None:
    """Show a run as it goes (each node's update, the graph highlighting the node that runs),
    keep its log for the next page run, and rerun to show where the thread stands."""
    lines: list[str] = []
    with right, st.status(f"{what}…", expanded=True) as status:
        for step in run:
            if step.kind == "start":
                draw(running=step.node)
                status.update(label=f"{what}: running {step.node}…")
            elif step.kind == "update":
                lines.append(f"{step.node}: " + ("; ".join(step.lines) or "(no change)"))
                status.write(f"**{step.node}** " + ("  \n".join(step.lines) or "(no change)"))
            elif step.kind == "pause":
                lines.append("paused")
        done = run.outcome
        status.update(label=f"{what}: {done.message}",
                      state="error" if done.status in ("failed", "recursion") else "complete")
    logs = dict(st.session_state.get(LOG_KEY, {}))
    logs[context.thread_id] = (tuple(lines[-SHOWN_LOG:]), done.failure)
    st.session_state[LOG_KEY] = logs
    flash({"failed": "error", "recursion": "warning", "waiting": "info", "paused": "info"}.get(
        done.status, "success"), f"{what}: {done.message}")
    st.rerun()


# -- controls -------------------------------------------------------------------------------

with right:
    show_flash()
    stop_col, status_col = st.columns([1, 5], vertical_alignment="center")
    if stop_col.button("Stop", icon=":material/stop_circle:", key=PREFIX + "stop",
                       help="Stops a run between two steps; every finished step is kept."):
        # The click itself ended the run in progress (Streamlit stops a script when a widget
        # changes); this run only says so.
        st.warning("Stopped: the thread keeps every step that finished; Continue goes on.",
                   icon=":material/stop_circle:")
    status_col.markdown({
        "new": "**New thread**: give it its first input below.",
        "finished": "**Finished.** Send more input to carry on.",
        "paused": f"**Paused** before **{', '.join(outcome.next)}**.",
        "waiting": "**Waiting for an answer.**",
        "failed": f"**Failed** in **{outcome.failure.node if outcome.failure else '?'}**.",
    }.get(outcome.status, outcome.message))

    if outcome.status == "paused" and st.button("Continue", icon=":material/resume:",
                                                type="primary", key=PREFIX + "continue"):
        stream(GraphRun(graph, thread_config, None, breakpoints, limit), "Continue")

    if outcome.status == "waiting":
        with st.container(border=True):
            answers = {}
            for index, question in enumerate(outcome.questions):
                st.markdown(f":material/help: **{question.node}** asks: {question.text}")
                answers[question.interrupt_id] = st.text_area(
                    "Answer", key=f"{PREFIX}answer-{question.interrupt_id or index}",
                    help="JSON when it parses (true, 3, {\"ok\": 1}), else plain text.",
                    height=68)
            if st.button("Resume", icon=":material/reply:", type="primary",
                         key=PREFIX + "resume"):
                command = resume_command(outcome.questions,
                                         {k: parse_answer(v) for k, v in answers.items()})
                stream(GraphRun(graph, thread_config, command, breakpoints, limit), "Resume")

    if outcome.status == "failed":
        failure = last_failure or outcome.failure
        st.error(f"**{failure.node}** failed: {failure.error}", icon=":material/error:")
        if failure.traceback:
            st.code(failure.traceback, language="python")
        reload_col, retry_col = st.columns(2)
        if reload_col.button("Reload graph", icon=":material/refresh:", key=PREFIX + "reload",
                             width="stretch", help="Import the graph's module again, after "
                             "you fixed it; the thread stays as it is."):
            try:
                resources.reload()
            except AppLoadError as exc:
                flash("error", f"Not reloaded: {exc}")
            else:
                flash("success", "Graph reloaded: press Retry to run the failed step again.")
            st.rerun()
        if retry_col.button("Retry", icon=":material/replay:", type="primary",
                            key=PREFIX + "retry", width="stretch"):
            stream(GraphRun(graph, thread_config, None, breakpoints, limit), "Retry")


# -- input ----------------------------------------------------------------------------------


def chat_actions(turn: ChatTurn, key: str) -> None:
    """``Edit and fork`` on a human message, ``Regenerate`` on an AI one."""
    message = turn.message
    if message.id is None:
        return
    if message.role == "human":
        with st.popover("Edit and fork", icon=":material/edit:"):
            text = st.text_area("Edited message", value=message.text, key=f"{key}-edit")
            if st.button("Fork from here", key=f"{key}-fork", type="primary"):
                try:
                    run = edit_and_fork(graph, thread_config, message.id, text, breakpoints)
                except (ChatActionRefused, EditRefused) as exc:
                    flash("error", f"Not forked, nothing was written: {exc}")
                    st.rerun()
                stream(run, "Edit and fork")
    elif message.role == "ai" and st.button("Regenerate", icon=":material/autorenew:",
                                            key=f"{key}-regenerate"):
        try:
            run = regenerate(graph, thread_config, message.id, breakpoints)
        except ChatActionRefused as exc:
            flash("error", f"Not regenerated: {exc}")
            st.rerun()
        stream(run, "Regenerate")


chats = conversations(values) if app.has_messages else {}
with right:
    if app.has_messages:
        chat_col, state_col = st.columns([3, 2])
        with chat_col:
            if chats.get("messages"):
                conversation(chats["messages"], f"{PREFIX}chat-{tree.head}", chat_actions)
            else:
                st.caption("No messages yet: say something below.")
        with state_col:
            st.markdown("**State**")
            rest = {k: v for k, v in values.items() if k != "messages"}
            st.json(to_jsonable(rest), expanded=1)
            st.caption(f"messages: {len(chats.get('messages', [])):,}, shown as the chat")
    else:
        fields = input_fields(app.template, app.input_schema)
        with st.form(PREFIX + "input", border=True):
            st.markdown("**Input**")
            typed = {f.name: st.text_input(f"{f.name} · {f.kind[:60]}", value=f.default,
                                           help=f.description or None, key=f"{PREFIX}in-{f.name}")
                     for f in fields}
            go = st.form_submit_button("Run", icon=":material/play_arrow:", type="primary")
        if go:
            try:
                payload = parse_input(fields, typed)
            except InputRefused as exc:
                st.error(f"Not run: {exc}", icon=":material/error:")
            else:
                stream(GraphRun(graph, thread_config, payload, breakpoints, limit), "Run")
        st.markdown("**State**")
        st.json(to_jsonable(values) if values else {"(empty)": "no run yet"}, expanded=2)
    if last_log:
        with st.expander(f"Last run · {len(last_log)} steps", icon=":material/list:"):
            st.code("\n".join(last_log), language=None, wrap_lines=True)

if app.has_messages:
    said = st.chat_input("Message", key=PREFIX + "message")
    if said:
        stream(GraphRun(graph, thread_config, {"messages": [HumanMessage(said)]}, breakpoints,
                        limit), "Run")
