"""The web server ``playground run`` starts: the pages (``app.py``) behind the room's gate.

``streamlit run`` finds ``app`` below by itself (Streamlit's ``st.App``) and serves it with
uvicorn: the gate (:class:`playground.ui.gate.RoomGate`) sees every request first, the
websocket a page runs on and every upload included, and the facilitator's sign-in is a route
of its own.
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware
from starlette.routing import Route

from playground.ui.gate import BOARD_SIGN_IN, BoardSignIn, RoomGate

# uvicorn says "Started server process", "Waiting for application startup"... at INFO; the
# terminal of `playground run` carries only the URLs a person needs (and what goes wrong).
logging.getLogger("uvicorn.error").setLevel(logging.WARNING)

PAGES = Path(__file__).with_name("app.py")

app = st.App(
    str(PAGES),
    routes=[Route(BOARD_SIGN_IN, BoardSignIn(), methods=["GET", "POST"])],
    middleware=[Middleware(RoomGate)],
)
