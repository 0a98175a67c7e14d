"""The drawings (history tree, timeline) are committed built (pip install needs no Node): the
build must be of the sources beside it, and ship in the wheel."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ROOT / "frontend" / "drawings" / "src"
BUILT = ROOT / "playground" / "ui" / "components" / "assets" / "drawings.js"


def _sources_hash() -> str:
    """The sha256 vite.config.js stamps: each source's name and bytes, in name order."""
    digest = hashlib.sha256()
    for path in sorted(SOURCES.glob("*.js"), key=lambda p: p.name):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_committed_drawings_are_built_from_the_sources_beside_them():
    first_line = BUILT.read_text(encoding="utf-8").split("\n", 1)[0]
    stamp = re.fullmatch(r"// built from src/\*\.js sha256:([0-9a-f]{64})", first_line)

    assert stamp, f"no build stamp in {BUILT.name}: rebuild with `make frontend`"
    assert stamp[1] == _sources_hash(), (
        "frontend/drawings/src changed since the build: run `make frontend`")


def test_the_drawings_and_their_styles_ship_in_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    shipped = project["tool"]["setuptools"]["package-data"]["playground.ui.components"]

    for name in ("drawings.js", "history_tree.css", "timeline.css"):
        assert any(Path("assets", name).match(pattern) for pattern in shipped), name
