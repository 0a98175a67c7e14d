"""Long-lived objects of the Streamlit server: the app it runs, the embedded ticket API, the
checkpoint saver, and caches of what sessions read.

They live in ``st.cache_resource``, one per server process, shared by every browser session,
without Streamlit's spinner: a cache filled inside a click's callback would otherwise draw one,
which Streamlit refuses in a fragment's callback (and logs a warning for).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

import streamlit as st
from langgraph.checkpoint.base import BaseCheckpointSaver

from playground.access.mode import debugger
from playground.agent.client import TicketClient
from playground.agent.graph import build_agent
from playground.agent.ticket_service import DEFAULT_TICKETS_DB
from playground.apps.app import App
from playground.apps.errors import AppLoadError
from playground.apps.launch import AppChoice, choice_from_env, load_apps, reload_app
from playground.apps.sources import SourceWatch
from playground.apps.state_fields import delta_reducers
from playground.apps.store_config import store_options
from playground.event_loop import shared_loop
from playground.places.base import Place
from playground.places.door import DEFAULT_CHECKPOINTS, open_place
from playground.runtime.driven import DrivenGraph, driven
from playground.runtime.store_log import open_recording_store
from playground.timetravel.tree import TreeCache, ValuesCache
from ticket_api.server import EmbeddedServer, start_embedded

# Process-wide, by hand rather than st.cache_resource: these are read several times on every
# page run, and Streamlit's hashing of the arguments cost more than the lookups they save.
_LOCK = threading.Lock()
_APPS: dict[AppChoice, dict] = {}
_AGENTS: dict[tuple, object] = {}
_CLIENTS: dict[tuple, TicketClient] = {}
_MAX_CACHED = 512  # agents and clients each: a few per room, for hundreds of rooms


def _keep(cache: dict, key: tuple, value):
    """Put ``value`` in a bounded process-wide cache; the oldest entries go first."""
    with _LOCK:
        while len(cache) >= _MAX_CACHED:
            cache.pop(next(iter(cache)))
        return cache.setdefault(key, value)


GRAPH_KEY = "graph"  # the session's pick among several graphs (also ?graph= in the URL)
WATCH_EVERY_S = 1.0  # how often a page run looks at the app's files for a change


def _app_holder(choice: AppChoice) -> dict:
    # A holder, not the apps themselves: a reload swaps in new apps only when they load. Keyed
    # by the choice, which a server reads once from its environment (tests change it).
    holder = _APPS.get(choice)
    if holder is None:
        with _LOCK:
            holder = _APPS.get(choice)
            if holder is None:
                apps = load_apps(choice)
                folders = tuple(f for a in apps.values() for f in a.folders)
                holder = {"apps": apps, "watch": SourceWatch(folders), "checked": 0.0,
                          "reloads": 0, "notice": ""}
                _APPS[choice] = holder
    return holder


def apps() -> dict[str, App]:
    """Every app this server runs, by name: one, or each graph of a served langgraph.json."""
    return _app_holder(choice_from_env())["apps"]


def selected_name() -> str:
    """The graph this session works on, the one place every page reads it from: the address's
    ``?graph=`` when it names one of this server's graphs (a reload, a bookmark, a new tab, a
    link), else the session's pick (a sidebar link's address holds no query), else the first.

    The address's graph becomes the session's, so a page reached without one keeps it."""
    names = list(apps())
    asked = st.query_params.get("graph")
    if asked in names:
        st.session_state[GRAPH_KEY] = asked
        return asked
    picked = st.session_state.get(GRAPH_KEY)
    return picked if picked in names else names[0]


def unknown_graph() -> str | None:
    """The address's ``?graph=`` when no graph of this server has that name (a bookmark of
    another server, a typo), else None. Untrusted text: show it escaped."""
    asked = st.query_params.get("graph")
    return asked if asked and asked not in apps() else None


def app() -> App:
    """The app this session runs: the graph named by ``playground run`` (the one picked, when a
    langgraph.json with several is served), or the ticket agent.

    Raises:
        AppLoadError: the graph no longer loads (its file changed since the server started).
    """
    holder = _app_holder(choice_from_env())
    _reload_if_changed(holder)
    return holder["apps"][selected_name()]


def _reload_if_changed(holder: dict) -> None:
    """Hot reload, as ``langgraph dev`` does: when one of the app's files changed, import the
    apps again (at most one look per WATCH_EVERY_S; each look is a stat per file)."""
    now = time.monotonic()
    if now - holder["checked"] < WATCH_EVERY_S:
        return
    holder["checked"] = now
    changed = holder["watch"].changed()
    if not changed:
        return
    with _LOCK:
        if not holder["watch"].changed():  # another session reloaded meanwhile
            return
        choice = choice_from_env()
        where = ", ".join(sorted({path.name for path in changed}))
        try:
            holder["apps"] = {name: reload_app(old, choice)
                              for name, old in holder["apps"].items()}
        except AppLoadError as exc:
            holder["notice"] = (f"{where} changed, but the graph does not load now: {exc}. "
                                "The graph loaded before keeps running; fix the file and save.")
        else:
            holder["notice"] = (f"Graph reloaded at {time.strftime('%H:%M:%S')}: {where} "
                                "changed.")
        holder["reloads"] += 1
        holder["watch"].rescan()


def reload_notice() -> tuple[int, str]:
    """How many hot reloads happened, and what the last one says (for the page to show)."""
    holder = _app_holder(choice_from_env())
    return holder["reloads"], holder["notice"]


def reload() -> App:
    """Import the session's app again (after its author fixed it) for every session.

    Raises:
        AppLoadError: the code still does not give a graph; the app loaded before stays.
    """
    choice = choice_from_env()
    holder = _app_holder(choice)
    name = selected_name()
    holder["apps"] = {**holder["apps"], name: reload_app(holder["apps"][name], choice)}
    holder["watch"].rescan()
    return holder["apps"][name]


@st.cache_resource(on_release=lambda server: server.stop(), show_spinner=False)
def _embedded_api(tickets_db: str) -> EmbeddedServer:
    # The ticket store makes a file's folder itself.
    return start_embedded(tickets_db)


def database_url() -> str | None:
    """The Postgres URL replicas share (``PLAYGROUND_DATABASE_URL``), or None for SQLite."""
    return os.environ.get("PLAYGROUND_DATABASE_URL") or None


def api_url() -> str:
    """The ticket API's URL: the configured one, or the embedded server's.

    The embedded API keeps tickets in ``PLAYGROUND_TICKETS_DB``, else in the shared Postgres
    database, else in a SQLite file under ``.playground/``. Read on every run: a cache clear
    restarts the embedded server on a new port.
    """
    configured = os.environ.get("PLAYGROUND_API_URL")
    if configured:
        return configured
    tickets = os.environ.get("PLAYGROUND_TICKETS_DB") or database_url() or str(DEFAULT_TICKETS_DB)
    return _embedded_api(tickets).url


def runs_a_graph() -> bool:
    """Whether this server has a graph to run: one's own, or the ticket agent in its workshop
    (a debugger opened on a place alone runs nothing, so nothing replays there)."""
    return not (app().builtin and debugger())


def checkpoints_path() -> Path:
    """Where the playground's checkpoints live."""
    return Path(os.environ.get("PLAYGROUND_CHECKPOINTS", str(DEFAULT_CHECKPOINTS)))


def checkpoints_target() -> str:
    """Where checkpoints live: the Agent Server ``playground run --server`` named, the shared
    Postgres URL, or the SQLite file."""
    return choice_from_env().server or database_url() or str(checkpoints_path())


@st.cache_resource(show_spinner=False)
def _place(target: str) -> Place:
    """The server's one place per target: what a restart did to it (its savers' generation)
    lives in it, so every session sees the same."""
    return open_place(target)


def place() -> Place:
    """Where this server's checkpoints live (:func:`checkpoints_target`), behind the door."""
    return _place(checkpoints_target())


# No on_release: another session may be mid-call on an older saver, and closing its connection
# under it crashes the server. An evicted SQLite connection closes once nobody holds it.
@st.cache_resource(max_entries=8, show_spinner=False)
def _saver(target: str, generation: int, app_name: str) -> BaseCheckpointSaver:
    # The serializer allows the app's declared state classes and LangGraph's safe types only,
    # so each app (several graphs of one langgraph.json) has its own saver on the same tables.
    # Opened on the process's loop, which every graph runs on and which owns its connection
    # (a pool on Postgres: every session, every replica's own connections).
    return shared_loop().run(_place(target).open_saver(apps()[app_name].serde()))


def saver() -> BaseCheckpointSaver | None:
    """The server's one saver: AsyncSqliteSaver on the file, or AsyncPostgresSaver on a pool;
    None for graphs an Agent Server runs (it keeps their checkpoints).

    Graphs run on it through their async API (:mod:`playground.runtime.driven`); its sync
    methods (``delete_thread``, ``get_tuple``) also work from a page's thread.
    """
    app_now = app()
    if app_now.runs_on_server:
        return None
    here = place()
    # Keyed by the place's generation: Restart process makes a new saver where the place says
    # a restart does (a file, to show a resume from disk; not a shared Postgres pool).
    return _saver(checkpoints_target(), here.generation, app_now.name)


# Like the saver: never closed under a session that may be using it.
@st.cache_resource(max_entries=8, show_spinner=False)
def _store(target: str, app_name: str):
    app_now = apps()[app_name]
    base = app_now.folders[0] if app_now.folders else None
    options = store_options(app_now.store_config, base)
    return shared_loop().run(open_recording_store(_place(target), options))


def store():
    """The long-term store the session's app gets (``AsyncSqliteStore`` beside the checkpoints,
    ``AsyncPostgresStore`` in their database), or None for the built-in agent, which has none.

    Raises:
        AppLoadError: langgraph.json's ``store`` section cannot be honoured; one line.
    """
    app_now = app()
    if app_now.builtin:
        return None
    if app_now.runs_on_server:  # the server's own store, through its API
        return app_now.template.store
    return _store(checkpoints_target(), app_now.name)


def restart_process() -> None:
    """Start over with the in-memory objects a process restart would lose: the next run gets a
    new saver on a new connection (graphs are compiled on every run anyway).

    The old saver is not closed: other sessions of this server may be using it right now. The
    checkpoint file (or database) and the ticket API stay.
    """
    place().restart()


def room_records_target() -> str:
    """The place the rooms' records live beside: the shared Postgres database (every
    replica's rooms in one place), or the SQLite checkpoint file (a ``rooms.sqlite`` beside
    it), even when a run's threads live on an Agent Server."""
    return database_url() or str(checkpoints_path())


@st.cache_resource(show_spinner=False)
def _room_records(target: str, owner: str):
    from playground.lessons.room_records import ROOMS, RoomRecords

    return RoomRecords(_place(target).own_tables(ROOMS), owner)


def room_records():
    """The rooms' records (:class:`~playground.lessons.room_records.RoomRecords`): what each
    room did, for its tour and the facilitator's board; the facilitator's mark kept under the
    room's access token."""
    from playground.access.token import room_fingerprint

    return _room_records(room_records_target(), room_fingerprint())


@st.cache_resource(show_spinner=False)
def tree_cache() -> TreeCache:
    """Checkpoint trees shared by every session; each is re-read only when its thread changed."""
    return TreeCache()


@st.cache_resource(show_spinner=False)
def values_cache() -> ValuesCache:
    """Decoded checkpoint values shared by every session, keyed by checkpoint and fingerprint."""
    return ValuesCache()


def _agent(target: str, generation: int, api: str, tenant: str, actor: str,
           schema: str) -> DrivenGraph:
    # Keyed by the saver's generation too: after Restart process the agent runs on the new saver.
    key = (target, generation, api, tenant, actor, schema)
    graph = _AGENTS.get(key)
    if graph is None:
        graph = _keep(_AGENTS, key, driven(build_agent(
            client(tenant, actor), _saver(target, generation, app().name), schema=schema)))
    return graph


def client(tenant: str, actor: str) -> TicketClient:
    """The ticket API client of one workspace and actor, made once per server process.

    Shared by every session and thread: its connection pool is thread-safe. Making a
    client and its TCP connection on every page run cost a few milliseconds of CPU per click.
    """
    key = (api_url(), tenant, actor)
    found = _CLIENTS.get(key)
    if found is None:
        made = TicketClient(key[0], tenant=tenant, actor=actor)
        found = _keep(_CLIENTS, key, made)
        if found is not made:  # another session made it first
            made.close()
    return found


def agent(tenant: str, actor: str, schema: str = "etag") -> DrivenGraph:
    """The ticket agent of one workspace and actor on the server's saver, compiled once and
    driven through its async API like any app's graph.

    A compiled graph and its client are safe to share: every call is keyed by its thread, and
    the client's connections are pooled.
    """
    return _agent(checkpoints_target(), place().generation, api_url(), tenant, actor, schema)


def own_storage():
    """The server's own checkpoint database, read-only, for one page run.

    Shared: on Postgres each query borrows a connection of a small pool, so a page that never
    closes it keeps nothing; on SQLite it opens the file, which costs nothing.
    """
    saver()  # the file (or database) and its tables exist before it is opened read-only
    reads = place().reads(shared=True)
    # The graph the person named folds its own DeltaChannels, as LangGraph would.
    with contextlib.suppress(AppLoadError):  # the page says a graph that no longer loads
        reads.reducers = delta_reducers(app().template)
    return reads


def graph_reducers() -> dict:
    """The reducers of the DeltaChannels of the graph the person who started the playground
    named (``--graph``, ``--config``: the session's pick among several), for a storage a page
    opens on any place (Inspect): its values then fold as the app folds them. None when no
    graph was named (the built-in agent is no app of an opened database), or when it no longer
    loads (the page says so where it runs the graph)."""
    choice = choice_from_env()
    if not (choice.graph or choice.config):
        return {}
    try:
        return delta_reducers(app().template)
    except AppLoadError:
        return {}


def database_errors() -> tuple[type[Exception], ...]:
    """What reading a checkpoint database can raise, shown as one line and never a traceback
    (:func:`playground.places.door.database_errors`)."""
    from playground.places.door import database_errors as errors

    return errors()
