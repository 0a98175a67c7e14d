"""The root address: sends the browser on to the page this server opens on, at that page's own
address, so every page is addressable and a bookmark of any of them works (Streamlit serves its
default page at ``/`` alone: a default page's own path answers "Page not found")."""

from __future__ import annotations

import streamlit as st

from playground.ui.pages import opening_page

st.switch_page(f"views/{opening_page()}", query_params=st.query_params.to_dict())
