"""The checkpoint tree and the inspector, shared by the History and Inspect pages.

Both let the user pick a checkpoint (in the history tree, :mod:`.history_tree`, or with a slider
and previous/next buttons) and show what that checkpoint holds. Actions stay on the pages.
"""

from __future__ import annotations

import json

import streamlit as st

from playground.places.door import UrlRefused, open_storage
from playground.timetravel.decode import to_jsonable
from playground.timetravel.delta import StateAt
from playground.timetravel.diff import diff_states
from playground.timetravel.errors import UnreadableCheckpoint
from playground.timetravel.messages import conversations, describe
from playground.timetravel.records import CHECKPOINT_NAMES, checkpoint_name
from playground.timetravel.status import FAILED, PAUSED, STOPPED
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import own_metadata
from playground.timetravel.transfer import TransferRefused, dumps_export, export_thread
from playground.timetravel.tree import CheckpointTree, ensure_details
from playground.ui import resources
from playground.ui.components.conversation import conversation
from playground.ui.components.tables import arrow_rows
from playground.ui.components.text_block import fields_block, state_block, text_block
from playground.ui.inspect_access import typed_error
from playground.ui.markup import md_escape

SELECTED_KEY = "selected_checkpoint"
WALKED_KEY = "walked_tip"  # the tip of the branch the person walked down from


def namespace_label(namespace: str) -> str:
    """A checkpoint namespace in words: ``(root graph)``, ``triage (subgraph, task 1f0a…)``."""
    if not namespace:
        return "(root graph)"
    node, _, task = namespace.partition(":")
    return f"{node} (subgraph, task {task[:8]}…)" if task else namespace


def selected_checkpoint(tree: CheckpointTree, key_prefix: str = "") -> str:
    """The checkpoint the session looks at: session state, else the URL, else the head."""
    key = key_prefix + SELECTED_KEY
    current = st.session_state.get(key) or st.query_params.get("checkpoint")
    if current not in tree.nodes:
        current = tree.head
    st.session_state[key] = current
    return current


def select(checkpoint_id: str, key_prefix: str = "", walked: str | None = None) -> None:
    """Select a checkpoint and put it in the URL, so the link points at it.

    ``walked`` is the tip of the branch the person is walking (Older and Newer keep it, a bar
    of a branch's timeline is on it); without it, the branch is the one the checkpoint is
    drawn on. Replay, re-run and the timeline act on that branch (:func:`walked_tip`).
    """
    st.session_state[key_prefix + SELECTED_KEY] = checkpoint_id
    st.query_params["checkpoint"] = checkpoint_id
    if walked:
        st.session_state[key_prefix + WALKED_KEY] = walked
        st.query_params["branch"] = walked
    else:
        st.session_state.pop(key_prefix + WALKED_KEY, None)
        st.query_params.pop("branch", None)


def walked_tip(tree: CheckpointTree, selected: str, key_prefix: str = "") -> str:
    """The tip of the branch the person is on at ``selected``: the one they walked down from
    (kept in the session and the URL, so a reload or a link keeps it) while ``selected`` is on
    it, else the branch the tree draws ``selected`` on (its oldest children to a leaf)."""
    walked = st.session_state.get(key_prefix + WALKED_KEY) or st.query_params.get("branch")
    if walked in tree.nodes and not tree.children.get(walked) \
            and selected in tree.path_to(walked):
        return walked
    return tree.tip_along(selected)


def select_drawn_pick(tree: CheckpointTree, drawing: str, key_prefix: str = "",
                      walked: str | None = None) -> None:
    """A drawing's click (a checkpoint of the history tree, a bar of the timeline), handled
    before the page's next run so that one run draws the new selection: the callback of the
    drawing whose widget key is ``drawing``. The id comes back from the browser: one that names
    no checkpoint of the tree is ignored. ``walked``: the branch the drawing shows (a
    timeline's), kept as :func:`select` keeps it."""
    picked = (st.session_state.get(drawing) or {}).get("pick")
    if isinstance(picked, str) and picked in tree.nodes:
        select(picked, key_prefix, walked)


def stepper(tree: CheckpointTree, selected: str, key_prefix: str = "") -> str:
    """Previous / next buttons, a slider over creation order, and a picker; returns the choice.

    The buttons select in their ``on_click`` callback, which runs before the page does, so one
    script run draws the new selection (not a run that selects, then ``st.rerun()``).
    """
    ids = list(tree.nodes)
    index = ids.index(selected)
    prev_col, next_col, head_col, slider_col = st.columns([1, 1, 1, 5], vertical_alignment="bottom")
    prev_col.button("Previous", icon=":material/arrow_back:", disabled=index == 0,
                    key=key_prefix + "prev", width="stretch", on_click=select,
                    args=(ids[max(index - 1, 0)], key_prefix))
    next_col.button("Next", icon=":material/arrow_forward:", disabled=index == len(ids) - 1,
                    key=key_prefix + "next", width="stretch", on_click=select,
                    args=(ids[min(index + 1, len(ids) - 1)], key_prefix))
    head_col.button("Head", icon=":material/vertical_align_bottom:", key=key_prefix + "head",
                    width="stretch", on_click=select, args=(tree.head, key_prefix))
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


def download_thread(target: str, thread_id: str, file_stem: str, key: str,
                    typed: bool = False, label: str | None = None) -> None:
    """A **Download thread** button: the thread's export file (``playground export``'s format).

    The file is built only when clicked, from a connection of its own: the page's source is
    closed by then, and a long thread is not serialized on every rerun. ``typed``: the target
    is a URL someone typed into the page, opened again with only what it says (and checked
    again: a page reaches only what its server allows), its errors said as every typed URL's
    are (:func:`~playground.ui.inspect_access.typed_error`, naming ``label``).
    """
    def build() -> str:
        try:
            storage = open_storage(target, typed=typed)
            try:
                return dumps_export(export_thread(storage, thread_id))
            finally:
                storage.close()
        except (TransferRefused, UrlRefused, *resources.database_errors()) as exc:
            # Built after the page was sent: no message can reach it now, so the file says why
            # (an import of it is refused as "not a thread export").
            said = typed_error(exc, label or target) if typed else str(exc)
            return json.dumps({"not_exported": said}, indent=1)

    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in file_stem) or "thread"
    st.download_button("Download thread", data=build, file_name=f"{safe}.json",
                       mime="application/json", icon=":material/download:", key=key,
                       on_click="ignore",
                       help="The thread's every checkpoint and write, as `playground export` "
                       "writes them; open it with Import thread on Inspect or "
                       "`playground import`.")


def signals_panel(tree: CheckpointTree, selected: str) -> None:
    """The questions, answers and errors tasks stored under a checkpoint, in words."""
    for signal in tree.signals.get(selected, ()):
        who = f"**{md_escape(signal.node, 200)}**" if signal.node else "The run"
        text = md_escape(signal.text)
        if signal.kind == "interrupt":
            st.warning(f"{who} asks: {text}", icon=":material/help:")
        elif signal.kind == "error":
            st.error(f"{who} failed: {text}", icon=":material/error:")
        else:
            st.info(f"Answered: {text}", icon=":material/reply:")


def _state(source: Storage, tree: CheckpointTree, checkpoint_id: str) -> StateAt | None:
    # Decoded once per checkpoint for the server (a checkpoint's values never change but by a
    # migration, which changes the thread's fingerprint): reruns and other tabs reuse them.
    try:
        return resources.values_cache().state(source, tree, checkpoint_id)
    except UnreadableCheckpoint:
        return None


def _values(source: Storage, tree: CheckpointTree, checkpoint_id: str) -> dict | None:
    state = _state(source, tree, checkpoint_id)
    return None if state is None else state.values


def inspector(source: Storage, tree: CheckpointTree, selected: str) -> None:
    """Everything about one checkpoint: its conversation, values, diff to parent, writes, bytes.

    Values come from the safe decoder: a type the app stored shows as ``{"__type__": ...}``
    data, a value that cannot be shown as one line saying why; nothing is imported or run.
    """
    parent = tree.parent_of(selected)
    ensure_details(source, tree, [selected])
    record, detail = tree.nodes[selected], tree.details[selected]
    badges = []
    if selected == tree.head:
        badges.append(":red-badge[head]")
    if not tree.children.get(selected):  # a tip stands where the tree's label says it does
        kind = tree.tip_status(selected).kind
        if kind in (FAILED, STOPPED, PAUSED):  # (the node and its error or question: below)
            badges.append(f":{'red' if kind == FAILED else 'orange'}-badge[{kind}]")
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
    # keyed: at phone width the four sit two by two, not in one long column (assets/app.css)
    with st.container(key="checkpoint-facts"):
        for column, (label, value) in zip(st.columns(4), facts.items(), strict=True):
            column.caption(label)
            column.markdown(f"**{md_escape(value, 200)}**")
    # Ids, writers and times come from the database: escaped, as every text from it.
    st.caption(
        f"{md_escape(checkpoint_name(record.source, detail.writers), 300)} · id "
        f"{md_escape(selected, 200)} · parent "
        f"{'#' + str(tree.ordinal(parent)) if parent else 'none'} · "
        f"{md_escape(detail.created_at or '', 100)}", help=CHECKPOINT_NAMES)
    if selected in tree.broken:
        st.warning(f"Broken link: {md_escape(tree.broken[selected], 300)}. It is drawn as a "
                   "root; the thread's other checkpoints still show.", icon=":material/link_off:")
    signals_panel(tree, selected)
    asked = any(signal.kind == "interrupt" for signal in tree.signals.get(selected, ()))
    if asked and source.answers_unkept and tree.children.get(selected):
        st.caption(f":material/info: {source.answers_unkept}")
    state = _state(source, tree, selected)
    values = None if state is None else state.values
    for rebuilt in state.rebuilt if state is not None else ():
        # LangGraph stored no whole value here (a DeltaChannel): say what it was made of.
        st.caption(f":material/history: {md_escape(rebuilt.sentence(tree.ordinals.get), 400)}")
    if values is None:
        st.error(detail.problem or "This checkpoint's blob cannot be read.",
                 icon=":material/block:")
    chats = conversations(values or {})
    names = (["Conversation"] if chats else []) + ["Values", "Diff vs parent", "Writes",
                                                   "Metadata", "Bytes"]
    tabs = dict(zip(names, st.tabs(names), strict=True))
    if chats:
        with tabs["Conversation"]:
            for key, messages in chats.items():
                if len(chats) > 1:
                    st.markdown(f"**{md_escape(key, 200)}**")
                conversation(messages, f"chat-{selected}-{key}")
    with tabs["Values"]:
        if values is None:
            st.caption("Nothing to show: the blob could not be decoded.")
        else:
            state_block(values, ordinal=tree.ordinals.get)
    with tabs["Diff vs parent"]:
        before = _values(source, tree, parent) if parent else None
        if parent is None:
            st.caption("No parent: this is where the thread's stored history starts.")
        elif values is None or before is None:
            st.caption("No diff: one of the two checkpoints cannot be read.")
        else:
            changes = diff_states(before, values)
            text_block("\n".join(changes.lines()) or "no differences")
    with tabs["Writes"]:
        writes = source.pending_writes(tree.thread_id, selected, tree.checkpoint_ns)
        if writes:
            st.dataframe(
                arrow_rows([{"node": w.node, "channel": w.channel,
                             "value": describe(w.value, 200), "bytes": w.size}
                            for w in writes]),
                hide_index=True, width="stretch",
            )
        else:
            st.caption("No writes are stored under this checkpoint.")
    with tabs["Metadata"]:
        # As stored: LangGraph's own keys (source, step, parents) and the run's (user_id...).
        metadata = source.checkpoint_metadata(tree.thread_id, tree.checkpoint_ns,
                                              [selected]).get(selected, {})
        own = own_metadata(metadata)
        if own:
            st.caption("What the run that wrote it was given as metadata:")
            fields_block(own)
        else:
            st.caption("No metadata of the app's own: only what LangGraph writes.")
        with st.expander("As stored", icon=":material/data_object:"):
            st.json(to_jsonable(metadata), expanded=2)
    with tabs["Bytes"]:
        # Three rows: a markdown table, not a dataframe (which builds a pandas frame and Arrow
        # batch on every rerun of the page).
        st.markdown(
            "| part | bytes |\n| --- | ---: |\n"
            f"| checkpoint blob (what a resume loads) | {record.blob_bytes:,} |\n"
            f"| metadata | {record.metadata_bytes:,} |\n"
            f"| pending writes | {record.writes_bytes:,} |"
        )
