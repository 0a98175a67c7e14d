"""History page: the thread's whole checkpoint tree, an inspector, and time-travel actions."""

from __future__ import annotations

import json

import streamlit as st

from playground.agent.turns import write_refused
from playground.apps.launch import choice_from_env
from playground.apps.state_fields import EditRefused, describe_hint, graph_nodes, state_fields
from playground.event_loop import shared_loop
from playground.lessons import tour
from playground.runtime.driven import settings_in
from playground.runtime.run import parse_answer
from playground.runtime.store_log import changes_of
from playground.runtime.time_travel import (
    EDITABLE_ROLES,
    fork_from_form,
    form_changes,
    form_field,
    replay_from,
    resume_thread,
)
from playground.timetravel.errors import UnknownThread
from playground.timetravel.messages import describe, message_list
from playground.timetravel.recording import record_branch
from playground.timetravel.tree import CheckpointTree
from playground.timetravel.tree_layout import kept_layout
from playground.ui import resources
from playground.ui.components.checkpoints import (
    download_thread,
    inspector,
    namespace_label,
    select,
    selected_checkpoint,
    stepper,
    walked_tip,
)
from playground.ui.components.clone import clone_note
from playground.ui.components.compare import COMPARE, compare_view, open_compare, view_switch
from playground.ui.components.history_tree import history_tree, tree_navigation
from playground.ui.components.missing_nodes import missing_nodes_warning
from playground.ui.components.regression_export import export_test_button
from playground.ui.components.rerun import (
    outcome_line,
    rerun_controls,
    stream_rerun,
)
from playground.ui.components.run_settings import (
    describe_settings,
    thread_settings,
    value_field,
)
from playground.ui.components.stale import refused_as_stale
from playground.ui.components.store_changes import store_changes_panel
from playground.ui.components.timeline_chart import timeline_panel
from playground.ui.markup import md_escape
from playground.ui.session import (
    PageContext,
    flash,
    no_checkpoints_yet,
    note,
    page_context,
    page_fragment,
    read_only,
    show_flash,
)

context = page_context()
st.title(":material/account_tree: History")
st.caption(
    "Every checkpoint of the thread, on every branch. Step through them, inspect one, replay "
    "from it or fork it with an edit: the old branch stays, a new one grows beside it."
)

source = resources.own_storage()
namespaces = source.namespaces(context.thread_id)
source.close()
namespace = ""
if len(namespaces) > 1:
    # A subgraph keeps its own checkpoints; they are browsed here, and acted on from the root.
    if st.session_state.get("history-ns") not in namespaces:
        st.session_state.pop("history-ns", None)  # another thread's namespace
    namespace = st.selectbox("Namespace", namespaces, format_func=namespace_label,
                             key="history-ns")


def _config(thread_id: str, checkpoint_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": "",
                             "checkpoint_id": checkpoint_id}}


def _refused_write(outcome: object) -> bool:
    """The ticket agent's run ended in a refused write (its 412): said, but never as a
    success. (Another graph's ``outcome`` key is its own business.)"""
    return resources.app().builtin and isinstance(outcome, str) and write_refused(outcome)


def _run_said(tree: CheckpointTree, what: str, result, origin: str) -> tuple[str, str]:
    """What a replay or a fork did, as (kind, line): a refused write is no success."""
    outcome = result.values.get("outcome")
    where = f"paused before {', '.join(result.next)}" if result.next else "finished"
    # From a checkpoint that already had children the run grows a sibling branch; from a leaf
    # it simply carries that branch on.
    branch = "on a new branch" if tree.children.get(origin) else "continuing this branch"
    return ("warning" if _refused_write(outcome) else "success",
            f"{what}: {len(result.new_checkpoint_ids)} new checkpoints {branch}, "
            f"{where}" + (f"; outcome: {outcome}" if outcome else ""))


def _after_run(tree: CheckpointTree, what: str, result, origin: str) -> None:
    flash(*_run_said(tree, what, result, origin))
    select(result.head_config["configurable"]["checkpoint_id"])


def _refused_as_stale(tree: CheckpointTree, what: str) -> bool:
    """The debugger's own 412 (:func:`~playground.ui.components.stale.refused_as_stale`); a
    refused action moves the page to the new head."""
    moved = refused_as_stale(tree, what)
    if moved is None:
        return False
    select(moved.head)
    return True


def _replay(graph, tree: CheckpointTree, checkpoint_id: str) -> None:
    _forget_fork(tree.thread_id)
    if _refused_as_stale(tree, "Replay"):
        return
    try:
        result = replay_from(graph, _config(tree.thread_id, checkpoint_id))
        _after_run(tree, f"Replayed from #{tree.ordinal(checkpoint_id)}", result, checkpoint_id)
        if result.new_checkpoint_ids:
            note(tour.REPLAYED, f"replayed from #{tree.ordinal(checkpoint_id)}")
    except ValueError as exc:
        flash("error", f"Not replayed: {exc}")


RESUME_REFUSED_KEY = "history-resume-refused"  # (thread, head, line) of a refused resume


def _answer_key(tree: CheckpointTree) -> str:
    """The Answer field of the head's question: one per thread and head, so an answer typed
    for one question is never sent to the next."""
    return f"history-answer-{tree.thread_id}-{tree.head}"


def _resume_head(graph, tree: CheckpointTree) -> None:
    """Resume (or retry) the head; at a question, with what the Answer field holds. An empty
    answer is refused before anything runs (:func:`resume_thread` checks it)."""
    _forget_fork(tree.thread_id)
    if _refused_as_stale(tree, "Resume"):
        return
    thread_id = tree.thread_id
    typed = st.session_state.get(_answer_key(tree), "")
    result = resume_thread(graph, thread_id, parse_answer(typed) if typed.strip() else None)
    if result.refused:
        # Refused before anything ran: said under the button pressed, the thread unchanged.
        st.session_state[RESUME_REFUSED_KEY] = (thread_id, tree.head, result.line)
        return
    outcome = result.values.get("outcome") if result.ok else None
    kind = "error" if not result.ok else "warning" if _refused_write(outcome) else "success"
    flash(kind, result.line + (f"; outcome: {outcome}" if outcome else ""))
    select(graph.get_state({"configurable": {"thread_id": thread_id}})
           .config["configurable"]["checkpoint_id"])


def _is_conversation(hint: object, value: object) -> bool:
    """A ``list[message]`` field holding a conversation, or a plain ``list`` one (a
    DeltaChannel's hint names no item type): edited as one, message by message."""
    return describe_hint(hint) in ("list[message]", "list") and bool(message_list(value))


def _conversation_fields(key: str, value: object, selected: str) -> None:
    """A conversation in the fork form: each message's text as text (its role above it); the
    parts that are not text (tool calls, a tool's result) shown, not edited."""
    st.markdown(f"**{md_escape(key)}** · list[message]: edit a message's text")
    for number, message in enumerate(message_list(value) or (), 1):
        label = f"{number} · {message.role}"
        if message.role in EDITABLE_ROLES and not message.tool_calls and message.id:
            st.text_area(label, value=message.text, height=68,
                         key=f"message-{key}-{selected}-{message.id}")
        else:
            shown = " / ".join(message.lines(200))
            st.caption(f"{md_escape(label)}: {md_escape(shown, 400)} (kept as it is)")


def _message_texts(fields: dict, values: dict, checkpoint_id: str) -> dict[str, dict[str, str]]:
    """What the conversation fields hold: each message's text as typed, by message id."""
    state = st.session_state
    found = {}
    for key, hint in fields.items():
        if _is_conversation(hint, values.get(key)):
            prefix = f"message-{key}-{checkpoint_id}-"
            found[key] = {message.id: state[prefix + message.id]
                          for message in message_list(values.get(key)) or ()
                          if message.id and prefix + message.id in state}
    return found


# The last fork's outcome, by thread: {thread_id: (kind, line)}. Said beside the form, where
# the click was, and kept there (the form's fields rerun the page as they are typed) until the
# next action on the thread: another fork, a replay, a resume, a re-run.
FORK_SAID = "history-fork-said"


def _say_fork(thread_id: str, kind: str, line: str) -> None:
    st.session_state[FORK_SAID] = {**st.session_state.get(FORK_SAID, {}),
                                   thread_id: (kind, line)}


def _forget_fork(thread_id: str) -> None:
    st.session_state.get(FORK_SAID, {}).pop(thread_id, None)


def _fork_said(thread_id: str) -> None:
    """What the last fork of this thread did, until the next action."""
    kind, line = st.session_state.get(FORK_SAID, {}).get(thread_id, ("", ""))
    if line:
        getattr(st, kind)(md_escape(line))


def _form_now(fields: dict, values: dict, checkpoint_id: str
              ) -> tuple[dict[str, str | None], dict[str, dict[str, str]], str]:
    """What the fork form holds now: each field's text (None where its "null" box is ticked),
    each conversation's message texts, and the "Other keys" text. A field the browser did not
    send holds what the form showed."""
    state = st.session_state
    texts = _message_texts(fields, values, checkpoint_id)
    typed: dict[str, str | None] = {}
    for key, hint in fields.items():
        if key in texts:
            continue
        shown = form_field(key, hint, values.get(key))
        box = f"field-{key}-{checkpoint_id}"
        null = shown.nullable and state.get(f"{box}-null", shown.text is None)
        typed[key] = None if null else state.get(box, shown.text or "")
    return typed, texts, state.get(f"extra-{checkpoint_id}", "{}")


def _fork(graph, tree: CheckpointTree, checkpoint_id: str, fields: dict, values: dict,
          as_node: str) -> None:
    """Fork with what the form holds; a refused edit writes nothing and says why."""
    _forget_fork(tree.thread_id)
    if _refused_as_stale(tree, "Fork with edit"):
        return
    typed, texts, extra = _form_now(fields, values, checkpoint_id)
    try:
        changes, result = fork_from_form(
            graph, tree.thread_id, checkpoint_id, typed, values, extra,
            st.session_state.get(f"as-node-{checkpoint_id}", as_node), texts)
    except (EditRefused, ValueError) as exc:
        _say_fork(tree.thread_id, "error", f"Edit refused, nothing was written: {exc}")
        return
    # as a person reads the edit: an ETag as "v2" (no backslashes), a message as its role and
    # its new text
    said = describe(json.loads(json.dumps(changes, default=lambda m: f"{m.type}: {m.content}")),
                    limit=600)
    _say_fork(tree.thread_id, *_run_said(tree, f"Forked #{tree.ordinal(checkpoint_id)} with "
                                         f"{said}", result, checkpoint_id))
    select(result.head_config["configurable"]["checkpoint_id"])
    note(tour.FORKED, f"forked #{tree.ordinal(checkpoint_id)}")


def _differs(graph, fields: dict, values: dict, checkpoint_id: str) -> bool:
    """Whether the fork form holds an edit: a value that differs from the checkpoint's, or
    typed text that is no value (the click then says why, and writes nothing)."""
    typed, texts, extra = _form_now(fields, values, checkpoint_id)
    try:
        return bool(form_changes(graph, typed, values, extra, texts))
    except EditRefused:
        return True


# Each field's tooltip: how what is typed there is read.
AS_TEXT = "Typed as it is: what you type is the string, quotes and all."
AS_JSON = 'Typed as JSON: 3, true, null, ["a"], {"a": 1}, or a string in quotes.'


def _fork_form(graph, tree: CheckpointTree, selected: str, fields: dict, values: dict) -> None:
    """History's "Edit this state and fork" form: a ``str`` field as text, any other as JSON,
    a conversation message by message; Fork with edit only while something differs.

    Plain widgets, not an ``st.form``: a form tells nothing before it is submitted, so its
    button could only be refused after the click ("empty edit"). Here a text box commits what
    is typed after a short pause (a text area when it loses focus), the page reruns, and Fork
    with edit is enabled as soon as a value differs from the checkpoint's. Enter in a field
    commits it and nothing more: only the button writes a checkpoint.
    """
    st.markdown("**Edit this state and fork**: change any value, then run on. Text fields "
                "take the text as it is; the others take JSON.")
    for key, hint in fields.items():
        if _is_conversation(hint, values.get(key)):
            _conversation_fields(key, values.get(key), selected)
            continue
        field = form_field(key, hint, values.get(key))
        value_field(st, f"{key} · {field.kind}", field.text, f"field-{key}-{selected}",
                    nullable=field.nullable, help=AS_TEXT if field.is_text else AS_JSON,
                    live=True)
    st.text_area("Other keys (JSON object)", value="{}", key=f"extra-{selected}",
                 help="Keys outside the schema are refused, never silently dropped.")
    nodes = list(graph_nodes(graph))
    writer = next(iter(tree.details[selected].writers), None)
    default_node = writer if writer in nodes else nodes[0]
    st.selectbox("As node", nodes, index=nodes.index(default_node), key=f"as-node-{selected}",
                 help="The edit acts as if this node had written it; what runs next follows "
                 "from that node's edges.")
    differs = _differs(graph, fields, values, selected)
    st.button("Fork with edit", icon=":material/call_split:", disabled=not differs,
              on_click=_fork, args=(graph, tree, selected, fields, values, default_node))
    if not differs:
        st.caption(f"Nothing differs from checkpoint #{tree.ordinal(selected)} yet: change a "
                   "value to fork. A text box takes what you type after a short pause, a text "
                   "area once you click outside it.")
    _fork_said(tree.thread_id)


def _what_ran(graph, tree: CheckpointTree, selected: str) -> None:
    """What the run that wrote this checkpoint was given (context, configurable), and what its
    step wrote to the long-term store."""
    try:
        snapshot = graph.get_state(_config(tree.thread_id, selected))
    except Exception:  # unreadable with the graph's serializer: the inspector said why
        return
    given = describe_settings(settings_in(snapshot.metadata))
    if given:
        st.caption(f":material/settings: Ran with {md_escape(given, 600)}")
    store = resources.store()
    parent = tree.parent_of(selected)
    if store is None or parent is None or resources.app().runs_on_server:
        return  # (a server's store keeps no log of which step wrote what)
    changes = shared_loop().run(changes_of(store, tree.thread_id, from_checkpoint=parent))
    writers = set(tree.details[selected].writers)
    store_changes_panel([c for c in changes if not writers or c.node in writers],
                        "This step wrote to the store")


def _actions(graph, source, tree: CheckpointTree, selected: str, ending) -> None:
    """Replay, resume (or retry) and the fork form, for the picked checkpoint of the root
    graph; the re-run, on the branch the person walked."""
    st.divider()
    st.markdown("**Actions on this checkpoint**")
    replay_col, resume_col = st.columns(2)
    # Each action runs in its button's on_click callback, before the page's next run, so that
    # one run draws the result (not a run that acts, then st.rerun() to draw). The callbacks
    # get the tree this run drew: what they say of it is what the user saw.
    replay_col.button("Replay from here", icon=":material/replay:", type="primary",
                      width="stretch", on_click=_replay, args=(graph, tree, selected))
    if tree.head in tree.failed:
        # A failed run stopped: nobody is asked anything. Running on from the head runs the
        # node that raised again (on the code as loaded now).
        resume_col.button("Retry the head", icon=":material/refresh:", width="stretch",
                          on_click=_resume_head, args=(graph, tree),
                          help="The head's node raised: run it again from the head.")
    elif tree.head in tree.stopped:
        # A person stopped the run in a node: Continue runs that node again from the head.
        resume_col.button("Continue the head", icon=":material/resume:", width="stretch",
                          on_click=_resume_head, args=(graph, tree),
                          help="The run was stopped here: run on from the head.")
    else:
        head = tree.tip_status(tree.head)
        if tree.head in tree.paused and head.asks:
            # The head waits for an answer: resuming it without one would only ask again.
            resume_col.markdown(f":material/help: **{md_escape(head.node or 'a node')}** asks: "
                                f"{md_escape(head.detail)}")
            resume_col.text_area("Answer", key=_answer_key(tree), height=68,
                                 help="JSON when it parses (true, 3, {\"ok\": 1}), else plain "
                                 "text. Resume the head runs on with it.")
        resume_col.button("Resume the head", icon=":material/resume:", width="stretch",
                          disabled=tree.head not in tree.paused, on_click=_resume_head,
                          args=(graph, tree))
    refused = st.session_state.pop(RESUME_REFUSED_KEY, None)  # under whichever was pressed
    if refused and refused[:2] == (tree.thread_id, tree.head):
        resume_col.error(md_escape(refused[2], 600), icon=":material/block:")

    values = resources.values_cache().get(source, tree, selected)
    with st.container(border=True, key="history-fork-form"):
        _fork_form(graph, tree, selected, state_fields(graph), values)
    if resources.app().runs_on_server:
        st.caption(SERVER_ONLY)
    else:
        layout = kept_layout(resources.tree_cache(), source, tree, ending)
        _rerun(graph, tree, selected, walked_tip(tree, selected),
               {branch.tip: branch.label for branch in layout.branches})


RERUN_AT = "history-rerun-at"
# What a graph an Agent Server runs does not offer here, and why.
SERVER_ONLY = ("Re-run on current code and Export as test need the graph's own code, which "
               "runs on the Agent Server, not here: start the playground on the graph itself "
               "(`playground run --graph` or `--config`) to re-run a branch or export it as a "
               "test.")


def _ask_rerun(tree: CheckpointTree, selected: str, tip: str) -> None:
    """The re-run button's callback: refused on a stale page, else the re-run of the branch
    to ``tip`` runs in the body of the run that follows (so its steps can be drawn as they
    happen)."""
    _forget_fork(tree.thread_id)
    if not _refused_as_stale(tree, "Re-run on current code"):
        st.session_state[RERUN_AT] = (tree.thread_id, selected, tip)


def _rerun(graph, tree: CheckpointTree, selected: str, walked: str, names: dict[str, str]
           ) -> None:
    """Re-run the branch after ``selected`` (the one walked, or the one picked at a fork
    point) on the graph as loaded now, streamed here, then open Compare on the original branch
    and the new one."""
    choice = rerun_controls(tree, selected, walked, names, "history-rerun", _ask_rerun)
    asked = st.session_state.pop(RERUN_AT, None)
    if not asked or asked[:2] != (tree.thread_id, selected):
        return
    storage = resources.own_storage()
    try:
        recording = record_branch(storage, tree, selected, asked[2])
    except ValueError as exc:
        flash("error", f"Not re-run, nothing was run: {exc}")
        st.rerun()
    finally:
        storage.close()
    outcome = stream_rerun(graph, recording, tree, choice)
    head = graph.get_state({"configurable": {"thread_id": tree.thread_id}}).config[
        "configurable"]["checkpoint_id"]
    flash(*outcome_line(outcome, recording))
    if head != recording.end and head not in tree.nodes:
        select(head)
        open_compare("history-view", "history-compare", recording.end, head)
    st.rerun()


@page_fragment
def explorer(context: PageContext, namespace: str) -> None:
    """The tree, the inspector and the actions: stepping, replaying or forking reruns only
    this part of the page."""
    runs = resources.runs_a_graph()  # a debugger on a place alone has no graph to run
    graph = None
    if runs:
        base = context.graph()
        graph = base.with_settings(thread_settings(resources.app(), base, context.thread_id))
    source = resources.own_storage()
    try:
        tree = resources.tree_cache().get(source, context.thread_id, namespace)
    except UnknownThread:
        no_checkpoints_yet(context.thread)
        return
    # the app's words for how a step ended, at the tips of its own root graph's branches
    ending = None if namespace or not runs else resources.app().step_ending
    try:
        show_flash()
        clone_note(context.thread)
        if view_switch("history-view") == COMPARE:
            compare_view(source, tree, "history-compare", ending=ending)
            return
        selected = selected_checkpoint(tree)
        if not namespace and not read_only() and runs:  # its Fork from #N writes
            missing_nodes_warning(source, tree, graph, "history-fork-fitting")
        stepper(tree, selected)
        download_col, test_col, _ = st.columns([1, 1, 2])
        with download_col:
            download_thread(resources.checkpoints_target(), context.thread_id, context.thread,
                            key="history-download")
        if not namespace and runs and not resources.app().runs_on_server:
            with test_col:
                export_test_button(resources.checkpoints_target(), context.thread_id, selected,
                                   tree.ordinal(selected), context.thread, resources.app(),
                                   choice_from_env(), graph.settings, key="history-export-test")
        left, right = st.columns([5, 4])
        with left:
            tree_navigation(source, tree, selected, ending=ending)
            history_tree(source, tree, selected, "history-tree", ending=ending)
        with right:
            inspector(source, tree, selected)
            if not namespace and not resources.app().builtin:  # the agent has neither
                _what_ran(graph, tree, selected)
            if read_only():
                st.caption(":material/visibility: Read-only: no replay, resume or fork here.")
            elif not runs:
                st.caption(":material/info: Replay, fork and re-run run your graph: start the "
                           "playground with it (`--graph path/to/app.py:graph` or `--config "
                           "langgraph.json`).")
            elif namespace:
                st.caption("Replay and fork start from the root graph's checkpoints: pick "
                           "(root graph) above to act on this thread.")
            else:
                _actions(graph, source, tree, selected, ending)
        if not namespace:
            timeline_panel(source, tree, selected, "history-timeline")
    finally:
        source.close()


explorer(context, namespace)
