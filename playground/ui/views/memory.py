"""Memory page: the long-term store of the app's graph, its namespaces as a tree, its items.

What the graph's nodes keep across threads (``store: BaseStore``, ``runtime.store``,
``get_store()``) is listed by namespace; an item shows its value and when it was created and
last updated. A person can filter by a namespace prefix, edit an item (a JSON object, checked
before it is written) or delete one. Edits made here are the person's, not a run's: Run and
History list only what runs wrote.
"""

from __future__ import annotations

import json

import streamlit as st

from playground.apps.json_text import JsonRefused, parse_json
from playground.event_loop import shared_loop
from playground.ui import resources
from playground.ui.components.tables import arrow_rows
from playground.ui.components.text_block import text_block
from playground.ui.markup import md_escape
from playground.ui.session import flash, page_context, show_flash

PREFIX = "memory-"
PAGE_SIZE = 50
SHOWN_NAMESPACES = 500  # the tree lists this many; a prefix narrows it

page_context()
app = resources.app()
st.title(":material/memory: Memory")
store = resources.store()
if store is None:
    st.info("The ticket agent keeps no long-term store: its state is the ticket id and ETag. "
            "Start the playground on a graph of yours to see what it stores.",
            icon=":material/info:")
    st.stop()
st.caption(f"The long-term store of {md_escape(app.name)}: what its nodes keep across threads "
           "(store: BaseStore, runtime.store, get_store()). Filter, edit or delete an item; "
           "Run and History show what each run wrote.")
loop = shared_loop()


def _path(namespace: tuple[str, ...]) -> str:
    return "/".join(namespace)


def _parse_prefix(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.strip().strip("/").split("/") if part)


prefix_text = st.text_input("Namespace prefix", key=PREFIX + "prefix",
                            placeholder="e.g. memories/ana", help="Parts separated by /.")
prefix = _parse_prefix(prefix_text)
namespaces = loop.run(store.alist_namespaces(prefix=prefix or None, limit=SHOWN_NAMESPACES))
show_flash()
if not namespaces and prefix:
    st.info(f"No items under {md_escape(_path(prefix))}.", icon=":material/info:")
elif not namespaces:
    # Most graphs never use a store: running them fills nothing here. Say so, and how a graph
    # gets one, rather than send the person to run it.
    st.info(f"{md_escape(app.name)}'s store is empty: no run has written to it. The playground "
            "gives every graph a long-term store (beside its checkpoints); a node uses it by "
            "taking a `store: BaseStore` argument, through `runtime.store`, or with "
            "`get_store()`, and calling `put`. A graph whose nodes do none of these keeps "
            "nothing here. You can also add an item below.", icon=":material/info:")

tree_col, items_col = st.columns([2, 3])
with tree_col:
    st.markdown(f"**Namespaces** · {len(namespaces):,}"
                + (" (the first shown; narrow the prefix)" if len(namespaces) == SHOWN_NAMESPACES
                   else ""))
    # The namespaces as a tree: each level indented under its parent, shared parents once.
    lines, drawn = [], set()
    for namespace in sorted(namespaces):
        for depth in range(1, len(namespace) + 1):
            if namespace[:depth] not in drawn:
                drawn.add(namespace[:depth])
                branch = "  " * (depth - 1) + ("└ " if depth > 1 else "")
                lines.append(branch + namespace[depth - 1])
    if lines:
        text_block("\n".join(lines))
    picked = st.selectbox("Namespace", namespaces, format_func=_path, key=PREFIX + "namespace",
                          index=0 if namespaces else None)

with items_col:
    items = []
    if picked is not None:
        page = int(st.session_state.get(PREFIX + "page", 0))
        found = loop.run(store.asearch(picked, limit=PAGE_SIZE + 1, offset=page * PAGE_SIZE))
        # search() takes a prefix: items of deeper namespaces are theirs, not this one's
        items = [item for item in found if tuple(item.namespace) == tuple(picked)][:PAGE_SIZE]
        st.markdown(f"**Items in {md_escape(_path(picked))}** · page {page + 1}")
        if items:
            st.dataframe(arrow_rows([{
                "key": item.key,
                "value": json.dumps(item.value, ensure_ascii=False, default=str)[:200],
                "created": item.created_at.isoformat(timespec="seconds"),
                "updated": item.updated_at.isoformat(timespec="seconds"),
            } for item in items]), hide_index=True, width="stretch")
        prev_col, next_col = st.columns(2)
        prev_col.button("Previous page", disabled=page == 0, key=PREFIX + "prev",
                        on_click=lambda: st.session_state.update({PREFIX + "page": page - 1}))
        next_col.button("Next page", disabled=len(found) <= PAGE_SIZE, key=PREFIX + "next",
                        on_click=lambda: st.session_state.update({PREFIX + "page": page + 1}))


def _save(namespace: tuple[str, ...], key: str, text_key: str) -> None:
    try:
        value = parse_json(st.session_state.get(text_key, ""))
    except JsonRefused as exc:
        flash("error", f"Not saved, nothing was written: {exc}")
        return
    if not key.strip():
        flash("error", "Not saved, nothing was written: give the item a key")
        return
    loop.run(store.aput(tuple(namespace), key, value))
    flash("success", f"Saved {_path(namespace)}/{key}.")


def _delete(namespace: tuple[str, ...], key: str) -> None:
    loop.run(store.adelete(tuple(namespace), key))
    flash("success", f"Deleted {_path(namespace)}/{key}.")


if items:
    with st.container(border=True):
        by_key = {item.key: item for item in items}
        chosen = by_key[st.selectbox("Item", list(by_key), key=PREFIX + f"item-{_path(picked)}")]
        st.caption(f"created {chosen.created_at.isoformat(timespec='seconds')} · updated "
                   f"{chosen.updated_at.isoformat(timespec='seconds')}")
        text_key = f"{PREFIX}value-{_path(picked)}-{chosen.key}"
        st.text_area("Value (JSON object)", value=json.dumps(chosen.value, indent=2,
                                                             ensure_ascii=False, default=str),
                     key=text_key, height=160)
        save_col, delete_col = st.columns(2)
        save_col.button("Save item", icon=":material/save:", type="primary",
                        key=PREFIX + "save", on_click=_save,
                        args=(picked, chosen.key, text_key))
        delete_col.button("Delete item", icon=":material/delete:", key=PREFIX + "delete",
                          on_click=_delete, args=(picked, chosen.key))

with st.expander("Add an item", icon=":material/add:"):
    new_namespace = st.text_input("Namespace", key=PREFIX + "new-ns",
                                  value=_path(picked) if picked else "",
                                  placeholder="memories/ana")
    new_key = st.text_input("Key", key=PREFIX + "new-key")
    st.text_area("Value (JSON object)", value="{}", key=PREFIX + "new-value")
    st.button("Add item", icon=":material/add:", key=PREFIX + "add", on_click=lambda: _save(
        _parse_prefix(new_namespace), new_key, PREFIX + "new-value")
        if _parse_prefix(new_namespace) else flash("error", "Not saved: give a namespace"))
