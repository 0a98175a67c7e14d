"""Two playground replicas on one Postgres database and one ticket API, in real Chromium.

A thread started through replica A resumes through replica B; a colleague's edit made through B
gives A its 412. Needs ``PLAYGROUND_TEST_DATABASE_URL`` (``bash .ci/run`` sets it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid

import pytest

from playground.server_process import free_port, wait_until_up
from tests.playground.ui.browser import Tab, chromium_missing

URL = os.environ.get("PLAYGROUND_TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.replicas,
    pytest.mark.skipif(not URL, reason="PLAYGROUND_TEST_DATABASE_URL is not set (no PostgreSQL)"),
    pytest.mark.skipif(chromium_missing() and not os.environ.get("CI"),
                       reason="Debian chromium is not installed (bash .ci/run installs it)"),
]


@pytest.fixture(scope="module")
def replicas():
    """One ticket API process and two playground processes, all on one Postgres database."""
    processes = []

    def start(argv: list[str], health: str, **env: str) -> None:
        process = subprocess.Popen(argv, env=dict(os.environ, **env), start_new_session=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(process)
        wait_until_up(health, process, " ".join(argv[2:4]))

    api_port = free_port()
    api = f"http://127.0.0.1:{api_port}"
    start([sys.executable, "-m", "ticket_api.server", "--port", str(api_port), "--db", URL],
          f"{api}/health")
    urls = []
    for _ in range(2):
        port = free_port()
        start([sys.executable, "-m", "playground.cli", "run", "--port", str(port),
               "--database", URL, "--api-url", api],
              f"http://127.0.0.1:{port}/_stcore/health")
        urls.append(f"http://127.0.0.1:{port}")
    yield urls
    for process in processes:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


def _tab(browser, base: str, room: str) -> Tab:
    return Tab(browser.new_context(viewport={"width": 1400, "height": 1800}).new_page(), base,
               room)


def test_thread_started_on_one_replica_resumes_on_the_other(replicas, browser):
    room = f"pg-{uuid.uuid4().hex[:8]}"
    first, second = (_tab(browser, url, room) for url in replicas)

    first.open("agent").click("Run turn")
    assert 'read t7 at "v1"' in first.text()
    second.open("agent").click("Resume")

    assert 'resumed with ticket t7: priority is high at "v2"' in second.text()


def test_colleague_edit_through_one_replica_gives_the_other_its_412(replicas, browser):
    room = f"pg-{uuid.uuid4().hex[:8]}"
    first, second = (_tab(browser, url, room) for url in replicas)

    first.open("conflicts").click("Run turn")
    second.open("conflicts").click("Simulate concurrent edit")
    first.open("conflicts").click("Resume")

    assert "412" in first.text() and "changed t7 after the agent read it" in first.text()
