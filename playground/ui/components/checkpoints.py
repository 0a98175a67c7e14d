"""The checkpoint tree and the inspector, shared by the History and Inspect pages.

Both render a tree from the engine's display model, let the user pick a checkpoint from the tree,
a slider or previous/next buttons, and show what that checkpoint holds. Actions stay on the pages.
"""

from __future__ import annotations

import streamlit as st

from playground.timetravel.diff import diff_states
from playground.timetravel.display import tree_view, view_dot
from playground.timetravel.source import CheckpointSource
from playground.timetravel.tree import CheckpointTree, ensure_details

SELECTED_KEY = "selected_checkpoint"
EXPANDED_KEY = "expanded_runs"


def selected_checkpoint(tree: CheckpointTree, key_prefix: str = "") -> str:
    """The checkpoint the session looks at: session state, else the URL, else the head."""
    key = key_prefix + SELECTED_KEY
    current = st.session_state.get(key) or st.query_params.get("checkpoint")
    if current not in tree.nodes:
        current = tree.head
    st.session_state[key] = current
    return current


def select(checkpoint_id: str, key_prefix: str = "") -> None:
    """Select a checkpoint and put it in the URL, so the link points at it."""
    st.session_state[key_prefix + SELECTED_KEY] = checkpoint_id
    st.query_params["checkpoint"] = checkpoint_id


def stepper(tree: CheckpointTree, selected: str, key_prefix: str = "") -> str:
    """Previous / next buttons, a slider over creation order, and a picker; returns the choice."""
    ids = list(tree.nodes)
    index = ids.index(selected)
    prev_col, next_col, head_col, slider_col = st.columns([1, 1, 1, 5], vertical_alignment="bottom")
    if prev_col.button("Previous", icon=":material/arrow_back:", disabled=index == 0,
                       key=key_prefix + "prev", width="stretch"):
        index -= 1
    if next_col.button("Next", icon=":material/arrow_forward:", disabled=index == len(ids) - 1,
                       key=key_prefix + "next", width="stretch"):
        index += 1
    if head_col.button("Head", icon=":material/vertical_align_bottom:", key=key_prefix + "head",
                       width="stretch"):
        index = ids.index(tree.head)
    if len(ids) > 1:
        # The slider is keyed by the selection so buttons and picks move it too.
        picked = slider_col.slider(
            "Checkpoint (creation order)", 1, len(ids), index + 1,
            key=f"{key_prefix}slider-{ids[index]}",
        )
        index = picked - 1
    chosen = ids[index]
    if chosen != selected:
        select(chosen, key_prefix)
        st.rerun()
    return chosen


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def tree_chart(source: CheckpointSource, tree: CheckpointTree, selected: str,
               key_prefix: str = "") -> None:
    """Draw the tree (folded for size), with controls to unfold runs and pick a drawn node."""
    expanded = st.session_state.setdefault(key_prefix + EXPANDED_KEY, set())
    view = tree_view(tree, selected=selected, expanded=expanded, source=source)
    # Natural size: stretched to the column, a short tree's boxes grow huge.
    st.graphviz_chart(view_dot(view), width="content")
    facts = [_count(len(tree), "checkpoint"), _count(len(tree.leaves), "branch", "branches")]
    if view.folded_runs:
        facts.append(_count(view.folded_runs, "run") + " folded")
    if view.hidden:
        facts.append(f"{view.hidden:,} not drawn")
    st.caption(" · ".join(facts) + " · red outline: head · yellow: selected · orange: paused")
    runs = [node for node in view.nodes if node.kind == "run"]
    pick_col, unfold_col = st.columns(2)
    drawn = [node.members[0] for node in view.nodes if node.kind == "checkpoint"]
    # "#4 plan" from the node label's first line, which starts with the ordinal.
    labels = {cid: view.node_for(cid).label.split("\n")[0] for cid in drawn}
    choice = pick_col.selectbox(
        "Pick from the tree", drawn, index=drawn.index(selected) if selected in drawn else None,
        format_func=lambda cid: labels[cid], key=f"{key_prefix}pick-{selected}",
    )
    if choice and choice != selected:
        select(choice, key_prefix)
        st.rerun()
    if runs:
        unfold = unfold_col.selectbox(
            "Unfold a run", [None, *[run.node_id for run in runs]],
            format_func=lambda rid: "—" if rid is None else
            next(r.label.replace("\n", " ") for r in runs if r.node_id == rid),
            key=f"{key_prefix}unfold",
        )
        if unfold:
            expanded.add(unfold)
            st.rerun()
    elif expanded and unfold_col.button("Fold runs again", key=f"{key_prefix}fold"):
        expanded.clear()
        st.rerun()


def inspector(source: CheckpointSource, tree: CheckpointTree, selected: str) -> None:
    """Everything about one checkpoint: values, what runs next, writes, bytes, diff to parent."""
    parent = tree.parent_of(selected)
    ensure_details(source, tree, [selected])
    record, detail = tree.nodes[selected], tree.details[selected]
    badges = []
    if selected == tree.head:
        badges.append(":red-badge[head]")
    if selected in tree.paused:
        badges.append(":orange-badge[paused]")
    if len(tree.children.get(selected, ())) > 1:
        badges.append(":green-badge[fork point]")
    st.markdown(f"**Checkpoint #{tree.ordinal(selected)}** {' '.join(badges)}")
    # Small label-over-value cells: st.metric's large type cuts values like "1,493 B" short.
    facts = {
        "Source": record.source or "?",
        "Step": record.step if record.step is not None else "?",
        "Next": ", ".join(detail.next) or "— (done)",
        "Stored": f"{record.stored_bytes:,} B",
    }
    for column, (label, value) in zip(st.columns(4), facts.items(), strict=True):
        column.caption(label)
        column.markdown(f"**{value}**")
    st.caption(
        f"id `{selected}` · parent "
        f"{'#' + str(tree.ordinal(parent)) if parent else 'none'} · written by "
        f"{', '.join(detail.writers) or record.source} · {detail.created_at or ''}"
    )
    values = source.values(tree.thread_id, selected, tree.checkpoint_ns)
    tab_values, tab_diff, tab_writes, tab_bytes = st.tabs(
        ["Values", "Diff vs parent", "Writes", "Bytes"]
    )
    with tab_values:
        st.json(values, expanded=2)
    with tab_diff:
        if parent is None:
            st.caption("No parent: this is where the thread's stored history starts.")
        else:
            changes = diff_states(source.values(tree.thread_id, parent, tree.checkpoint_ns), values)
            st.code("\n".join(changes.lines()) or "no differences", language="diff")
    with tab_writes:
        writes = source.pending_writes(tree.thread_id, selected, tree.checkpoint_ns)
        if writes:
            st.dataframe(
                [{"node": w.node, "channel": w.channel, "value": repr(w.value)[:200],
                  "bytes": w.size} for w in writes],
                hide_index=True, width="stretch",
            )
        else:
            st.caption("No writes are stored under this checkpoint.")
    with tab_bytes:
        st.dataframe(
            [{"part": "checkpoint blob (what a resume loads)", "bytes": record.blob_bytes},
             {"part": "metadata", "bytes": record.metadata_bytes},
             {"part": "pending writes", "bytes": record.writes_bytes}],
            hide_index=True, width="stretch",
        )
