"""What the real-browser tests share: Chromium, servers and tabs come from
:mod:`playground.testing.browser` (the benchmarks drive the playground with them too); the
tests add a tab that reads the History page and takes screenshots."""

from __future__ import annotations

import re
from pathlib import Path

from playground.testing.browser import (
    ARGS,
    CHROMIUM,
    FINAL,
    IDLE,
    Tab,
    chromium_missing,
    playground_server,
)

__all__ = ["ARGS", "CHROMIUM", "FINAL", "IDLE", "ShotTab", "Tab", "chromium_missing",
           "playground_server"]


class ShotTab(Tab):
    """A tab in a new page of a browser context that also reads the History page's checkpoint
    count and saves screenshots."""

    def __init__(self, context, base: str, shots: Path | None = None) -> None:
        super().__init__(context.new_page(), base)
        self.shots = shots

    def checkpoints(self) -> int:
        """The checkpoint count the History page states under the tree."""
        shown = self.text()
        match = re.search(r"([\d,]+) checkpoints · ", shown)
        assert match, f"no checkpoint count on the page:\n{shown[:3000]}"
        return int(match.group(1).replace(",", ""))

    def shot(self, name: str) -> None:
        """Save a full-page screenshot as ``<shots>/<name>.png`` and check it is not blank."""
        self.page.mouse.move(0, 0)  # no hover tooltip in the picture
        self.page.wait_for_timeout(800)  # let charts finish drawing
        assert self.shots is not None, "this tab was opened without a screenshot folder"
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000, f"{name}.png looks empty"
