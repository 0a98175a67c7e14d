"""Every page of the playground, in one list: its file, its title, where the navigation puts it,
and who sees it (which mode, which kind of app, a look from the facilitator's board).

``ui/app.py`` builds the navigation from :data:`PAGES`, and the tests that walk every page read
the same list, so a page added here is drawn and tested without another list to keep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playground.access.mode import DEBUGGER, WORKSHOP
from playground.apps.app import App
from playground.ui import resources

VIEWS = Path(__file__).parent / "views"
BOTH = frozenset({DEBUGGER, WORKSHOP})


def _any(app: App) -> bool:
    return True


def _ticket_agent(app: App) -> bool:
    return app.builtin


def _runs_here(app: App) -> bool:
    """A graph to run (:func:`playground.ui.resources.runs_a_graph`)."""
    return resources.runs_a_graph()


def _own_graph(app: App) -> bool:
    return not app.builtin


def _on_server(app: App) -> bool:
    return app.runs_on_server


@dataclass(frozen=True)
class PageEntry:
    """One page.

    Attributes:
        file: its script in ``ui/views/`` (its URL path is the file's stem).
        title: its name in the navigation.
        icon: a Material icon.
        section: the navigation's heading it is listed under ("" for none).
        modes: the modes it is part of (:data:`~playground.ui.workspace.DEBUGGER`,
            :data:`~playground.ui.workspace.WORKSHOP`).
        shows: which apps it is for (the ticket agent's lessons, a graph of one's own, an
            Agent Server's).
        looks: drawn in a look at a room from the facilitator's board: it draws no action
            that writes (the others say so instead of drawing there).
        hidden: reachable by its address only (the board).
    """

    file: str
    title: str
    icon: str
    section: str = ""
    modes: frozenset[str] = BOTH
    shows: Callable[[App], bool] = _any
    looks: bool = False
    hidden: bool = False

    @property
    def path(self) -> Path:
        """The page's script."""
        return VIEWS / self.file

    @property
    def url_path(self) -> str:
        """Its address: ``/history`` for ``history.py``."""
        return self.file.removesuffix(".py")

    def shown(self, app: App, mode: str) -> bool:
        """Whether the navigation holds this page for ``app`` in ``mode``."""
        return mode in self.modes and self.shows(app)


GRAPH, LESSONS = "Graph", "Workshop lessons"
PAGES: tuple[PageEntry, ...] = (
    # The root address (Streamlit's default page, served at "/" alone): it sends the browser
    # on to the page the server opens on (opening_page), at that page's own address.
    PageEntry("home.py", "Home", ":material/home:", looks=True, hidden=True),
    PageEntry("start.py", "Start", ":material/flag:", looks=True),
    # The facilitator's board is at /board, never in the attendees' navigation (it checks who
    # asks).
    PageEntry("board.py", "Board", ":material/dashboard:", modes=frozenset({WORKSHOP}),
              hidden=True),
    PageEntry("run.py", "Run", ":material/play_circle:", GRAPH, shows=_runs_here),
    PageEntry("history.py", "History", ":material/account_tree:", GRAPH, looks=True),
    PageEntry("memory.py", "Memory", ":material/memory:", GRAPH, shows=_own_graph),
    PageEntry("sizes.py", "Sizes", ":material/database:", GRAPH),
    PageEntry("inspect.py", "Inspect", ":material/search:", GRAPH),
    # The Agent Server's own conflict lesson: two runs on one thread.
    PageEntry("server_conflicts.py", "Conflicts", ":material/sync_problem:", LESSONS,
              shows=_on_server),
    # The ticket agent's lessons: the workshop itself.
    PageEntry("agent.py", "Agent", ":material/smart_toy:", LESSONS, modes=frozenset({WORKSHOP}),
              shows=_ticket_agent),
    PageEntry("conflicts.py", "Conflicts", ":material/sync_problem:", LESSONS,
              modes=frozenset({WORKSHOP}), shows=_ticket_agent),
    PageEntry("schema.py", "Schema", ":material/schema:", LESSONS, modes=frozenset({WORKSHOP}),
              shows=_ticket_agent),
)


def page(file: str) -> PageEntry:
    """The entry of a page's script."""
    return next(entry for entry in PAGES if entry.file == file)


def opening_page() -> str:
    """The page this server opens on: a place's threads when ``playground run PLACE`` named
    one, the tour for the ticket agent's workshop (and a look from the board), Run for a graph
    of one's own."""
    from playground.access.mode import opened_place
    from playground.ui.session import read_only

    if read_only():
        return "start.py"
    if opened_place():
        return "inspect.py"
    return "start.py" if resources.app().builtin else "run.py"
