"""Two playground replicas on one Postgres database and one ticket API, in real Chromium.

A thread started through replica A resumes through replica B; a colleague's edit made through B
gives A its 412. Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'

pytestmark = [
    pytest.mark.skipif(not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL)"),
    pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                       reason="Debian chromium is not installed (bash .ci/run installs it)"),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail(f"{url} did not come up")
            time.sleep(0.3)


@pytest.fixture(scope="module")
def replicas():
    """One ticket API process and two playground processes, all on one Postgres database."""
    processes = []

    def start(argv: list[str], health: str, **env: str) -> None:
        process = subprocess.Popen(argv, env=dict(os.environ, **env), start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(process)
        _wait(health, process)

    api_port = _free_port()
    api = f"http://127.0.0.1:{api_port}"
    start([sys.executable, "-m", "ticket_api.server", "--port", str(api_port), "--db", URL],
          f"{api}/health")
    urls = []
    for _ in range(2):
        port = _free_port()
        start([sys.executable, "-m", "playground.cli", "run", "--port", str(port),
               "--database", URL, "--api-url", api],
              f"http://127.0.0.1:{port}/_stcore/health")
        urls.append(f"http://127.0.0.1:{port}")
    yield urls
    for process in processes:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


class Replica:
    """A browser tab on one replica, in a given room."""

    def __init__(self, browser, base: str, room: str) -> None:
        self.page = browser.new_context(viewport={"width": 1400, "height": 1800}).new_page()
        self.base, self.room = base, room

    def open(self, path: str) -> Replica:
        self.page.goto(f"{self.base}/{path}?room={self.room}")
        self.idle()
        return self

    def idle(self) -> None:
        self.page.wait_for_timeout(300)
        self.page.wait_for_selector(IDLE, timeout=60_000)

    def click(self, label: str) -> Replica:
        text = self.page.locator("p", has_text=re.compile(rf"^{re.escape(label)}$"))
        self.page.locator('[data-testid^="stBaseButton"]').filter(has=text).first.click()
        self.idle()
        return self

    def text(self) -> str:
        return self.page.inner_text("[data-testid='stMain']")


def test_thread_started_on_one_replica_resumes_on_the_other(replicas, browser):
    room = f"pg-{uuid.uuid4().hex[:8]}"
    first, second = (Replica(browser, url, room) for url in replicas)

    first.open("agent").click("Run turn")
    assert 'read t7 at "v1"' in first.text()
    second.open("agent").click("Resume")

    assert 'resumed with ticket t7: priority is high at "v2"' in second.text()


def test_colleague_edit_through_one_replica_gives_the_other_its_412(replicas, browser):
    room = f"pg-{uuid.uuid4().hex[:8]}"
    first, second = (Replica(browser, url, room) for url in replicas)

    first.open("conflicts").click("Run turn")
    second.open("conflicts").click("Simulate concurrent edit")
    first.open("conflicts").click("Resume")

    assert "412" in first.text() and "changed t7 after the agent read it" in first.text()
