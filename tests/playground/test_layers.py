"""The package's import graph: no circle, the engine imports nothing above it, and only the
storage backends talk to a checkpoint database's driver.

Every ``import`` counts, at module level or inside a function (a lazy import is an arrow all the
same: it runs, and it can close a circle).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "playground"
DRIVERS = {"sqlite3", "psycopg", "psycopg_pool", "aiosqlite"}

# Modules outside timetravel/storage/ that need a raw driver, and why: none of them reads or
# changes checkpoint tables for the engine.
DRIVER_ALLOWED = {
    # the adapter that opens the savers and their pools, graphs run on (the official savers
    # need a connection handed in) and tells a lock timeout from other errors
    "playground.savers",
    # the long-term store beside the checkpoints: AsyncSqliteStore and AsyncPostgresStore
    # need a connection or pool handed in
    "playground.stores",
    # the lessons' byte table: raw sizes of four approaches written side by side, the point
    # of the lesson being what each one stores
    "playground.lessons.state_sizes",
    # writes the bundled sample database with SqliteSaver, then vacuums it
    "playground.samples.make_samples",
}


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


def test_only_the_storage_backends_use_a_database_driver():
    users = {
        name for name, path in modules().items()
        if {target.split(".")[0] for target in imports(path, name)} & DRIVERS
    }
    backends = {name for name in users if name.startswith("playground.timetravel.storage.")}

    assert backends >= {"playground.timetravel.storage.sqlite",
                        "playground.timetravel.storage.postgres"}
    assert users - backends == DRIVER_ALLOWED


def test_no_caller_reaches_into_a_storage_connection():
    # The protocol declares no ``conn``: a caller holding one would bypass the backend's
    # transactions, deadlines and read-only session.
    reached = []
    for name, path in modules().items():
        if name.startswith("playground.timetravel.storage"):
            continue
        text = path.read_text(encoding="utf-8")
        for word in ("source.conn", "storage.conn"):
            if word in text:
                reached.append(f"{name}: {word}")
    assert reached == []
