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
        self.idle()
        if self.room is None:
            self.room = re.search(r"room=([a-z0-9-]+)", self.page.url).group(1)
        return self

    def idle(self) -> None:
        """Wait until Streamlit has finished running the page."""
        self.page.wait_for_timeout(300)
        self.page.wait_for_selector(IDLE, timeout=60_000)

    def click(self, label: str) -> Tab:
        """Click the Streamlit button with exactly this label (not a selectbox's "Open")."""
        text = self.page.locator("p", has_text=re.compile(rf"^{re.escape(label)}$"))
        self.page.locator('[data-testid^="stBaseButton"]').filter(has=text).first.click()
        self.idle()
        return self

    def text(self) -> str:
        """Everything the main area shows, as text."""
        return self.page.inner_text("[data-testid='stMain']")
