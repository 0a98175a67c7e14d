"""Who may import whom across the repository's top-level folders: the standalone ticket API
imports nothing of the playground, and the benchmarks nothing of the tests.

Every ``import`` counts, at module level or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize(("folder", "forbidden"), [
    ("ticket_api", "playground"),
    ("bench", "tests"),
    ("playground", "tests"),
    ("playground", "bench"),
])
def test_a_folder_imports_nothing_of_another(folder, forbidden):
    reaching = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / folder).rglob("*.py")
        for name in _imported(path)
        if name == forbidden or name.startswith(f"{forbidden}.")
    )
    assert reaching == []
