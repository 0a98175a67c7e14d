"""Who may reach a room server: its access token, the facilitator's key, and which peers are
this machine's own.

Plain rules with no Streamlit and no HTTP framework, so the gate in front of the pages
(:mod:`playground.ui.gate`), the pages themselves, ``playground run`` and the workshop's
replicas all decide the same way (docs/security.md, "Serving beyond loopback").
"""
