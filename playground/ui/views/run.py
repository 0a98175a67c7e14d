"""Run page: run the app's graph in the browser, node by node, pause it, answer it, fork it.

The graph is drawn from ``get_graph(xray=1)`` with the running and next nodes highlighted; the
input is a chat box when the state has ``messages``, else a form from the input schema. A run
streams each node's update as it arrives; breakpoints (``Pause before`` / ``Pause after``, step
mode) stop it, ``Continue`` goes on, ``interrupt()`` questions get an ``Answer`` and ``Resume``,
a node error shows the user's traceback with ``Reload graph`` and ``Retry``. Every action is a
named command of ``playground.runtime``; this page only draws and dispatches.

Every action is taken on the thread as this page drew it: when another tab (or process) moved
the thread on since (ran, forked, answered), the action is refused before anything runs, and the
page says which checkpoint is new and draws the thread as it is now (the debugger's own 412,
:mod:`playground.ui.components.stale`, as on History).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import streamlit as st
from langchain_core.messages import HumanMessage
from streamlit.delta_generator import DeltaGenerator

from playground.apps.app import App
from playground.apps.drawing import graph_dot
from playground.apps.inputs import InputRefused, input_fields, parse_input
from playground.apps.json_text import parse_json
from playground.apps.loader import AppLoadError
from playground.apps.state_fields import EditRefused
from playground.lessons import tour
from playground.runtime.chat import ChatActionRefused, edit_and_fork, regenerate
from playground.runtime.driven import DrivenGraph
from playground.runtime.review import ReviewRefused, review_answer
from playground.runtime.run import (
    DEFAULT_RECURSION_LIMIT,
    Breakpoints,
    GraphRun,
    RunOutcome,
    current_outcome,
    parse_answer,
    resume_command,
)
from playground.runtime.time_travel import edit_state
from playground.timetravel.errors import UnknownThread
from playground.timetravel.messages import ChatTurn, conversations
from playground.timetravel.signals import AnsweredQuestion, answered_questions
from playground.timetravel.storage import Storage
from playground.timetravel.tree import CheckpointTree
from playground.ui import resources
from playground.ui.components.conversation import conversation
from playground.ui.components.missing_nodes import missing_nodes_warning
from playground.ui.components.review import review_controls
from playground.ui.components.run_settings import settings_form, value_field
from playground.ui.components.stale import refused_as_stale, unseen_thread
from playground.ui.components.store_changes import store_changes_panel
from playground.ui.components.text_block import state_block, text_block
from playground.ui.markup import md_escape
from playground.ui.session import (
    THREAD_KEY,
    PageContext,
    flash,
    note,
    page_context,
    show_flash,
)

PREFIX = "run-"
LOG_KEY = PREFIX + "log"  # {thread_id: (lines of the last run, its outcome)}
IN_FLIGHT_KEY = PREFIX + "in-flight"  # the run streaming now, for the next page run to halt
STOPPED_KEY = PREFIX + "stopped"  # Stop was clicked: the next page run says so
STALE_KEY = PREFIX + "stale"  # set by a control's callback: this run's click was refused
SHOWN_LOG = 200
TOKEN_REDRAW_S = 0.05  # a streaming message is redrawn at most this often (each redraw is a delta)


@dataclass(frozen=True)
class _Options:
    """What the Breakpoints and settings expander holds."""

    pause_before: list[str]
    pause_after: list[str]
    breakpoints: Breakpoints  # the pauses above, and step mode
    limit: int  # the recursion limit
    xray: bool  # subgraphs drawn expanded


@dataclass(frozen=True)
class _ThreadNow:
    """The thread as this page run read it: what the page draws, and what every action is taken
    on."""

    tree: CheckpointTree | None  # None: the thread has no checkpoint yet
    outcome: RunOutcome
    values: dict
    chat_answers: dict[int, list[AnsweredQuestion]]
    drawn: CheckpointTree  # what each control hands its callback (an empty one for a new thread)
    stale: bool  # this page run's click was refused: act on nothing


@dataclass(frozen=True)
class _Page:
    """What an action on this page is taken with, and where a run it starts is shown."""

    app: App
    thread_id: str
    graph: DrivenGraph  # with the context form's settings
    thread_config: dict
    options: _Options
    settings_refused: str | None  # why the context form's values do not fit, else None
    thread: _ThreadNow
    drawing: DeltaGenerator  # the graph's placeholder
    right: DeltaGenerator  # the column a run streams into
    stop_slot: DeltaGenerator  # where Stop shows while a run streams


# -- title ----------------------------------------------------------------------------------


def _header(app: App) -> None:
    """The page's title, and in words what the app is and where its checkpoints go."""
    # The graph's name is its author's identifier (support_chat): said in the caption, as a
    # name, so the heading stays words.
    st.title(":material/play_circle: Run")
    st.caption(
        f"Graph **{md_escape(app.name)}**. "
        + (f"{md_escape(app.description)}. " if app.description else "")
        + f"{_origin_in_words(app)} Run it, pause it, answer its questions, edit and fork its "
        "threads; every run lands in History."
    )


def _origin_in_words(app: App) -> str:
    """Where the graph comes from and where its checkpoints are kept, as sentences."""
    if app.runs_on_server:
        return (f"It is served by {md_escape(app.spec)}: every run, edit and fork goes through "
                "the server's API.")
    source, _, attr = app.spec.rpartition(":")
    made = ("It comes with the playground." if app.builtin
            else f"It is **{md_escape(attr)}** in {md_escape(source)}." if source
            else f"It is {md_escape(app.spec)}.")
    return f"{made} Its checkpoints are kept in {md_escape(resources.place().label)}."


# -- threads ------------------------------------------------------------------------------


def _threads(context: PageContext) -> list[str]:
    """Thread names this session may open: its room's, and the app's own (``/id``)."""
    source = resources.own_storage()
    try:
        ids = [t.thread_id for t in source.threads()]
    finally:
        source.close()
    names = (context.workspace.thread_name(thread_id) for thread_id in ids)
    return [name for name in names if name is not None]  # other rooms' threads stay hidden


def _pick_thread() -> None:
    """The picker's callback: the session opens the picked thread."""
    st.session_state[THREAD_KEY] = st.session_state[PREFIX + "thread"]


def _new_thread(existing: list[str]) -> None:
    """New thread's callback: the session opens the first ``thread-N`` not in ``existing``."""
    number = len(existing) + 1
    while f"thread-{number}" in existing:
        number += 1
    st.session_state[THREAD_KEY] = f"thread-{number}"


def _thread_picker(context: PageContext) -> None:
    """The Thread picker and the New thread button."""
    threads = _threads(context)
    if context.thread not in threads:
        threads = [context.thread, *threads]
    pick_col, new_col = st.columns([4, 1], vertical_alignment="bottom")
    # The picker shows the session's thread, whatever moved it (New thread, the sidebar, a link).
    st.session_state[PREFIX + "thread"] = context.thread
    pick_col.selectbox("Thread", threads, key=PREFIX + "thread", on_change=_pick_thread,
                       help="This room's threads, and threads the app wrote itself (/id).")
    new_col.button("New thread", icon=":material/add:", on_click=_new_thread, args=(threads,),
                   width="stretch")


# -- breakpoints and settings -----------------------------------------------------------------


def _run_options(app: App) -> _Options:
    """The Breakpoints and settings expander: where runs pause, the recursion limit, and how
    the graph is drawn."""
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
    return _Options(pause_before, pause_after,
                    Breakpoints(tuple(pause_before), tuple(pause_after), step_mode), limit, xray)


# -- the thread now ---------------------------------------------------------------------------


def _halt_streaming_run() -> None:
    """End the run a previous page run left streaming, if any.

    A click while a run streams (Stop above all) starts this run in a new thread before the old
    one has stopped (Streamlit's fast reruns): the old run ends first, so the thread drawn here
    is the one it left, every finished step written, and what the actions below check against.
    """
    streaming_run = st.session_state.pop(IN_FLIGHT_KEY, None)
    if streaming_run is not None:
        streaming_run.halt()


def _answers_in_chat(source: Storage, tree: CheckpointTree
                     ) -> dict[int, list[AnsweredQuestion]]:
    """The answers given to the thread's ``interrupt()`` questions, by how many messages the
    state held while each question waited (where the chat draws it)."""
    placed: dict[int, list[AnsweredQuestion]] = {}
    for answered in answered_questions(tree.path_to(tree.head), tree.signals):
        waited = resources.values_cache().get(source, tree, answered.checkpoint_id)
        held = len(conversations(waited).get("messages", []))
        placed.setdefault(held, []).append(answered)
    return placed


def _thread_now(app: App, graph: DrivenGraph, thread_config: dict, thread_id: str
                ) -> _ThreadNow:
    """Read the thread: its checkpoints, where it stands, its values, its answered questions;
    and whether this page run's click was refused."""
    source = resources.own_storage()
    try:
        tree = resources.tree_cache().get(source, thread_id)
    except UnknownThread:
        tree = None
    outcome = current_outcome(graph, thread_config, tree) if tree else RunOutcome("new")
    values = resources.values_cache().get(source, tree, tree.head) if tree else {}
    chat_answers = _answers_in_chat(source, tree) if tree and app.has_messages else {}
    source.close()
    # What this run draws is what every action below is taken on: each control hands it to its
    # callback, which runs before the click's page run and refuses the click when the thread
    # holds a checkpoint this drawing did not. The next run draws the thread anew (after this
    # tab's own run, too), so a tab's own actions never trip it.
    drawn = tree if tree is not None else unseen_thread(thread_id)
    stale = bool(st.session_state.pop(STALE_KEY, False))
    return _ThreadNow(tree, outcome, values, chat_answers, drawn, stale)


def _last_run(thread_id: str) -> tuple:
    """The thread's last run from this session: its log lines, its failure (or None) and its
    store writes."""
    return st.session_state.get(LOG_KEY, {}).get(thread_id, ((), None, ()))


# -- the graph --------------------------------------------------------------------------------


def _graph_column() -> tuple[DeltaGenerator, DeltaGenerator]:
    """The two columns: the graph's placeholder and its legend on the left; returns the
    placeholder and the right column."""
    left, right = st.columns([2, 3])
    with left:
        drawing = st.empty()
        st.caption("Dashed arrows: the node before picks at run time (a conditional edge). "
                   "Amber: into a node with a pause before it. A subgraph is a dashed box; its "
                   "name is at its top right.")
    return drawing, right


def draw(drawing: DeltaGenerator, graph: DrivenGraph, options: _Options, outcome: RunOutcome,
         running: str | None = None) -> None:
    """The graph, with the node that runs now, or where the thread waits or failed."""
    failed = outcome.failure.node if outcome.failure else None
    waiting = () if running else outcome.next
    drawing.graphviz_chart(
        # No pause picked here: the run pauses where the graph was compiled to (LangGraph
        # takes a call's interrupt_before over the compiled one only when it names nodes).
        graph_dot(graph, waiting_at=waiting, interrupt_before=options.pause_before or None,
                  interrupt_after=options.pause_after, xray=options.xray, running=running,
                  failed=failed),
        width="content",
    )


# -- running ----------------------------------------------------------------------------------


def _refuse_if_moved(what: str, seen: CheckpointTree) -> None:
    """A control's callback: refuse ``what`` when the thread moved on since ``seen`` was drawn
    (the page then says so, and draws the thread as it is now).

    A click while this tab's own run still streams is refused in its own words: the thread
    moved because of that run, not another tab. The run is stopped after its last step, as
    Stop would, and the page draws where it stands.
    """
    streaming_run = st.session_state.pop(IN_FLIGHT_KEY, None)
    if streaming_run is not None and streaming_run.outcome is None:  # still going
        streaming_run.halt()
        flash("warning", f"{what} not done: this tab's run was still going, so it was stopped "
              "after its last finished step. Look at where the thread stands, then act.")
        st.session_state[STALE_KEY] = True
        return
    if refused_as_stale(seen, what):
        st.session_state[STALE_KEY] = True


def guarded(page: _Page, what: str, event: str = "on_click") -> dict:
    """The keywords that make a control refuse ``what`` on a stale drawing of the thread."""
    return {event: _refuse_if_moved, "args": (what, page.thread.drawn)}


def _stopped() -> None:
    """Stop's callback: the next page run says the run was stopped."""
    st.session_state[STOPPED_KEY] = True


def stream(page: _Page, run: GraphRun, what: str) -> None:
    """Show a run as it goes (messages token by token, each node's update, the graph
    highlighting the node that runs), keep its log for the next page run, and rerun to show
    where the thread stands."""
    lines: list[str] = []
    streaming: dict[str | None, list] = {}  # message id -> [placeholder, text, calls, drawn at]
    st.session_state[IN_FLIGHT_KEY] = run
    page.stop_slot.button("Stop", icon=":material/stop_circle:", key=PREFIX + "stop",
                          on_click=_stopped,
                          help="Stops the run between two steps; every finished step is kept.")
    with page.right, st.status(f"{what}…", expanded=True) as status:
        for step in run:
            if step.kind == "token":
                _token(status, streaming, step)
            elif step.kind == "start":
                draw(page.drawing, page.graph, page.options, page.thread.outcome,
                     running=step.node)
                status.update(label=f"{what}: running {md_escape(step.node, 200)}…",
                              expanded=True)
            elif step.kind == "update":
                lines.append(f"{step.node}: " + ("; ".join(step.lines) or "(no change)"))
                status.markdown(f"**{md_escape(step.node)}** " + (
                    "  \n".join(md_escape(line) for line in step.lines) or "(no change)"))
            elif step.kind == "pause":
                lines.append("paused")
        for held in streaming.values():
            _redraw(held, final=True)
        if st.session_state.get(IN_FLIGHT_KEY) is run:
            del st.session_state[IN_FLIGHT_KEY]
        done = run.outcome
        status.update(label=f"{what}: {md_escape(done.message, 300)}",
                      state="error" if done.status in ("failed", "recursion") else "complete")
    logs = dict(st.session_state.get(LOG_KEY, {}))
    logs[page.thread_id] = (tuple(lines[-SHOWN_LOG:]), done.failure, tuple(run.store_changes))
    st.session_state[LOG_KEY] = logs
    flash({"failed": "error", "recursion": "warning", "waiting": "info", "paused": "info",
           "stopped": "warning", "held": "warning"}.get(done.status, "success"),
          f"{what}: {done.message}")
    if done.status == "failed":  # the board marks the room stuck
        note(tour.FAILED, done.message)
    elif done.status in ("finished", "paused", "waiting", "held"):
        # What the tour checks: a run that got somewhere, an answer that resumed one, a fork.
        note(tour.RAN, f"{what}: {done.message}")
        if what == "Resume":
            note(tour.ANSWERED, done.message)
        elif what == "Edit and fork":
            note(tour.FORKED, done.message)
    st.rerun()


def _token(status, streaming: dict, step) -> None:
    """Grow a streaming message by one token (redrawn at most every TOKEN_REDRAW_S)."""
    held = streaming.get(step.message_id)
    if held is None:
        status.caption(f"{md_escape(step.node)} is writing…")
        held = streaming[step.message_id] = [status.empty(), "", [], 0.0]
    held[1] += step.text
    held[2].extend(step.tool_calls)
    if step.tool_calls or time.monotonic() - held[3] >= TOKEN_REDRAW_S:
        _redraw(held)


def _redraw(held: list, final: bool = False) -> None:
    """Draw a streaming message as it stands: its text (a cursor after it until ``final``) and
    the tool calls the model decided on."""
    placeholder, text, calls, _ = held
    shown = md_escape(text) + ("" if final else " ▌")
    for call in calls:  # a tool call shows as soon as the model decided it
        shown += f"  \n:material/build: tool call {md_escape(call, 300)}"
    placeholder.markdown(shown)
    held[3] = time.monotonic()


def go(page: _Page, payload, what: str) -> None:
    """Run the thread with ``payload`` (an input, an answer, or None to continue), unless the
    context form holds a value that does not fit: then nothing runs and the page says why."""
    if page.settings_refused:
        flash("error", f"Not run: {page.settings_refused}")
        st.rerun()
    stream(page, GraphRun(page.graph, page.thread_config, payload, page.options.breakpoints,
                          page.options.limit, tokens=page.app.has_messages), what)


def refuse_on_bad_settings(page: _Page) -> None:
    """Stop before an action that writes (a fork) when the context form does not fit."""
    if page.settings_refused:
        flash("error", f"Not forked, nothing was written: {page.settings_refused}")
        st.rerun()


def reload_graph() -> None:
    """Reload graph's callback: import the app's code again, and say whether it loaded."""
    try:
        resources.reload()
    except AppLoadError as exc:
        flash("error", f"Not reloaded: {exc}")
    else:
        flash("success", "Graph reloaded: the next run uses the code as it is now.")


# -- controls -------------------------------------------------------------------------------


def _status_row(app: App, outcome: RunOutcome) -> DeltaGenerator:
    """The last action's message, then a row: the slot Stop shows in while a run streams
    (returned), where the thread stands, and Reload graph."""
    show_flash()
    stop_col, status_col, reload_col = st.columns([1, 3.2, 1.6], vertical_alignment="center")
    # Stop is drawn here only while a run streams (stream() puts it in this slot).
    stop_slot = stop_col.empty()
    if st.session_state.pop(STOPPED_KEY, False):
        # The click itself ended the run in progress (Streamlit stops a script when a widget
        # changes); this run only says so.
        st.warning("Stopped: the thread keeps every step that finished; Continue runs it on.",
                   icon=":material/stop_circle:")
    failed_node = outcome.failure.node if outcome.failure else "?"
    status_col.markdown({
        "new": "**New thread**: give it its first input below.",
        "finished": "**Finished.** Send more input to carry on.",
        "paused": f"**Paused** before **{md_escape(', '.join(outcome.next))}**.",
        "waiting": "**Waiting for an answer.**",
        "held": f"**Paused by {md_escape(outcome.questions[0].node if outcome.questions else '?')}"
                "**: edit the state to go on.",
        "failed": f"**Failed** in **{md_escape(failed_node)}**.",
        "stopped": f"**Stopped** in **{md_escape(', '.join(outcome.next) or '?')}**: "
                   "Continue runs it on.",
    }.get(outcome.status, md_escape(outcome.message)))
    if not app.runs_on_server:  # a server reloads its own code (langgraph dev watches it)
        reload_col.button("Reload graph", icon=":material/refresh:", key=PREFIX + "reload",
                          width="stretch", on_click=reload_graph,
                          help="Import the graph's code again, after you changed it; the "
                          "threads stay as they are.")
    return stop_slot


def _continue_button(page: _Page) -> None:
    """Continue a run paused at a breakpoint."""
    if st.button("Continue", icon=":material/resume:", type="primary", key=PREFIX + "continue",
                 **guarded(page, "Continue")) and not page.thread.stale:
        go(page, None, "Continue")


def _answer_form(page: _Page) -> None:
    """An answer to each ``interrupt()`` question (review controls where the question is a
    review), and Resume."""
    questions = page.thread.outcome.questions
    with st.container(border=True):
        answers, refused = {}, None
        for index, question in enumerate(questions):
            question_key = f"{PREFIX}answer-{question.interrupt_id or index}"
            if question.review is not None:
                choices = review_controls(question.review, question_key)
                try:
                    answers[question.interrupt_id] = review_answer(question.review, choices)
                except ReviewRefused as exc:
                    refused = str(exc)
                continue
            st.markdown(f":material/help: **{md_escape(question.node)}** asks: "
                        f"{md_escape(question.text)}")
            answers[question.interrupt_id] = parse_answer(st.text_area(
                "Answer", key=question_key,
                help="JSON when it parses (true, 3, {\"ok\": 1}), else plain text.",
                height=68))
        if st.button("Resume", icon=":material/reply:", type="primary",
                     key=PREFIX + "resume", **guarded(page, "Resume")) and not page.thread.stale:
            if refused:
                flash("error", f"Not resumed: {refused}")
                st.rerun()
            go(page, resume_command(questions, answers), "Resume")


def _held_edit(page: _Page) -> None:
    """A run a node paused (NodeInterrupt): an answer does not get past it, so a form edits
    the state (Apply edit) for Continue to run on from."""
    question = page.thread.outcome.questions[0]
    st.warning(f"**{md_escape(question.node)}** paused the run: {md_escape(question.text)}. "
               "An answer does not get past this pause (NodeInterrupt): edit the state, "
               "then Continue.", icon=":material/front_hand:")
    with st.form(PREFIX + "held", border=True, enter_to_submit=False):  # only its button writes
        edit_text = st.text_area("State changes (JSON)", value="{}", key=PREFIX + "held-edit",
                                 help="The keys to change, such as {\"text\": \"shorter\"}.")
        as_node = st.selectbox(
            "As node", [None, *page.app.nodes], key=PREFIX + "held-as",
            format_func=lambda n: "(the last node that wrote)" if n is None else n)
        if st.form_submit_button("Apply edit", icon=":material/edit:", type="primary",
                                 **guarded(page, "Apply edit")) and not page.thread.stale:
            try:
                edit_state(page.graph, page.thread_config,
                           parse_json(edit_text, refuse=EditRefused), as_node=as_node)
            except EditRefused as exc:
                flash("error", f"Edit refused, nothing was written: {exc}")
            else:
                flash("success", "Edited: press Continue to run on from the new state.")
            st.rerun()


def _failure(page: _Page, last_failure) -> None:
    """The node that failed, its error and traceback (this session's last run's, when it has
    one), and Retry."""
    failure = last_failure or page.thread.outcome.failure
    st.error(f"**{md_escape(failure.node)}** failed: {md_escape(failure.error)}",
             icon=":material/error:")
    if failure.traceback:
        st.code(failure.traceback, language="python")
    if st.button("Retry", icon=":material/replay:", type="primary", key=PREFIX + "retry",
                 **guarded(page, "Retry")) and not page.thread.stale:
        go(page, None, "Retry")


# -- input ----------------------------------------------------------------------------------


def chat_actions(page: _Page, turn: ChatTurn, key: str) -> None:
    """``Edit and fork`` on a human message, ``Regenerate`` on an AI one."""
    message, stale = turn.message, page.thread.stale
    if message.id is None:
        return
    if message.role == "human":
        with st.popover("Edit and fork", icon=":material/edit:"):
            text = st.text_area("Edited message", value=message.text, key=f"{key}-edit")
            if st.button("Fork from here", key=f"{key}-fork", type="primary",
                         **guarded(page, "Edit and fork")) and not stale:
                refuse_on_bad_settings(page)
                try:
                    run = edit_and_fork(page.graph, page.thread_config, message.id, text,
                                        page.options.breakpoints)
                except (ChatActionRefused, EditRefused) as exc:
                    flash("error", f"Not forked, nothing was written: {exc}")
                    st.rerun()
                run.tokens = True
                stream(page, run, "Edit and fork")
    elif message.role == "ai" and st.button("Regenerate", icon=":material/autorenew:",
                                            key=f"{key}-regenerate",
                                            **guarded(page, "Regenerate")) and not stale:
        refuse_on_bad_settings(page)
        try:
            run = regenerate(page.graph, page.thread_config, message.id,
                             page.options.breakpoints)
        except ChatActionRefused as exc:
            flash("error", f"Not regenerated: {exc}")
            st.rerun()
        run.tokens = True
        stream(page, run, "Regenerate")


def _chat_and_state(page: _Page) -> None:
    """The conversation (with its actions on each message) beside the rest of the state."""
    thread = page.thread
    chats = conversations(thread.values)
    chat_col, state_col = st.columns([3, 2])
    with chat_col:
        if chats.get("messages"):
            conversation(chats["messages"], f"{PREFIX}chat-{thread.tree.head}",
                         partial(chat_actions, page), answers=thread.chat_answers)
        else:
            st.caption("No messages yet: say something below.")
    with state_col:
        st.markdown("**State**")
        state_block({k: v for k, v in thread.values.items() if k != "messages"})
        st.caption(f"messages: {len(chats.get('messages', [])):,}, shown as the chat")


def _input_form_and_state(page: _Page) -> None:
    """A form of the graph's input schema, with Run, then the state."""
    app, values = page.app, page.thread.values
    fields = input_fields(app.template, app.input_schema, app.managed_keys)
    with st.form(PREFIX + "input", border=True):
        st.markdown("**Input**")
        typed = {f.name: value_field(st, f"{f.name} · {f.kind[:60]}", f.default,
                                     f"{PREFIX}in-{f.name}", nullable=f.nullable,
                                     help=f.description or None, in_form=True)
                 for f in fields}
        submitted = st.form_submit_button("Run", icon=":material/play_arrow:", type="primary",
                                          **guarded(page, "Run"))
    if submitted and not page.thread.stale:
        try:
            payload = parse_input(fields, typed)
        except InputRefused as exc:
            st.error(f"Not run: {md_escape(exc, 600)}", icon=":material/error:")
        else:
            go(page, payload, "Run")
    st.markdown("**State**")
    state_block(values, empty="(empty: no run yet)")


def _last_run_log(last_log: tuple[str, ...]) -> None:
    """The steps of this session's last run of the thread, folded."""
    with st.expander(f"Last run · {len(last_log)} steps", icon=":material/list:"):
        text_block("\n".join(last_log))


def _chat_box(page: _Page) -> None:
    """The chat input at the page's foot: a message starts a run."""
    said = st.chat_input("Message", key=PREFIX + "message",
                         **guarded(page, "Message", "on_submit"))
    if said and not page.thread.stale:
        go(page, {"messages": [HumanMessage(said)]}, "Run")


# -- the page ---------------------------------------------------------------------------------

context = page_context()
app = resources.app()
graph = context.graph()
thread_config = {"configurable": {"thread_id": context.thread_id}}

_header(app)
_thread_picker(context)
options = _run_options(app)
# The context (or configurable values) every run of this thread is given; a value that does not
# fit its type refuses every action below, so nothing runs on it.
settings, settings_refused = settings_form(app, graph, context.thread_id)
graph = graph.with_settings(settings)

_halt_streaming_run()
thread = _thread_now(app, graph, thread_config, context.thread_id)
last_log, last_failure, last_store = _last_run(context.thread_id)
drawing, right = _graph_column()
draw(drawing, graph, options, thread.outcome)

with right:
    stop_slot = _status_row(app, thread.outcome)
    # Every action below may start a run, which streams beside the graph with Stop in this slot.
    page = _Page(app, context.thread_id, graph, thread_config, options, settings_refused, thread,
                 drawing, right, stop_slot)
    missing = thread.tree is not None and missing_nodes_warning(
        resources.own_storage(), thread.tree, graph, PREFIX + "fork-fitting", settings_refused)
    if thread.outcome.status in ("paused", "stopped") and not missing:
        _continue_button(page)  # a stopped run goes on from the node it was stopped in
    if thread.outcome.status == "waiting":
        _answer_form(page)
    if thread.outcome.status == "held":
        _held_edit(page)
    if thread.outcome.status == "failed":
        _failure(page, last_failure)
    if app.has_messages:
        _chat_and_state(page)
    else:
        _input_form_and_state(page)
    store_changes_panel(last_store, "Store writes of the last run")
    if last_log:
        _last_run_log(last_log)

if app.has_messages:
    _chat_box(page)
