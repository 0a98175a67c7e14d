"""docs/layout.md names every package and module of the playground and the ticket API, so a
newcomer reading it finds every file (a page or a component is one file of views/ or
components/, which the page describes as folders)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "docs" / "layout.md"
# Folders the layout describes by their rule (one file per page, per component).
BY_RULE = {ROOT / "playground" / "ui" / "views", ROOT / "playground" / "ui" / "components"}


def layout_text() -> str:
    """The file tree of docs/layout.md: its first fenced block."""
    return LAYOUT.read_text(encoding="utf-8").split("```", 2)[1]


def listed_names(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][\w-]*(?:\.py|/)", text))


def unlisted(names: set[str]) -> list[str]:
    """The packages and modules of playground/ and ticket_api/ that ``names`` leaves out."""
    missing = []
    for package in ("playground", "ticket_api"):
        for path in sorted((ROOT / package).rglob("*")):
            if "__pycache__" in path.parts or path.parent in BY_RULE:
                continue
            if path.is_dir() and f"{path.name}/" not in names:
                missing.append(f"{path.relative_to(ROOT)}/")
            elif (path.suffix == ".py" and not path.name.startswith("__")
                  and path.name not in names):
                missing.append(str(path.relative_to(ROOT)))
    return missing


def test_every_package_and_module_is_in_the_docs_layout():
    assert unlisted(listed_names(layout_text())) == []


def test_a_module_left_out_of_the_layout_is_found_missing():
    # The test above is only worth something if a name left out is found missing.
    names = listed_names("  places/   door.py, base.py  the door\n")
    assert {"places/", "door.py", "base.py"} <= names and "urls.py" not in names
    assert "playground/places/urls.py" in unlisted(names)
