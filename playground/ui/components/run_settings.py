"""The ``Context`` (or ``Configurable``) form of a graph, and the values a thread runs with.

A graph with a ``context_schema`` gets one field per key, labelled with the key, holding what
the thread last ran with: what this session typed for it, else what its newest checkpoint
records (:func:`playground.runtime.driven.settings_in`), else the schema's defaults, which is
what ``langgraph dev`` passes when nothing is set. Every action on the thread (run, answer,
continue, retry, replay, fork) runs with those values.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from playground.apps.app import App
from playground.apps.inputs import InputField, InputRefused, context_fields, parse_settings
from playground.runtime.driven import DrivenGraph, RunSettings, settings_in

TYPED_KEY = "run-settings"  # {thread_id: {field: text}}: what this session typed per thread


def _as_typed(fields: list[InputField], recorded: dict[str, Any]) -> dict[str, str]:
    typed = {}
    for field in fields:
        if field.name not in recorded:
            typed[field.name] = field.default
            continue
        value = recorded[field.name]
        typed[field.name] = value if field.is_text and isinstance(value, str) else json.dumps(
            value)
    return typed


def _recorded(graph: DrivenGraph, thread_id: str) -> RunSettings | None:
    try:
        snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
    except Exception:  # a thread that cannot be read shows defaults; the page says why elsewhere
        return None
    return settings_in(getattr(snapshot, "metadata", None))


def _typed(app: App, graph: DrivenGraph, thread_id: str) -> tuple[list[InputField], dict]:
    """The form's fields, and the text each holds for this thread."""
    kind, schema = app.settings_schema
    fields = context_fields(app.template, schema)
    kept = st.session_state.get(TYPED_KEY, {}).get(thread_id)
    if kept is not None:
        return fields, {f.name: kept.get(f.name, f.default) for f in fields}
    recorded = _recorded(graph, thread_id)
    values = (recorded.context if kind == "context" else recorded.configurable) if recorded \
        else None
    return fields, _as_typed(fields, values or {})


def _settings(kind: str, values: dict[str, Any]) -> RunSettings:
    return RunSettings(context=values) if kind == "context" else RunSettings(configurable=values)


def thread_settings(app: App, graph: DrivenGraph, thread_id: str) -> RunSettings:
    """What the thread runs with, without drawing a form (History's replay and fork)."""
    if app.settings_schema is None:
        return RunSettings()
    kind, schema = app.settings_schema
    fields, typed = _typed(app, graph, thread_id)
    try:
        return _settings(kind, parse_settings(fields, typed, schema))
    except InputRefused:
        return _settings(kind, parse_settings(fields, {}, None))


def settings_form(app: App, graph: DrivenGraph, thread_id: str,
                  key: str = "run-ctx") -> tuple[RunSettings, str | None]:
    """Draw the ``Context`` / ``Configurable`` expander; return the settings and, when a value
    does not fit, the one line that refuses the run (nothing runs then)."""
    if app.settings_schema is None:
        return RunSettings(), None
    kind, schema = app.settings_schema
    fields, typed = _typed(app, graph, thread_id)
    label = "Context" if kind == "context" else "Configurable"
    where = ("passed as `context=` to every run of this thread" if kind == "context"
             else "merged into `config[\"configurable\"]` for every run of this thread")
    with st.expander(label, icon=":material/settings:"):
        name = getattr(schema, "__name__", None) or "The server's context schema"
        st.caption(f"{name}: {where}; remembered per thread.")
        columns = st.columns(2)
        now = {}
        for index, field in enumerate(fields):
            column = columns[index % 2]
            widget_key = f"{key}-{thread_id}-{field.name}"
            help_text = " · ".join(part for part in (field.kind, field.description) if part)
            if field.is_text and ("\n" in typed[field.name] or len(typed[field.name]) > 80):
                now[field.name] = column.text_area(field.name, value=typed[field.name],
                                                   key=widget_key, help=help_text or None)
            else:
                now[field.name] = column.text_input(field.name, value=typed[field.name],
                                                    key=widget_key, help=help_text or None)
    try:
        values = parse_settings(fields, now, schema)
    except InputRefused as exc:
        return _settings(kind, {}), f"{label.lower()}: {exc}"
    kept = dict(st.session_state.get(TYPED_KEY, {}))
    kept[thread_id] = now
    st.session_state[TYPED_KEY] = kept
    return _settings(kind, values), None


def describe_settings(settings: RunSettings | None) -> str:
    """``model='stand-in/large', user_id='ana'``: what a run was given, in one line."""
    if settings is None:
        return ""
    values = {**(settings.context or {}), **settings.configurable}
    return ", ".join(f"{key}={value!r}" for key, value in values.items())
