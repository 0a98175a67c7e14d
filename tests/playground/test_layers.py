"""The package's import graph: no circle, no arrow back up a layer, the engine imports nothing
that runs a graph, only the kinds of place talk to a database's driver, and only the door picks
a kind. (The boundaries between the
repository's packages are tests/test_boundaries.py's.)

Every ``import`` counts, at module level or inside a function (a lazy import is an arrow all the
same: it runs, and it can close a circle).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "playground"
DRIVERS = {"sqlite3", "psycopg", "psycopg_pool", "aiosqlite"}

# Modules outside the kinds of place that need a raw driver, and why: none of them reads or
# changes checkpoint tables for the engine.
DRIVER_ALLOWED = {
    # the lessons' byte table: raw sizes of four approaches written side by side, the point
    # of the lesson being what each one stores
    "playground.lessons.state_sizes",
    # writes the bundled sample database with SqliteSaver, then vacuums it
    "playground.samples.make_samples",
    # the many-thread fixture: seed threads run on the real saver, then their rows copied in
    # the saver's own tables under new thread ids (INSERT ... SELECT)
    "playground.testing.many_threads",
}
# The kinds of place (a module, or a package and its modules): only the door (and the
# package's own modules) import them.
KIND_MODULES = {"playground.places.sqlite", "playground.places.postgres",
                "playground.places.saver_object", "playground.places.agent_server"}
# Layers, lowest first: a module imports only from its own layer or below (docs/architecture.md).
LAYERS = [
    {"timetravel", "serde", "standin", "samples"},  # the pure engine and plain helpers
    # where threads live; who may reach them; the ticket agent; the loop
    {"places", "access", "agent", "event_loop"},
    {"savers", "apps"},  # the savers graphs run on; what a graph is to the playground
    {"runtime"},  # running and acting on graphs
    {"lessons", "regression"},  # what is built on running graphs
    {"cli", "ui", "server_process", "testing", "mcp"},  # the edges
]
# Imports that run a graph: the engine reads checkpoints and never imports these.
RUNS_GRAPHS = ("langgraph.graph", "langgraph.pregel", "langgraph.func", "langchain",
               "langchain_core.runnables")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports(path: Path, name: str) -> set[str]:
    """Every module ``path`` imports (absolute names; relative imports resolved)."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def graph() -> dict[str, set[str]]:
    """Arrows between the package's own modules."""
    known = modules()
    return {name: {target for target in imports(path, name) if target in known and
                   target != name}
            for name, path in known.items()}


def find_circle(arrows: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(arrows.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state:
                circle = visit(target)
                if circle:
                    return circle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(arrows):
        if node not in state:
            circle = visit(node)
            if circle:
                return circle
    return None


def test_the_package_import_graph_has_no_circle():
    arrows = graph()
    # Parent packages import nothing of their children here, so a package's arrow to a child
    # (``playground.timetravel`` -> ``playground.timetravel.storage``) is not a circle either.
    assert find_circle(arrows) is None, " -> ".join(find_circle(arrows) or [])


def test_the_finder_sees_a_circle_through_a_lazy_import(tmp_path):
    # The check above is only worth something if a circle is found when there is one.
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from playground.ui import resources\n")
    assert "playground.ui.resources" in imports(module, "m")


def test_the_engine_imports_nothing_above_it():
    above = {
        name: sorted(target for target in targets
                     if not target.startswith("playground.timetravel"))
        for name, targets in graph().items() if name.startswith("playground.timetravel")
    }
    assert {name: targets for name, targets in above.items() if targets} == {}


def test_only_the_kinds_of_place_use_a_database_driver():
    users = {
        name for name, path in modules().items()
        if {target.split(".")[0] for target in imports(path, name)} & DRIVERS
    }
    kinds = {name for name in users if name.startswith("playground.places.")}

    assert kinds >= {"playground.places.sqlite.reads", "playground.places.postgres.reads"}
    assert users - kinds == DRIVER_ALLOWED


def layer_of(name: str) -> int:
    top = name.split(".")[1] if "." in name else name
    return next(rank for rank, members in enumerate(LAYERS) if top in members)


def test_every_module_belongs_to_a_layer():
    unplaced = sorted(name for name in modules() if name != "playground"
                      and not any(name.split(".")[1] in layer for layer in LAYERS))
    assert unplaced == []


def test_no_import_runs_back_up_a_layer():
    upward = sorted(f"{name} -> {target}" for name, targets in graph().items()
                    if name != "playground" for target in targets
                    if target != "playground" and layer_of(target) > layer_of(name))
    assert upward == []


def test_the_engine_imports_nothing_that_runs_a_graph():
    found = sorted(f"{name}: {target}" for name, path in modules().items()
                   if name.startswith("playground.timetravel")
                   for target in imports(path, name) if target.startswith(RUNS_GRAPHS))
    assert found == []


def test_no_caller_outside_the_door_imports_a_kind_of_place():
    callers = sorted(f"{name} -> {target}" for name, targets in graph().items()
                     if not name.startswith("playground.places") for target in targets
                     if target in KIND_MODULES or target.startswith(
                         tuple(f"{kind}." for kind in KIND_MODULES)))
    assert callers == []


# A URL's scheme, however a comparison spells it: "postgresql://", "https:", "sqlite+x:", or
# any text holding "://".
SCHEME_TEXT = re.compile(r"^\s*(postgres(ql)?|https?|sqlite|file|wss?)(\+\w+)?:|://", re.I)
# A text test (a prefix, a pattern) that starts with a scheme's name: "https", "postgres(ql)?:".
SCHEME_START = re.compile(r"^\^?\s*(postgres|https?|sqlite|wss?)(?![a-z])", re.I)
# Calls that compare or cut a text by a part of it.
TEXT_TESTS = {"startswith", "endswith", "removeprefix", "partition", "split", "find", "index",
              "match", "fullmatch", "search"}


def scheme_comparisons(source: str) -> list[int]:
    """The lines of ``source`` where a URL's scheme is compared: a comparison or a text test
    holding scheme text, or comparing a ``.scheme`` (``urlsplit(url).scheme == "https"``) or a
    split URL's first part (``urlsplit(url)[0]``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name not in TEXT_TESTS:
                continue
        elif not isinstance(node, ast.Compare):
            continue
        parts = list(ast.walk(node))
        texts = [part.value for part in parts
                 if isinstance(part, ast.Constant) and isinstance(part.value, str)]
        starts = isinstance(node, ast.Call) and any(SCHEME_START.search(text) for text in texts)
        if starts or any(SCHEME_TEXT.search(text) for text in texts) or (
                isinstance(node, ast.Compare) and any(_names_a_scheme(part) for part in parts)):
            found.append(node.lineno)
    return found


def _names_a_scheme(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "scheme":
        return True
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "attr", getattr(node.value.func, "id", ""))
            in {"urlsplit", "urlparse"})


def test_no_caller_outside_the_door_branches_on_the_kind():
    # Picking a kind by looking at a target is the door's alone (places/door.py and each
    # kind's ``claims``): no page, command, lesson, saver or store asks which database this is,
    # nor compares a URL's scheme, however it is spelt.
    branching = []
    for name, path in modules().items():
        if name.startswith("playground.places"):
            continue
        text = path.read_text(encoding="utf-8")
        for word in ("is_postgres_url(", 'kind == "postgres"', 'kind == "sqlite"'):
            if word in text:
                branching.append(f"{name}: {word}")
        branching += [f"{name}:{line}: compares a URL's scheme"
                      for line in scheme_comparisons(text)]
    assert branching == []


def test_the_scheme_check_sees_each_spelling():
    # The test above is only worth something if each way of comparing a scheme is caught.
    spellings = [
        'ok = target.startswith(("postgres://", "postgresql://"))',
        'ok = target[:13] == "postgresql://"',
        'ok = "://" in target',
        'ok = urlsplit(target).scheme == "https"',
        'ok = urlsplit(target)[0] in ("http", "https")',
        'ok = re.match(r"postgres(ql)?:", target)',
        'ok = target.lower().startswith("HTTP:")',
    ]
    assert [bool(scheme_comparisons(line)) for line in spellings] == [True] * len(spellings)
    assert scheme_comparisons('ok = kind == "file" and label.startswith("post")') == []


def test_no_caller_reaches_into_a_storage_connection():
    # The protocol declares no ``conn``: a caller holding one would bypass the backend's
    # transactions, deadlines and read-only session.
    reached = []
    for name, path in modules().items():
        if name.startswith("playground.places"):
            continue
        text = path.read_text(encoding="utf-8")
        for word in ("source.conn", "storage.conn"):
            if word in text:
                reached.append(f"{name}: {word}")
    assert reached == []


def test_a_command_on_a_file_never_loads_the_agent_servers_http_client():
    # httpx and langgraph-sdk take a third of a second to import: the CLI (and the door every
    # command goes through) load them only when a server is opened.
    import subprocess
    import sys

    probe = ("import sys; import playground.cli, playground.places.door; "
             "print(sorted(m for m in ('httpx', 'langgraph_sdk') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           check=True, cwd=ROOT)
    assert found.stdout.strip() == "[]"
