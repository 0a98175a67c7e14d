"""What the real-browser tests share: launching Debian Chromium, starting servers as users do,
and a tab that clicks Streamlit buttons by their exact label and waits for the run to finish."""

from __future__ import annotations

import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
# Never `playwright install`: Debian's chromium, with the flags this sandbox needs (DESIGN.md).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# Sets a window flag as soon as the app leaves the idle state (a run was requested or began).
WATCH_RUNS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__playgroundRunStarted = false;
  new MutationObserver((changes, observer) => {
    if (app.getAttribute("data-test-script-state") !== "notRunning") {
      window.__playgroundRunStarted = true;
      observer.disconnect();
    }
  }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""


def chromium_missing() -> bool:
    """True when Debian's chromium is not installed here."""
    return not Path(CHROMIUM).exists()


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, process: subprocess.Popen, seconds: float = 60) -> None:
    """Poll ``url`` until it answers 200; fail the test if the process dies or time runs out."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail(f"{url} did not come up")
            time.sleep(0.3)


class Tab:
    """One browser tab on one playground server, kept in one room."""

    def __init__(self, page, base: str, room: str | None = None) -> None:
        self.page, self.base, self.room = page, base, room

    def open(self, path: str = "") -> Tab:
        """Go to a page in this tab's room (a first visit gets a room from the server)."""
        query = f"?room={self.room}" if self.room else ""
        self.page.goto(f"{self.base}/{path}{query}")
        # Before its first run the app already reports itself idle, with nothing on the page.
        self.page.wait_for_selector("[data-testid='stMain'] h1", timeout=60_000)
        self.idle()
        if self.room is None:
            self.room = re.search(r"room=([a-z0-9-]+)", self.page.url).group(1)
        return self

    def idle(self) -> None:
        """Wait until Streamlit has finished running the page and stays finished for a moment.

        ``st.rerun()`` can leave the app idle for an instant between two runs, so one glimpse
        of the idle state is not enough on a busy machine."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.page.wait_for_selector(IDLE, timeout=60_000)
            self.page.wait_for_timeout(400)
            if self.page.locator(IDLE).count():
                return
        pytest.fail("the page kept running for a minute")

    def click(self, label: str) -> Tab:
        """Click the Streamlit button with exactly this label (not a selectbox's "Open") and
        wait for the run that click starts to finish.

        Waiting only for the idle state races a slow server: right after the click the page
        still shows the previous run as finished. A mutation observer notes that a new run
        began, so the wait cannot end before it."""
        self.page.evaluate(WATCH_RUNS)
        text = self.page.locator("p", has_text=re.compile(rf"^{re.escape(label)}$"))
        self.page.locator('[data-testid^="stBaseButton"]').filter(has=text).first.click()
        self.page.wait_for_function("window.__playgroundRunStarted === true", timeout=30_000)
        self.idle()
        return self

    def text(self) -> str:
        """Everything the main area shows, as text."""
        return self.page.inner_text("[data-testid='stMain']")
