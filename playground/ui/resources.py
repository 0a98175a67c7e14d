"""Long-lived objects of the Streamlit server: the embedded ticket API and the checkpoint saver.

They live in ``st.cache_resource``, one per server process, shared by every browser session.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import streamlit as st
from langgraph.checkpoint.sqlite import SqliteSaver

from playground.savers import DEFAULT_CHECKPOINTS
from playground.ticket_service import DEFAULT_TICKETS_DB
from playground.timetravel.tree import TreeCache
from ticket_api.server import EmbeddedServer, start_embedded


@st.cache_resource(on_release=lambda server: server.stop())
def _embedded_api(tickets_db: str) -> EmbeddedServer:
    Path(tickets_db).parent.mkdir(parents=True, exist_ok=True)
    return start_embedded(tickets_db)


def api_url() -> str:
    """The ticket API's URL: the configured one, or the embedded server's.

    Read on every run: a cache clear restarts the embedded server on a new port.
    """
    configured = os.environ.get("PLAYGROUND_API_URL")
    if configured:
        return configured
    return _embedded_api(os.environ.get("PLAYGROUND_TICKETS_DB", str(DEFAULT_TICKETS_DB))).url


def checkpoints_path() -> Path:
    """Where the playground's checkpoints live."""
    return Path(os.environ.get("PLAYGROUND_CHECKPOINTS", str(DEFAULT_CHECKPOINTS)))


@st.cache_resource(on_release=lambda saver: saver.conn.close())
def _saver(path: str) -> SqliteSaver:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    # One connection for every session: SqliteSaver serializes its calls with its own lock.
    saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False, timeout=30))
    saver.setup()
    return saver


def saver() -> SqliteSaver:
    """The server's one SqliteSaver on the checkpoint file."""
    return _saver(str(checkpoints_path()))


def restart_process() -> None:
    """Drop the in-memory objects a process restart would lose: the saver and its connection.

    Graphs are compiled on every run anyway. The checkpoint file and the ticket API stay.
    """
    _saver.clear()


@st.cache_resource
def tree_cache() -> TreeCache:
    """Checkpoint trees shared by every session; each is re-read only when its thread changed."""
    return TreeCache()
