"""The threads of a place as a table a page at a time, newest first, with the filters of
``playground threads`` (status, since, metadata, text), and a thread picked from it.

Never a list of every thread: a place may hold 100,000 (:mod:`playground.timetravel.thread_list`
reads only what a page needs). The filters live in the page's URL (``status``, ``since``,
``meta``, ``match``), so a link to "the failed threads of the last hour in this database" can be
shared; what the URL says is checked like anything typed, and a filter that cannot be read is
said in one line and not applied.

A filter never ends empty-handed: a page whose walk met its deadline shows the threads it found
and offers **keep reading**, which goes on from where it stopped and adds what it finds to the
page. Such a page is kept for the session (every rerun would walk as long again) until the
filters or the page change.

With Status failed, the failed threads' errors come first, grouped as ``playground threads
--group-by error`` groups them (:func:`~playground.timetravel.thread_list.group_errors`: each
distinct error once, what varies inside it masked, its count and newest time); a click on a
group lists its threads only, **All failed threads** lists them all again. The open thread's
error is shown whole under the table (a ``why`` cell holds one line), and says so where the
database stored no traceback. Text from the database reaches the page as table cells, code
blocks or escaped markdown only.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from playground.timetravel.error_groups import ErrorGroups, holds_traceback, whole_error
from playground.timetravel.limits import clip
from playground.timetravel.status import FAILED
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import (
    RUNNING,
    QueryRefused,
    ThreadPage,
    ThreadQuery,
    ThreadRow,
    group_errors,
    metadata_text,
    parse_meta,
    parse_moment,
    thread_page,
)
from playground.ui import resources
from playground.ui.markup import md_escape

ANY = "any"
FILTERS = ("status", "since", "meta", "match")  # each a widget and a URL parameter


def _from_url(prefix: str, statuses: tuple[str, ...]) -> None:
    """Fill the filter widgets from the URL the first time the page is drawn with them."""
    for name in FILTERS:
        key = f"{prefix}filter-{name}"
        if key in st.session_state:
            continue
        value = st.query_params.get(name)
        if value is None:
            continue
        value = str(value)[:200]
        if name == "status" and value not in statuses:
            continue
        st.session_state[key] = value


def _to_url(prefix: str) -> None:
    """The filters' callback: the URL says what the table shows."""
    for name in FILTERS:
        value = st.session_state.get(f"{prefix}filter-{name}")
        if value and value != ANY:
            st.query_params[name] = value
        else:
            st.query_params.pop(name, None)
    st.session_state.pop(f"{prefix}pages", None)  # a new filter starts at the newest page
    st.session_state.pop(f"{prefix}held", None)
    _clear_group(prefix)  # a group belongs to the filters that found it


def _query(prefix: str, limit: int, statuses: tuple[str, ...]
           ) -> tuple[ThreadQuery, str | None]:
    """The query the filters say, and the first filter that could not be read (then left
    out)."""
    state = st.session_state
    status = state.get(f"{prefix}filter-status")
    since = (state.get(f"{prefix}filter-since") or "").strip()
    meta = (state.get(f"{prefix}filter-meta") or "").strip()
    match = (state.get(f"{prefix}filter-match") or "").strip()
    problem = None
    query = ThreadQuery(status=status if status in statuses else None,
                        match=match or None, limit=limit)
    try:
        if since:
            query = replace(query, since=parse_moment(since))
    except QueryRefused as exc:
        problem = f"Since: {exc}"
    try:
        if meta:
            pairs = [pair.strip() for pair in meta.split(",") if pair.strip()]
            query = replace(query, meta=parse_meta(pairs))
    except QueryRefused as exc:
        problem = problem or f"Metadata: {exc}"
    return query, problem


_TABLE_COLUMNS = ("thread", "status", "why", "checkpoints", "branches", "bytes", "newest")
SHOWN_BY_DEFAULT = 2  # metadata keys shown before the person picks: the page's first ones


def _metadata_columns(prefix: str, rows: list, filtered: list[str]) -> dict[str, str]:
    """The metadata keys the person shows as columns (picked; at first the keys filtered by,
    or the page's first few), each with its column's label."""
    found = list(dict.fromkeys([*filtered, *(key for row in rows for key in row.metadata)]))
    key = f"{prefix}meta-columns"
    if key not in st.session_state:
        st.session_state[key] = filtered or found[:SHOWN_BY_DEFAULT]
    chosen = [k for k in st.session_state[key] if isinstance(k, str)]
    options = list(dict.fromkeys([*chosen, *found]))
    if options:
        st.multiselect("Metadata columns", options, key=key,
                       placeholder="keys of the threads' metadata",
                       help="The keys of each thread's first checkpoint's metadata that its app "
                            "put there (a run's metadata: user, channel, tenant...)")
    # a key named like a column of the table keeps both: the metadata's gets a mark
    return {k: (f"meta {k}" if k in _TABLE_COLUMNS else k)
            for k in st.session_state.get(key, ()) if isinstance(k, str)}


def _turn(prefix: str, move) -> None:
    """A page button's callback: another page, read afresh."""
    move()
    st.session_state.pop(f"{prefix}held", None)


def _ask_more(prefix: str) -> None:
    """**keep reading**'s callback: the next run reads on from where the page stopped."""
    st.session_state[f"{prefix}more"] = True


def _said(prefix: str) -> tuple:
    """The filters as the person gave them (a span back from now, "2h", as typed: its moment
    moves on each run)."""
    return tuple(st.session_state.get(f"{prefix}filter-{name}") for name in FILTERS)


def _page(source: Storage, query: ThreadQuery, pages: list[str | None], prefix: str
          ) -> ThreadPage:
    """The current page: read afresh, or, once its walk met the deadline, the page kept for the
    session (with what **keep reading** added to it), read on when that was asked.

    Raises:
        QueryRefused: the page's cursor is not one of this place's list.
    """
    key = f"{prefix}held"
    marks = (source.identity, _said(prefix), query.limit, pages[-1], query.error_group)
    held = st.session_state.get(key)
    if held is None or held["marks"] != marks:
        st.session_state.pop(f"{prefix}more", None)
        page = thread_page(source, replace(query, after=pages[-1]))
        if page.cut:
            st.session_state[key] = {"marks": marks, "page": page}
        else:
            st.session_state.pop(key, None)
        return page
    page = held["page"]
    if st.session_state.pop(f"{prefix}more", False) and page.next_cursor:
        page = _read_on(source, query, page)
        st.session_state[key] = {"marks": marks, "page": page}
    return page


def _read_on(source: Storage, query: ThreadQuery, page: ThreadPage) -> ThreadPage:
    """A page cut by its deadline, read on from where it stopped: its rows and those found
    next, up to the page's size; cut again if the deadline comes again."""
    more = thread_page(source, replace(query, after=page.next_cursor,
                                       limit=max(query.limit - len(page.rows), 1)))
    rows = (page.rows + more.rows)[: query.limit]
    return ThreadPage(rows, more.next_cursor, page.scanned + more.scanned, more.cut,
                      more.walked)


def _clear_group(prefix: str) -> None:
    """**All failed threads**' callback (and a new filter's): no group picked; the groups'
    table is drawn afresh (a new key: its selection cannot be set), the list from its first
    page."""
    round_key = f"{prefix}groups-round"
    st.session_state[round_key] = st.session_state.get(round_key, 0) + 1
    st.session_state.pop(f"{prefix}group-shown", None)
    st.session_state.pop(f"{prefix}pages", None)
    st.session_state.pop(f"{prefix}held", None)


def _groups(source: Storage, query: ThreadQuery, prefix: str) -> ErrorGroups:
    """The failed threads that match the other filters, grouped by error: read once per
    place and filters, and kept for the session (they are every failed thread: a rerun that
    only turns a page or opens a thread reads none of them again)."""
    key = f"{prefix}groups"
    marks = (source.identity, _said(prefix))
    held = st.session_state.get(key)
    if held is not None and held["marks"] == marks:
        return held["found"]
    with st.spinner("Grouping the failed threads by error…", show_time=True):
        found = group_errors(source, query)
    st.session_state[key] = {"marks": marks, "found": found}
    return found


def _group_picker(found: ErrorGroups, prefix: str) -> str | None:
    """The groups as a table, the largest first; the key of the group clicked, or None (every
    failed thread)."""
    if not found.groups:
        return None
    table = f"{prefix}error-groups-{st.session_state.get(f'{prefix}groups-round', 0)}"
    plural = "s" if found.failed != 1 else ""
    st.caption(f"**Failed threads by error**: {found.failed:,} failed thread{plural} in "
               f"{len(found.groups):,} group{'s' if len(found.groups) != 1 else ''}; what "
               "varies inside one error (ids, numbers, hex, uuids, times) is masked. Click a "
               "group to list its threads only.")
    event = st.dataframe(
        [{"count": group.count, "error": group.key,
          "newest": (group.newest_at or "")[:19].replace("T", " "),
          "nodes": clip(", ".join(group.nodes), 200),
          "example": clip(group.example_thread, 200)} for group in found.groups],
        hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
        key=table,
        column_config={"error": st.column_config.TextColumn(
                           width="large", help="The error, what varies inside it masked: <n> "
                                               "a number, <id> an id, <hex>, <uuid>, <time>, "
                                               "<email>"),
                       "nodes": st.column_config.TextColumn(
                           help="The nodes that raised it (blank where the database does not "
                                "say)"),
                       "example": st.column_config.TextColumn(
                           help="The newest thread of the group")})
    if found.cut:
        st.caption(f":material/hourglass_bottom: Grouped the {found.failed:,} failed threads "
                   f"read before the deadline: {md_escape(found.cut, 300)}")
    picked = (getattr(event, "selection", None) or {}).get("rows") or []
    if not picked or picked[0] >= len(found.groups):
        return None
    group = found.groups[picked[0]]
    shown_col, all_col = st.columns([3, 1], vertical_alignment="center")
    shown_col.caption(f"Listing one group: {group.count:,} failed "
                      f"thread{'s' if group.count != 1 else ''}.")
    all_col.button("All failed threads", icon=":material/filter_alt_off:",
                   key=f"{prefix}all-failed", on_click=_clear_group, args=(prefix,),
                   width="stretch")
    return group.key


def _whole_error(source: Storage, rows: list[ThreadRow], thread_key: str) -> None:
    """The open thread's error whole (the ``why`` cell holds one line of it), with its node,
    and "no traceback stored" where the database kept none (LangGraph keeps none)."""
    ids = [r.summary.thread_id for r in rows]
    shown = st.session_state.get(thread_key)
    row = rows[ids.index(shown)] if shown in ids else rows[0] if rows else None
    if row is None or row.status != FAILED or not row.summary.head_id:
        return
    try:
        signals = source.signals_at(row.summary.thread_id, [row.summary.head_id])
    except resources.database_errors():
        return  # the tree below says what cannot be read
    error = next((s for s in signals.get(row.summary.head_id, ()) if s.kind == "error"), None)
    if error is None:
        return
    with st.expander("Why it failed, whole", icon=":material/error:"):
        st.caption(f"Thread {md_escape(clip(row.summary.thread_id, 200))}: "
                   f"{md_escape(error.node or 'the run', 200)} failed with")
        st.code(whole_error(error.value), language=None, wrap_lines=True)
        if not holds_traceback(error.value):
            st.caption(":material/info: No traceback stored: LangGraph keeps only the "
                       "exception's repr (its type and message) under the checkpoint, not "
                       "where it was raised. Clone the thread and run it again on your graph "
                       "to see the traceback.")


def thread_table(source: Storage, prefix: str, thread_key: str, on_pick=None,
                 limit: int = 50) -> list[str]:
    """Draw the filters, one page of threads and the page buttons; return the page's thread
    ids (none: the place or the filters have none, and the page says so). A row clicked in
    the table becomes the value of ``thread_key``, the page's **Thread** box.

    Args:
        source: the place.
        prefix: the page's widget prefix.
        thread_key: the key of the box that picks the thread the page shows.
        on_pick: called when a clicked row changes the thread (as the box's own callback).
        limit: threads per page.
    """
    statuses = source.statuses
    _from_url(prefix, statuses)
    status_col, since_col, meta_col, match_col = st.columns([1, 1, 1, 1])
    status_col.selectbox("Status", [ANY, *statuses], key=f"{prefix}filter-status",
                         on_change=_to_url, args=(prefix,),
                         help="paused: at a question or a breakpoint; failed: a node raised; "
                              "finished: nothing left to run"
                              + ("; running: a run is going on" if RUNNING in statuses
                                 else ""))
    since_col.text_input("Written since", key=f"{prefix}filter-since", on_change=_to_url,
                         args=(prefix,), placeholder="2h, 30m or 2026-12-03T10:00",
                         help="Threads whose newest checkpoint was written at or after this: "
                              "a span back from now, or an ISO time (UTC unless it says)")
    meta_col.text_input("Metadata", key=f"{prefix}filter-meta", on_change=_to_url,
                        args=(prefix,), placeholder="user=42, tenant=acme",
                        help="KEY=VALUE pairs a checkpoint of the thread holds in its "
                             "metadata (a run's metadata is stored with each checkpoint)")
    match_col.text_input("Text", key=f"{prefix}filter-match", on_change=_to_url,
                         args=(prefix,), placeholder="an error, a question, an id's start",
                         help="Threads whose error or question contains this, or whose id "
                              "starts with it (any case)")
    query, problem = _query(prefix, limit, statuses)
    if problem:
        st.caption(f":material/error: {md_escape(problem, 300)} (not applied)")
    if query.status == FAILED:
        group = _group_picker(_groups(source, query, prefix), prefix)
        if group != st.session_state.get(f"{prefix}group-shown"):  # another list: its page 1
            st.session_state[f"{prefix}group-shown"] = group
            st.session_state.pop(f"{prefix}pages", None)
            st.session_state.pop(f"{prefix}held", None)
        query = replace(query, error_group=group)
    pages: list[str | None] = st.session_state.setdefault(f"{prefix}pages", [None])
    # a filtered read may take a moment on a large database: say what is going on meanwhile
    with st.spinner("Asking the database for the threads that match…" if query.filtered
                    else "Reading the newest threads…", show_time=query.filtered):
        try:
            page = _page(source, query, pages, prefix)
        except QueryRefused:  # a cursor of another place, or another filter: start over
            st.session_state[f"{prefix}pages"] = pages = [None]
            st.session_state.pop(f"{prefix}held", None)
            page = _page(source, query, pages, prefix)
    rows = page.rows
    columns = _metadata_columns(prefix, rows, [key for key, _ in query.meta])
    # a table per page and filter: its row selection belongs to the rows it showed
    table = f"{prefix}threads-{len(pages)}-{abs(hash((_said(prefix), query.error_group)))}"
    # The key columns first, so a phone's narrow table shows them; "why" only when a thread of
    # the page has one (an empty column as wide as the rest cost a phone its checkpoints).
    said_why = any(r.reason for r in rows)
    event = st.dataframe(
        [{"thread": clip(r.summary.thread_id, 200), "status": r.status,
          **({"why": clip(r.reason)} if said_why else {}),
          **{label: metadata_text(r.metadata.get(key)) for key, label in columns.items()},
          "checkpoints": r.summary.checkpoints,
          "newest": (r.summary.newest_at or "")[:19].replace("T", " "),
          "branches": r.summary.branches, "bytes": r.summary.stored_bytes} for r in rows],
        hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
        key=table,
        column_config={"thread": st.column_config.TextColumn(width="medium"),
                       "bytes": st.column_config.NumberColumn(format="localized"),
                       "why": st.column_config.TextColumn(
                           width="medium", help="The error or the question, on one line: "
                                                "the open thread's error is under the table, "
                                                "whole")},
    )
    ids = [r.summary.thread_id for r in rows]
    picked = (getattr(event, "selection", None) or {}).get("rows") or []
    # a click is acted on once: the table keeps its selection across runs, and the Thread box
    # may have picked another since
    if picked and picked[0] < len(ids) and st.session_state.get(f"{table}-acted") != picked[0]:
        st.session_state[f"{table}-acted"] = picked[0]
        if st.session_state.get(thread_key) != ids[picked[0]]:
            st.session_state[thread_key] = ids[picked[0]]
            if on_pick is not None:
                on_pick()
    _whole_error(source, rows, thread_key)
    facts = [f"page {len(pages)}", f"{len(rows)} thread{'s' if len(rows) != 1 else ''}"]
    if query.filtered:
        facts.append(f"{page.scanned:,} read to find them")
    st.caption(" · ".join(facts) + " · newest first; click a row to open its thread")
    if page.cut:
        cut_col, keep_col = st.columns([3, 1], vertical_alignment="center")
        cut_col.caption(f":material/hourglass_bottom: The search stopped early: "
                        f"{md_escape(page.cut, 300)}. Keep reading goes on from there and adds "
                        "what it finds to this page.")
        keep_col.button("keep reading", icon=":material/manage_search:",
                        key=f"{prefix}keep-reading", disabled=page.next_cursor is None,
                        on_click=_ask_more, args=(prefix,), width="stretch")
    newer_col, older_col, _ = st.columns([1, 1, 2])
    newer_col.button("Newer threads", icon=":material/arrow_upward:",
                     key=f"{prefix}page-newer", disabled=len(pages) == 1,
                     on_click=_turn, args=(prefix, pages.pop), width="stretch")
    older_col.button("Older threads", icon=":material/arrow_downward:",
                     key=f"{prefix}page-older", disabled=page.next_cursor is None,
                     on_click=_turn, args=(prefix, lambda: pages.append(page.next_cursor)),
                     width="stretch")
    if not ids:
        st.info("No thread found yet among those read: keep reading to go on."
                if page.cut else "No thread matches these filters." if query.filtered
                else "This database has no threads yet.", icon=":material/info:")
    return ids
