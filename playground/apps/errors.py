"""The error every way of loading a graph reports: one line for a person (no LangGraph import,
so the CLI can catch it without loading anything)."""


class AppLoadError(Exception):
    """A graph spec or langgraph.json that cannot be loaded; the message is one line."""
