"""An earlier commit of this repository checked out beside it, so a benchmark can run the code
before a change and after it on the same files in the same run."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def check_out(commit: str, folder: Path) -> Path | None:
    """``commit`` as a detached git worktree at ``folder``; None where it cannot be had (no
    git, or a shallow clone without that commit)."""
    try:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder),
                        commit], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return folder


def drop(folder: Path) -> None:
    """Remove a worktree :func:`check_out` made."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)],
                   capture_output=True)
