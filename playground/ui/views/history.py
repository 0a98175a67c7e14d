"""History page: the thread's whole checkpoint tree, an inspector, and time-travel actions."""

from __future__ import annotations

import json

import streamlit as st

from playground.agent.turns import resume
from playground.timetravel.edit import (
    EditRefused,
    describe_hint,
    graph_nodes,
    parse_values,
    state_fields,
)
from playground.timetravel.errors import UnknownThread
from playground.timetravel.replay import fork_with_edit, replay_from
from playground.ui import resources
from playground.ui.components.checkpoints import (
    download_thread,
    inspector,
    namespace_label,
    select,
    selected_checkpoint,
    stepper,
    tree_chart,
)
from playground.ui.session import flash, page_context, show_flash, where_runs_start

context = page_context()
st.title(":material/account_tree: History")
st.caption(
    "Every checkpoint of the thread, on every branch. Step through them, inspect one, replay "
    "from it or fork it with an edit: the old branch stays, a new one grows beside it."
)

graph = context.graph()
source = resources.own_source()
namespaces = source.namespaces(context.thread_id)
namespace = ""
if len(namespaces) > 1:
    # A subgraph keeps its own checkpoints; they are browsed here, and acted on from the root.
    if st.session_state.get("history-ns") not in namespaces:
        st.session_state.pop("history-ns", None)  # another thread's namespace
    namespace = st.selectbox("Namespace", namespaces, format_func=namespace_label,
                             key="history-ns")
try:
    tree = resources.tree_cache().get(source, context.thread_id, namespace)
except UnknownThread:
    page, name, icon = where_runs_start()
    st.info(f"Thread `{context.thread}` has no checkpoints yet: run a turn on the {name} page.",
            icon=":material/info:")
    st.page_link(page, label=f"Open {name}", icon=icon)
    st.stop()


def _config(checkpoint_id: str) -> dict:
    return {"configurable": {"thread_id": context.thread_id, "checkpoint_ns": "",
                             "checkpoint_id": checkpoint_id}}


def _after_run(what: str, result, origin: str) -> None:
    outcome = result.values.get("outcome")
    where = f"paused before {', '.join(result.next)}" if result.next else "finished"
    # From a checkpoint that already had children the run grows a sibling branch; from a leaf
    # it simply carries that branch on.
    branch = "on a new branch" if tree.children.get(origin) else "continuing this branch"
    flash("success", f"{what}: {len(result.new_checkpoint_ids)} new checkpoints {branch}, "
          f"{where}" + (f"; outcome: {outcome}" if outcome else ""))
    select(result.head_config["configurable"]["checkpoint_id"])


selected = selected_checkpoint(tree)
show_flash()
stepper(tree, selected)
download_thread(resources.checkpoints_target(), context.thread_id, context.thread,
                key="history-download")
left, right = st.columns([1, 1])
with left:
    tree_chart(source, tree, selected)
with right:
    inspector(source, tree, selected)
    if namespace:
        st.caption("Replay and fork start from the root graph's checkpoints: pick "
                   "(root graph) above to act on this thread.")
        source.close()
        context.close()
        st.stop()

    st.divider()
    st.markdown("**Actions on this checkpoint**")
    replay_col, resume_col = st.columns(2)
    if replay_col.button("Replay from here", icon=":material/replay:", type="primary",
                         width="stretch"):
        try:
            _after_run(f"Replayed from #{tree.ordinal(selected)}",
                       replay_from(graph, _config(selected)), selected)
        except ValueError as exc:
            flash("error", f"Not replayed: {exc}")
        st.rerun()
    if resume_col.button("Resume the head", icon=":material/resume:", width="stretch",
                         disabled=tree.head not in tree.paused):
        result = resume(graph, context.thread_id)
        flash("success" if result.ok else "error", result.line)
        select(graph.get_state({"configurable": {"thread_id": context.thread_id}})
               .config["configurable"]["checkpoint_id"])
        st.rerun()

    fields = state_fields(graph)
    values = source.values(context.thread_id, selected)
    with st.form("fork_form", border=True):
        st.markdown("**Edit this state and fork**: change any value (as JSON), then run on.")
        typed = {}
        for key, hint in fields.items():
            typed[key] = st.text_input(
                f"{key} · {describe_hint(hint)}", value=json.dumps(values.get(key)),
                key=f"field-{key}-{selected}",
            )
        extra = st.text_area("Other keys (JSON object)", value="{}", key=f"extra-{selected}",
                             help="Keys outside the schema are refused, never silently dropped.")
        nodes = list(graph_nodes(graph))
        writer = next(iter(tree.details[selected].writers), None)
        as_node = st.selectbox("As node", nodes, index=nodes.index(writer) if writer in nodes
                               else 0, help="The edit acts as if this node had written it; "
                               "what runs next follows from that node's edges.")
        submitted = st.form_submit_button("Fork with edit", icon=":material/call_split:")
    if submitted:
        try:
            changes = {}
            for key, text in typed.items():
                try:
                    value = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise EditRefused(f"{key}: not valid JSON ({exc.msg} at column "
                                      f"{exc.colno}); strings need quotes, like \"high\"") from None
                if value != values.get(key):
                    changes[key] = value
            changes.update(parse_values(extra))
            result = fork_with_edit(graph, _config(selected), changes, as_node=as_node)
        except (EditRefused, ValueError) as exc:
            flash("error", f"Edit refused, nothing was written: {exc}")
        else:
            _after_run(f"Forked #{tree.ordinal(selected)} with {json.dumps(changes)}", result,
                       selected)
        st.rerun()
source.close()
context.close()
