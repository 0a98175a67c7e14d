"""What the real-browser tests share: Chromium, servers and tabs come from
:mod:`playground.testing.browser` (the benchmarks drive the playground with them too); the
tests add a tab that reads the History page and takes screenshots."""

from __future__ import annotations

import re
import time
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
           "playground_server", "printed_room_url"]


def printed_room_url(home: Path, deadline_s: float = 60) -> str:
    """The room URL a server started under ``home`` printed (``playground.log``): it prints it
    a moment after it first answers, so this waits for the line."""
    log = home / "playground.log"
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        found = re.search(r"room URL: (\S+)", log.read_text())
        if found:
            return found.group(1)
        time.sleep(0.1)
    raise AssertionError(f"no room URL printed:\n{log.read_text()}")


GRID_ROW_PX = 35  # a data grid's header and rows


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

    def banners(self) -> list[str]:
        """The text of every alert box the page shows (success, info, warning, error)."""
        return [text.strip() for text in self.page.locator(
            '[data-testid="stMain"] [data-testid="stAlert"]').all_inner_texts()]

    def cut_labels(self) -> list[str]:
        """Every text on the page cut short by "…" (CSS ellipsis) where it matters: a widget's
        label, a paragraph, a caption. The history tree's rows are left out: they are cut by
        design at the column's edge, and hovering one shows its whole text."""
        return self.page.evaluate("""() => [...document.querySelectorAll(
            '[data-testid="stMain"] *')].filter(el => {
              if (el.closest('.ht') || !el.textContent.trim()) return false;
              const style = getComputedStyle(el);
              return style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1
                     && el.getClientRects().length > 0;
            }).map(el => el.textContent.trim())""")

    def reads_as_one_page(self, before: list[str] = ()) -> list[str]:
        """Check what a newcomer reads after an action: no banner of the page before (its
        texts in ``before``, given right after moving to another page; a box that says where
        the thread stands may stay on its own page), no green box for a failed outcome, no
        label cut short. Returns this page's banners, for the next check."""
        now = self.banners()
        stale = [text for text in before if text in now]
        assert not stale, f"banners of the page before still show: {stale}"
        green = self.page.locator('[data-testid="stAlertContentSuccess"]').all_inner_texts()
        # an outcome that is an HTTP refusal, a failure, or a "Not done" (an explanation may
        # still speak of a 412 that did not happen)
        failed = [text for text in green if re.search(
            r"outcome: [45]\d\d|\bfailed\b|^\W*(?:\w+\W+)?not\b", text, re.IGNORECASE)]
        assert not failed, f"a success box reports a failed outcome: {failed}"
        assert not self.cut_labels(), f"cut short: {self.cut_labels()}"
        return now

    def click_thread_row(self, index: int) -> None:
        """Click the ``index``-th row's selection box in Inspect's thread table (found by its
        key: with Status failed, the errors' groups come first; the data grid draws on a
        canvas, so its rows are found by position) and wait for the run it starts."""
        grid = self.page.locator('[class*="st-key-inspect-threads-"] [data-testid="stDataFrame"]'
                                 ).first
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        before = self.runs
        self.page.mouse.click(box["x"] + 18, box["y"] + GRID_ROW_PX * (index + 1)
                              + GRID_ROW_PX / 2)
        self._wait_for_run_after(before, f"picking row {index}")

    def shot(self, name: str) -> None:
        """Save a full-page screenshot as ``<shots>/<name>.png`` and check it is not blank."""
        self.page.mouse.move(0, 0)  # no hover tooltip in the picture
        self.page.wait_for_timeout(800)  # let charts finish drawing
        assert self.shots is not None, "this tab was opened without a screenshot folder"
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 10_000, f"{name}.png looks empty"
