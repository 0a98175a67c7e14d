"""The graphs an Agent Server runs, as apps of the playground (``playground run --server``).

Each assistant the server lists becomes an :class:`~playground.apps.app.App` whose graph is a
:class:`~playground.apps.server_graph.ServerGraph`: every page drives it as it drives a
local graph, and every run, edit and fork happens on the server. Nothing of the graph's code
is imported here: what the pages know of it (nodes, drawing, state keys, input fields, whether
it is a chat) comes from the server's API.
"""

from __future__ import annotations

from playground.apps.app import App
from playground.apps.errors import AppLoadError
from playground.places.door import open_place
from playground.places.server_address import ServerError
from playground.timetravel.limits import clip


class ServerApp(App):
    """An assistant of an Agent Server: runs on the server, never on a local saver."""

    runs_on_server = True

    @property
    def has_messages(self) -> bool:
        """True when the server's state schema has a ``messages`` key: a chat."""
        return self.template.is_chat

    @property
    def settings_schema(self) -> tuple[str, None] | None:
        """``("context", None)`` when the server's context schema has fields (the form is
        built from its JSON schema), else None."""
        return ("context", None) if self.template.get_context_jsonschema()["properties"] \
            else None

    @property
    def nodes(self) -> list[str]:
        return [name for name in self.template.nodes if name != "__start__"]


def server_apps(url: str) -> dict[str, App]:
    """One app per assistant of the server at ``url`` (its graphs, in the order it lists them).

    Raises:
        AppLoadError: no server answers there, or it serves no graph; one line.
    """
    from playground.apps.server_graph import ServerGraph, safe_name

    place = open_place(url)
    client = place.client
    try:
        found = client.call(client.sdk.assistants.search, limit=100)
    except ServerError as exc:
        raise AppLoadError(str(exc)) from None
    apps: dict[str, App] = {}
    for assistant in found if isinstance(found, list) else ():
        if not isinstance(assistant, dict) or not isinstance(assistant.get("assistant_id"), str):
            continue
        name = safe_name(assistant.get("graph_id") or assistant.get("name") or "graph")
        if name in apps:
            continue  # another assistant of the same graph: the graph's own is listed first
        graph = ServerGraph(client, assistant["assistant_id"], name)
        description = assistant.get("description")
        apps[name] = ServerApp(
            name, f"{name} on {place.label}", graph, build=lambda saver, context, g=graph: g,
            description=clip(description, 300) if isinstance(description, str) else "")
    if not apps:
        raise AppLoadError(f"{place.label} serves no graph (assistants.search answered none)")
    return apps
