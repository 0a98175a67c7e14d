"""Conflicts page on an Agent Server: two tabs start runs on one thread, and the server's
``multitask_strategy`` decides, as the ticket API's If-Match decides a stale write."""

from __future__ import annotations

import streamlit as st

from playground.apps.json_text import JsonRefused, parse_json
from playground.lessons.multitask import (
    STRATEGIES,
    WHAT_IT_DOES,
    TwoTabs,
    play_two_tabs,
    verdict,
)
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.tree import load_tree
from playground.ui import resources
from playground.ui.components.history_tree import history_tree
from playground.ui.components.text_block import text_block
from playground.ui.markup import md_escape
from playground.ui.session import page_context

PLAYS_KEY = "multitask-plays"
PREFIX = "multitask-"

page_context()
app = resources.app()
graph = app.template
st.title(":material/sync_problem: Conflicts")
st.caption(
    "Two tabs start a run on the same thread while the first is still going. The Agent Server "
    "answers the second by its multitask strategy: the same question as two agents writing "
    "one ticket, one level up.")
with st.container(border=True):
    st.markdown(
        ":material/lock: **The same lesson as If-Match.** The ticket API refuses a PATCH whose "
        "ETag is stale with **412 Precondition Failed**: the writer must read again. An Agent "
        "Server may refuse a second run on a busy thread with **409 Conflict** (`reject`), "
        "queue it, stop the first, or roll the first back. Servers differ: each play below "
        "says what this one did, beside what `langgraph dev` does.")

if app.has_messages:
    first_text = st.text_input("First tab's message", value="hello there",
                               key=PREFIX + "first")
    second_text = st.text_input("Second tab's message", value="where is A17",
                                key=PREFIX + "second")
    inputs = ({"messages": [{"role": "user", "content": first_text}]},
              {"messages": [{"role": "user", "content": second_text}]})
    refused = None
else:
    first_json = st.text_area("First tab's input (JSON)", value="{}", key=PREFIX + "first-json")
    second_json = st.text_area("Second tab's input (JSON)", value="{}",
                               key=PREFIX + "second-json")
    try:
        inputs, refused = (parse_json(first_json), parse_json(second_json)), None
    except JsonRefused as exc:
        inputs, refused = ({}, {}), str(exc)

strategy = st.segmented_control("Multitask strategy", STRATEGIES, default="reject",
                                key=PREFIX + "strategy")
st.caption(f"With `{strategy or 'reject'}`, `langgraph dev` "
           f"{WHAT_IT_DOES[strategy or 'reject']}. This server may not: play it and see.")
play_col, all_col, _ = st.columns([1.3, 1.3, 2])
chosen = [strategy or "reject"] if play_col.button(
    "Play the second tab", icon=":material/tab:", type="primary", key=PREFIX + "play") else []
if all_col.button("Play all four", icon=":material/view_week:", key=PREFIX + "all"):
    chosen = list(STRATEGIES)

if chosen:
    if refused:
        st.error(f"Not played: {md_escape(refused, 600)}", icon=":material/error:")
    else:
        plays = dict(st.session_state.get(PLAYS_KEY, {}))
        progress = st.progress(0.0, text="Playing…")
        for done, name in enumerate(chosen):
            progress.progress(done / len(chosen), text=f"Playing {name}…")
            try:
                plays[name] = play_two_tabs(graph.client, graph.assistant_id, inputs[0],
                                            inputs[1], name)
            except CheckpointDbError as exc:
                st.error(f"Not played: {md_escape(exc, 600)}", icon=":material/error:")
                break
        progress.empty()
        st.session_state[PLAYS_KEY] = plays


def _timeline(play: TwoTabs) -> None:
    """Each tab's run as a bar from when the server took it to when it was over; a refused
    run as a mark where it was refused."""
    rows = [{"tab": run.tab, "from": run.started, "to": run.ended or run.started,
             "what": f"{run.answered}, {run.status}"} for run in play.runs]
    tabs = {"field": "tab", "type": "nominal", "title": None,
            "sort": ["first tab", "second tab"], "scale": {"domain": ["first tab", "second tab"]}}
    st.vega_lite_chart({
        "data": {"values": rows},
        "height": {"step": 30},
        "layer": [
            {"mark": {"type": "bar", "height": 18, "cornerRadius": 3},
             "encoding": {
                 "y": tabs,
                 "x": {"field": "from", "type": "quantitative", "title": "seconds"},
                 "x2": {"field": "to"},
                 "color": {"field": "what", "type": "nominal", "title": None,
                           "scale": {"scheme": "category10"}},
                 "tooltip": [{"field": "tab"}, {"field": "what"}, {"field": "from"},
                             {"field": "to"}]}},
            {"transform": [{"filter": "datum.to == datum.from"}],  # refused: never ran
             "mark": {"type": "point", "shape": "cross", "size": 160, "filled": True},
             "encoding": {"y": tabs,
                          "x": {"field": "from", "type": "quantitative"},
                          "color": {"field": "what", "type": "nominal"}}},
        ],
    }, width="stretch")


plays: dict[str, TwoTabs] = st.session_state.get(PLAYS_KEY, {})
if not plays:
    st.info("Press **Play the second tab**: the first tab's run starts, and the second tab's "
            "follows at once on the same thread.", icon=":material/touch_app:")
for name in STRATEGIES:
    play = plays.get(name)
    if play is None:
        continue
    with st.container(border=True):
        st.markdown(f"**`{name}`** · {md_escape(play.line, 300)}")
        said = verdict(play)
        if said.as_reference:
            st.markdown(f":material/check_circle: {md_escape(said.observed, 400)}: as "
                        "`langgraph dev` does.")
        else:
            st.markdown(f":material/difference: **This server did otherwise.** "
                        f"{md_escape(said.observed, 400)}. It "
                        f"{md_escape('; '.join(said.differences), 600)}. `langgraph dev` "
                        f"{md_escape(said.reference, 300)}.")
        left, right = st.columns([3, 2])
        with left:
            _timeline(play)
            # Text, not markdown: the server's words are shown as they are.
            text_block("\n".join(f"{at:6.2f} s  {text}" for at, text in play.events))
        with right:
            source = resources.own_storage()
            try:
                tree = load_tree(source, play.thread_id)
            except CheckpointDbError as exc:
                st.caption(f"The thread: {md_escape(exc, 300)}")
            else:
                history_tree(source, tree, tree.head, f"{PREFIX}{name}-tree",
                             key_prefix=f"{PREFIX}{name}-")
            st.caption(f"thread {md_escape(play.thread_id, 100)}: open it on History as "
                       f"/{md_escape(play.thread_id, 100)}")
