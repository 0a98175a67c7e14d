"""The history tree's drawing is committed built (pip install needs no Node): the build must be
of the source beside it, and ship in the wheel."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "frontend" / "history_tree" / "src" / "history_tree.js"
BUILT = ROOT / "playground" / "ui" / "components" / "assets" / "history_tree.js"


def test_the_committed_drawing_is_built_from_the_source_beside_it():
    first_line = BUILT.read_text(encoding="utf-8").split("\n", 1)[0]
    stamp = re.fullmatch(r"// built from src/history_tree\.js sha256:([0-9a-f]{64})", first_line)

    assert stamp, f"no build stamp in {BUILT.name}: rebuild with `make frontend`"
    assert stamp[1] == hashlib.sha256(SOURCE.read_bytes()).hexdigest(), (
        "frontend/history_tree/src/history_tree.js changed since the build: run `make frontend`")


def test_the_drawing_and_its_styles_ship_in_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = project["tool"]["setuptools"]["package-data"]["playground.ui.components"]

    for name in ("history_tree.js", "history_tree.css"):
        assert any(Path("assets", name).match(pattern) for pattern in shipped), name
