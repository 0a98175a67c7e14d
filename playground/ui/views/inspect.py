"""Inspect page: open any LangGraph app's checkpoint database, read-only, and browse its threads."""

from __future__ import annotations

import streamlit as st

from playground.access.mode import opened_place
from playground.places.door import UrlRefused, open_place
from playground.places.server_address import server_label
from playground.timetravel.errors import UnknownThread
from playground.timetravel.limits import clip
from playground.timetravel.messages import describe
from playground.timetravel.storage import Storage
from playground.timetravel.store_items import SHOWN_STORE_ITEMS
from playground.ui import resources
from playground.ui.components.checkpoints import (
    SELECTED_KEY,
    download_thread,
    inspector,
    namespace_label,
    selected_checkpoint,
    stepper,
)
from playground.ui.components.clone import CLONE, clone_control
from playground.ui.components.compare import COMPARE, compare_view, view_switch
from playground.ui.components.history_tree import history_tree, tree_navigation
from playground.ui.components.tables import arrow_rows
from playground.ui.components.thread_table import thread_table
from playground.ui.components.timeline_chart import timeline_panel
from playground.ui.inspect_access import (
    MAX_UPLOAD_MB,
    UPLOAD_SUFFIXES,
    AccessRefused,
    UploadHandle,
    check_typed_url,
    discard_upload,
    inspect_dir,
    list_databases,
    resolve_allowed,
    save_export,
    save_upload,
    typed_error,
)
from playground.ui.markup import md_escape
from playground.ui.session import database_read, page_context, show_database_error

PREFIX = "inspect-"
TARGET_KEY = PREFIX + "target"  # {"kind": file|upload|url, "target": ..., "label": ...}
MESSAGE_KEY = PREFIX + "message"
# The file each uploader last opened: one key each, or a file left in one uploader would be
# opened again whenever the other is used.
UPLOAD_ID_KEY = PREFIX + "upload-id"
IMPORT_ID_KEY = PREFIX + "import-id"
THREAD_KEY = PREFIX + "thread"
NS_KEY = PREFIX + "ns"

context = page_context()
st.title(":material/search: Inspect")
st.caption(
    "Open the checkpoint database of any LangGraph app and browse its threads: every branch, "
    "every checkpoint, what it holds and what runs next. Nothing leaves this server, and "
    "nothing is written: the database is opened read-only."
)


def _open(kind: str, target: str, label: str) -> Storage:
    """Open a target read-only through the door. Errors name the place's label (an upload by
    its file's name, a URL without its password), never a temporary path; a typed URL's are
    said through :func:`~playground.ui.inspect_access.typed_error`. The graph the playground
    was started with (``--graph``, ``--config``) folds its own DeltaChannels' values, as
    History does."""
    storage = open_place(target, typed=kind == "url", label=label).reads()
    storage.reducers = resources.graph_reducers()
    return storage


HANDLE_KEY = PREFIX + "upload-handle"  # owns the open upload's copy (deleted with the session)


def _forget_target() -> None:
    previous = st.session_state.pop(TARGET_KEY, None)
    handle = st.session_state.pop(HANDLE_KEY, None)
    if handle is not None:
        handle.discard()
    if previous and previous["kind"] == "upload":
        discard_upload(previous["target"])
    for key in (THREAD_KEY, NS_KEY, PREFIX + SELECTED_KEY):
        st.session_state.pop(key, None)
    st.query_params.pop("checkpoint", None)  # a link into the old database means nothing here


# What this script run opened (a click on Open, an upload): the page below reads through it
# rather than opening the same place a second time.
_opened: list[Storage] = []


def _not_opened(exc: BaseException, kind: str, label: str) -> str:
    """Why a target was not opened, in one line: a typed URL's through the one function
    every error of a typed URL passes (it says nothing of the address on a server beyond
    loopback)."""
    said = typed_error(exc, label) if kind == "url" else str(exc)
    return f"Not opened, nothing changed: {said}"


def _try_open(kind: str, target: str, label: str) -> None:
    """Switch to a new database if it opens; otherwise keep the current one and say why."""
    st.session_state.pop(MESSAGE_KEY, None)
    try:
        storage = _open(kind, target, label)
    except (*resources.database_errors(), UrlRefused) as exc:
        if kind == "upload":
            discard_upload(target)
        st.session_state[MESSAGE_KEY] = _not_opened(exc, kind, label)
        return
    _forget_target()
    while _opened:  # one open per run is read below; any other goes now
        _opened.pop().close()
    _opened.append(storage)
    st.session_state[TARGET_KEY] = {"kind": kind, "target": target, "label": storage.label}
    if kind == "upload":
        st.session_state[HANDLE_KEY] = UploadHandle(target)


def open_controls() -> None:
    """Five ways in: a file from the allowed folders, an upload, a Postgres URL, an Agent
    Server's URL, an export."""
    folder_tab, upload_tab, postgres_tab, server_tab, import_tab = st.tabs(
        [":material/folder_open: From the server's folder", ":material/upload: Upload a file",
         ":material/storage: Postgres URL", ":material/dns: Agent Server URL",
         ":material/file_open: Import thread"]
    )
    with folder_tab:
        files = list_databases()
        pick_col, open_col = st.columns([4, 1], vertical_alignment="bottom")
        picked = pick_col.selectbox("Database file", files, format_func=lambda f: f.label,
                                    key=PREFIX + "file",
                                    placeholder="no .sqlite or .db files found")
        if open_col.button("Open", icon=":material/folder_open:", key=PREFIX + "open-file",
                           disabled=picked is None, width="stretch"):
            try:
                path = resolve_allowed(picked.path)
            except AccessRefused as exc:
                st.session_state[MESSAGE_KEY] = f"Not opened, nothing changed: {exc}"
            else:
                _try_open("file", str(path), picked.label)
        st.caption(f"Lists `*.sqlite` and `*.db` files in `{inspect_dir()}` (set "
                   "`PLAYGROUND_INSPECT_DIR` to choose the folder) and the bundled samples. "
                   "Nothing outside those folders can be opened.")
    with upload_tab:
        uploaded = st.file_uploader(
            "A SqliteSaver checkpoint file", type=[s.lstrip(".") for s in UPLOAD_SUFFIXES],
            max_upload_size=MAX_UPLOAD_MB, key=PREFIX + "upload",
        )
        if uploaded is not None and uploaded.file_id != st.session_state.get(UPLOAD_ID_KEY):
            st.session_state[UPLOAD_ID_KEY] = uploaded.file_id
            try:
                path = save_upload(uploaded.name, uploaded.getvalue())
            except AccessRefused as exc:
                st.session_state[MESSAGE_KEY] = f"Not opened, nothing changed: {exc}"
            else:
                _try_open("upload", str(path), uploaded.name)
        st.caption(f"Up to {MAX_UPLOAD_MB} MB. The file is copied to a private temporary "
                   "folder on this server, opened read-only, and deleted when you close it.")
    with postgres_tab:
        # cleared on submit, so the password is not left in the box; the page shows the place's
        # label, which never holds the password
        with st.form(PREFIX + "pg-form", clear_on_submit=True, border=False):
            url = st.text_input("Postgres URL", key=PREFIX + "pg-url", type="password",
                                placeholder="postgresql://user:password@host:5432/app")
            submitted = st.form_submit_button("Connect", icon=":material/link:")
        if submitted and url.strip():
            try:
                url = check_typed_url(url)
            except AccessRefused as exc:
                st.session_state[MESSAGE_KEY] = _not_opened(exc, "url", url)
            else:
                _try_open("url", url, url)
        st.caption("A database written by PostgresSaver, read with SQL and the safe decoder; "
                   "the password is never shown.")
    with server_tab:
        with st.form(PREFIX + "server-form", border=False):
            url = st.text_input("Agent Server URL", key=PREFIX + "server-url",
                                placeholder="http://127.0.0.1:2024")
            submitted = st.form_submit_button("Connect", icon=":material/link:")
        if submitted and url.strip():
            try:
                url = check_typed_url(url.strip())
            except AccessRefused as exc:
                st.session_state[MESSAGE_KEY] = _not_opened(exc, "url", url)
            else:
                _try_open("url", url, server_label(url))
        st.caption("`langgraph dev`, a self-hosted server or a deployment, read through its HTTP "
                   "API. What the person who started the playground allowed (`playground run "
                   "--allow-url URL`) opens from here, and, on a playground served to its own "
                   "machine only, loopback and its `--server`; nothing else on the network. Only "
                   "the `--server` one is sent the key.")
    with import_tab:
        exported = st.file_uploader(
            "Import thread", type=["json"], max_upload_size=MAX_UPLOAD_MB,
            key=PREFIX + "import", help="A file from Download thread or `playground export`.",
        )
        if exported is not None and exported.file_id != st.session_state.get(IMPORT_ID_KEY):
            st.session_state[IMPORT_ID_KEY] = exported.file_id
            try:
                path, thread_id = save_export(exported.name, exported.getvalue())
            except AccessRefused as exc:
                st.session_state[MESSAGE_KEY] = f"Not opened, nothing changed: {exc}"
            else:
                _try_open("upload", str(path), exported.name)
                st.session_state[THREAD_KEY] = thread_id
        st.caption("A thread someone sent you (Download thread, or `playground export`): its "
                   "rows are copied into a private temporary file, opened read-only, and "
                   "deleted when you close it.")


def store_table(source: Storage) -> None:
    """The database's LangGraph store table, if it has one: items as plain data, read-only."""
    items = source.store_items()
    if items is None:
        return
    with st.expander(f"Store · {len(items):,}{'+' if len(items) >= SHOWN_STORE_ITEMS else ''} "
                     "items (read-only)", icon=":material/memory:"):
        st.caption("The app's long-term store (SqliteStore / PostgresStore), as stored; "
                   "values are read as plain data, never run.")
        if items:
            st.dataframe(arrow_rows([{
                "namespace": "/".join(item.namespace), "key": item.key,
                "value": describe(item.value, 300), "created": item.created_at[:19],
                "updated": item.updated_at[:19]} for item in items]),
                hide_index=True, width="stretch")


def _new_thread() -> None:
    """Another thread opens at its head: two threads may share checkpoint ids (a copy, an
    import), and the one looked at before means nothing in the new one."""
    st.session_state.pop(PREFIX + SELECTED_KEY, None)
    st.query_params.pop("checkpoint", None)


def _shown_thread(ids: list[str]) -> None:
    """The thread the page shows is one the list holds: the one shown before if it is still
    listed, else the list's first, opened at its head.

    Set, not dropped: a box whose value is dropped takes its first option on the server but
    keeps showing the old thread in the browser (its options changed, its key did not), so the
    box named a thread the filter had left out above another thread's tree, details and
    download."""
    if st.session_state.get(THREAD_KEY) not in ids:
        st.session_state[THREAD_KEY] = ids[0]
        _new_thread()


def browse(source: Storage, target: str) -> None:
    """The thread table, a thread and namespace picker, then the tree, stepper and inspector."""
    store_table(source)
    ids = thread_table(source, PREFIX, THREAD_KEY, on_pick=_new_thread)
    if not ids:
        return  # no box, no tree, no download: nothing names a thread the list does not hold
    _shown_thread(ids)
    thread_col, ns_col = st.columns(2)
    thread = thread_col.selectbox("Thread", ids, key=THREAD_KEY, on_change=_new_thread,
                                  format_func=lambda tid: clip(tid, 200))
    namespaces = source.namespaces(thread)
    namespace = ""
    if len(namespaces) > 1:
        if st.session_state.get(NS_KEY) not in namespaces:
            st.session_state.pop(NS_KEY, None)
        namespace = ns_col.selectbox(
            "Namespace", namespaces, key=NS_KEY, format_func=namespace_label,
            help="A subgraph keeps its own checkpoints under its own namespace.",
        )
    try:
        tree = resources.tree_cache().get(source, thread, namespace)
    except UnknownThread:
        st.info(f"Thread {md_escape(thread, 200)} has no checkpoints in this namespace.")
        return
    opened = st.session_state[TARGET_KEY]
    selected = selected_checkpoint(tree, PREFIX)
    download_col, clone_col, _ = st.columns([1, 1, 2])
    with download_col:
        download_thread(target, thread, thread, key=PREFIX + "download",
                        typed=opened["kind"] == "url", label=opened["label"])
    if not namespace:  # a clone starts from the root graph's checkpoints
        with clone_col:
            clone_control(context, opened["kind"], target, opened["label"], tree, selected,
                          PREFIX + "clone")
    if view_switch(PREFIX + "view") == COMPARE:
        compare_view(source, tree, PREFIX + "compare")
        return
    stepper(tree, selected, PREFIX)
    left, right = st.columns([1, 1])
    with left:
        tree_navigation(source, tree, selected, PREFIX)
        history_tree(source, tree, selected, PREFIX + "tree", PREFIX)
    with right:
        inspector(source, tree, selected)
    timeline_panel(source, tree, selected, PREFIX + "timeline", key_prefix=PREFIX)


OPENED_KEY = PREFIX + "opened-place"
if opened_place() and st.session_state.get(TARGET_KEY) is None \
        and not st.session_state.get(OPENED_KEY):
    # `playground run PLACE`: its threads are this page's, once per session (closed, it stays
    # closed).
    st.session_state[OPENED_KEY] = True
    _try_open("place", opened_place(), None)  # its label: the place says it (no password)
if st.session_state.get(TARGET_KEY) is None:
    open_controls()
else:
    # With a database open, its threads come first (on a phone the five ways in fill the
    # first screen): opening another is one click away.
    with st.expander("Open another database", icon=":material/folder_open:"):
        open_controls()
message = st.session_state.get(MESSAGE_KEY)
if message:
    st.error(md_escape(message, 800), icon=":material/error:")

current = st.session_state.get(TARGET_KEY)
if current is None:
    st.info("Pick a database above: the bundled `samples/sample-app.sqlite` shows threads of "
            "several shapes (a loop, a fan-out, a subgraph, forks, a paused thread).",
            icon=":material/arrow_upward:")
else:
    try:
        target = current["target"]
        if _opened:  # opened by this run's click: read through it
            source = _opened.pop()
        else:
            if current["kind"] == "file":
                target = str(resolve_allowed(target))  # checked again: a link may have changed
            source = _open(current["kind"], target, current["label"])
    except (AccessRefused, *resources.database_errors(), UrlRefused) as exc:
        _forget_target()
        if current["kind"] == "url":
            st.error(f"Closed: {md_escape(typed_error(exc, current['label']), 600)}",
                     icon=":material/error:")
        else:
            st.error(f"Closed {md_escape(current['label'], 300)}: {md_escape(exc, 600)}",
                     icon=":material/error:")
    else:
        try:
            label_col, close_col = st.columns([5, 1], vertical_alignment="center")
            label_col.markdown(f"**Open:** {md_escape(source.label, 300)} "
                               ":blue-badge[read-only] "
                               f":gray-badge[{source.kind}] "
                               f"· written by {md_escape(source.writer, 80)}")
            if close_col.button("Close", icon=":material/close:", key=PREFIX + "close",
                                width="stretch"):
                _forget_target()
                st.rerun()
            st.caption("Read-only: nothing here is written. To replay, fork or re-run a "
                       f"thread, **{CLONE}**: the copy opens in History.")
            try:
                browse(source, target)
            except resources.database_errors() as exc:
                if current["kind"] == "url":
                    # A typed URL's every error goes through the one function: beyond loopback
                    # a read that fails says no more than an open that fails.
                    st.error(md_escape(typed_error(exc, current["label"]), 600),
                             icon=":material/error:")
                else:
                    # A damaged file can pass the checks at open and fail on a later page
                    # read; a file another process is writing may fail for a moment (read
                    # again).
                    show_database_error(exc, f"Could not read "
                                        f"{md_escape(current['label'], 300)}",
                                        place=current["label"])
            else:
                database_read()
        finally:
            source.close()
