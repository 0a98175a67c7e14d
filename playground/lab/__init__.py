"""Lessons the playground's pages teach, as pure commands over the agent, the API and the file.

Each module offers one named command per user action and returns frozen dataclasses a page
renders. Nothing here imports streamlit.
"""
