"""The source files of a user's app: which modules are its own, and whether any of them changed.

An app's own modules are the ones imported from its folders (the spec file's folder, or the
folders a langgraph.json puts on the path), never installed packages, the standard library or
the playground itself. Reloading the app drops all of them from ``sys.modules`` so an edit of
``tools.py`` counts as much as one of ``graph.py``; watching them is a stat of each file, cheap
enough to do on a page run (``langgraph dev`` reloads the same way when a file changes).
"""

from __future__ import annotations

import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

_PLAYGROUND = Path(__file__).resolve().parents[1]
_NOT_THE_APP = tuple(
    Path(p).resolve() for p in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                                sysconfig.get_paths()["platlib"], sys.prefix, sys.base_prefix}
)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _is_own(path: Path, folders: Iterable[Path]) -> bool:
    if "site-packages" in path.parts or _inside(path, _PLAYGROUND):
        return False
    if any(_inside(path, other) for other in _NOT_THE_APP):
        return False
    return any(_inside(path, folder) for folder in folders)


def app_modules(folders: Iterable[Path]) -> dict[str, Path]:
    """Module name -> file of every imported module that lives in the app's folders."""
    folders = [Path(f).resolve() for f in folders]
    found = {}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file or not file.endswith(".py"):
            continue
        path = Path(file).resolve()
        if _is_own(path, folders):
            found[name] = path
    return found


def forget_modules(folders: Iterable[Path]) -> dict[str, object]:
    """Drop the app's own modules from ``sys.modules`` (before importing it again); returns them,
    so a failed reload can put them back."""
    dropped = {}
    for name in app_modules(folders):
        dropped[name] = sys.modules.pop(name)
    return dropped


class SourceWatch:
    """Modification times of an app's source files, to tell when one changed.

    Args:
        folders: the app's folders; the files watched are its modules imported from there.
    """

    def __init__(self, folders: Iterable[Path]) -> None:
        self.folders = tuple(Path(f).resolve() for f in folders)
        self._seen: dict[Path, float | None] = {}
        self.rescan()

    def rescan(self) -> None:
        """Take the files and their times as they are now (after a load or a reload)."""
        self._seen = {path: _mtime(path) for path in app_modules(self.folders).values()}

    @property
    def files(self) -> tuple[Path, ...]:
        """The files watched."""
        return tuple(self._seen)

    def changed(self) -> list[Path]:
        """The watched files whose modification time moved (or that went away) since the scan."""
        return [path for path, seen in self._seen.items() if _mtime(path) != seen]


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None
