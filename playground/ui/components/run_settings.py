"""The ``Context`` (or ``Configurable``) form of a graph, and the values a thread runs with.

A graph with a ``context_schema`` gets one field per key, labelled with the key, holding what
the thread last ran with: what this session typed for it, else what its newest checkpoint
records (:func:`playground.runtime.driven.settings_in`), else the schema's defaults, which is
what ``langgraph dev`` passes when nothing is set. Every action on the thread (run, answer,
continue, retry, replay, fork) runs with those values.

:func:`value_field` is the one way a form takes a value typed by a person (this form, the Run
page's input form, History's fork form): a text field's box holds the string itself, with a
"null" box beside it where the type allows None; any other field holds JSON.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from playground.apps.app import App
from playground.apps.inputs import (
    InputField,
    InputRefused,
    Typed,
    context_fields,
    parse_settings,
    typed_text,
)
from playground.runtime.driven import (
    DrivenGraph,
    RunSettings,
    settings_in,
    thread_run_settings,
)

TYPED_KEY = "run-settings"  # {thread_id: {field: text}}: what this session typed per thread
LONG_TEXT = 80  # a longer string, or one with a line break, gets a text area


def value_field(where: Any, label: str, text: Typed, key: str, *, nullable: bool = False,
                help: str | None = None, in_form: bool = False, live: bool = False) -> Typed:
    """Draw one field of a form; return what it holds: the text in its box, or None when its
    "null" box is ticked.

    Args:
        where: the container to draw in (``st``, a column).
        label: the field's label.
        text: what it holds at first: the text, or None to tick "null".
        key: the box's widget key; the "null" box's is ``<key>-null``.
        nullable: draw a "null" box after the text box (a text field whose type allows None):
            an empty box is the empty string, not None.
        help: the box's tooltip.
        in_form: the field is an ``st.form``'s, where nothing reruns until the form is
            submitted: a ticked "null" then wins over the text. Elsewhere ticking it greys the
            text box out at once.
        live: a one-line box commits while the person types, after a short pause (not only
            on Enter or when it loses focus), so that what depends on it follows the typing.
    """
    shown = "" if text is None else text
    row, null_key = where, f"{key}-null"
    if nullable:
        # one row at any width: the text box takes what the "null" box leaves
        row = where.container(horizontal=True, vertical_alignment="bottom", gap="small")
        help = " ".join(part for part in (help, NULL_HELP[in_form]) if part)
    # the box's tick as this run sees it, for the text box drawn before it
    greyed = nullable and not in_form and st.session_state.get(null_key, text is None)
    # The browser drops a line break typed into a one-line box: such a string gets an area.
    if "\n" in shown or len(shown) > LONG_TEXT:
        typed = row.text_area(label, value=shown, key=key, help=help, disabled=greyed)
    else:
        typed = row.text_input(label, value=shown, key=key, help=help, disabled=greyed,
                               live=live)
    if nullable and row.checkbox("null", value=text is None, key=null_key, width="content"):
        return None
    return typed


# The tooltip of a field with a "null" box, in a form and elsewhere.
NULL_HELP = {False: "Tick null for None: an empty box is the empty string.",
             True: "Tick null for None (the text is then ignored): an empty box is the empty "
                   "string."}


def _as_typed(fields: list[InputField], recorded: dict[str, Any]) -> dict[str, Typed]:
    return {field.name: typed_text(field, recorded[field.name]) if field.name in recorded
            else field.default for field in fields}


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
    """What the thread runs with, without drawing a form (History's replay and fork): what
    this session typed for it, else what it recorded (:func:`thread_run_settings`)."""
    if app.settings_schema is None:
        return RunSettings()
    return thread_run_settings(app, _recorded(graph, thread_id),
                               st.session_state.get(TYPED_KEY, {}).get(thread_id))


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
            help_text = " · ".join(part for part in (field.kind, field.description) if part)
            now[field.name] = value_field(columns[index % 2], field.name, typed[field.name],
                                          f"{key}-{thread_id}-{field.name}",
                                          nullable=field.nullable, help=help_text or None)
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
