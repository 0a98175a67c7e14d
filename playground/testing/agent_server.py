"""A real ``langgraph dev`` for tests and benchmarks, started as its users start it.

It runs from ``.venv-server`` (``make test`` makes it from tests/fixtures/agent_server/
requirements.txt: langgraph-api's pins clash with the test extras'), on a free port, from a
copy of the folder holding the app's ``langgraph.json`` (the server writes its
``.langgraph_api`` folder beside it), with its usage analytics and version check off: it never
calls out.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playground.server_process import free_port, spawn, stop_process, wait_until_up

ROOT = Path(__file__).resolve().parents[2]
SERVER_BIN = ROOT / ".venv-server" / "bin" / "langgraph"
EXAMPLES = ROOT / "examples"
SKIP_REASON = ("langgraph dev is not installed in .venv-server (make test installs it from "
               "tests/fixtures/agent_server/requirements.txt)")


def agent_server_missing() -> bool:
    """True where the server's own venv has not been made."""
    return not SERVER_BIN.exists()


@contextmanager
def langgraph_dev(home: Path, app: Path = EXAMPLES, env: dict[str, str] | None = None
                  ) -> Iterator[str]:
    """``langgraph dev`` on a copy of ``app`` under ``home``; yields its URL, stops it after.

    Args:
        home: a folder of the test's own (the copy and the server's log go there).
        app: the folder holding ``langgraph.json``.
        env: more environment for the server (a key it checks, say).
    """
    folder = home / "app"
    shutil.copytree(app, folder, ignore=shutil.ignore_patterns(".langgraph_api", "__pycache__"))
    port = free_port()
    environment = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1",
                   "LANGGRAPH_NO_VERSION_CHECK": "true", **(env or {})}
    # The server's venv, not the tests': its python runs the graphs.
    environment.pop("VIRTUAL_ENV", None)
    environment["PATH"] = f"{SERVER_BIN.parent}{os.pathsep}{environment.get('PATH', '')}"
    process = spawn([str(SERVER_BIN), "dev", "--port", str(port), "--host", "127.0.0.1",
                     "--no-browser", "--no-reload", "--config",
                     str(folder / "langgraph.json")], environment, home / "langgraph-dev.log",
                    cwd=folder)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(f"{url}/ok", process, "langgraph dev")
        yield url
    finally:
        stop_process(process)


def settled(client, thread_id: str, within_s: float = 15.0) -> str:
    """The thread's status once no run is going on (Aegra's ``runs.wait`` answers before it
    marks the thread interrupted or idle; ``langgraph dev`` has by then)."""
    deadline = time.monotonic() + within_s
    while True:
        status = client.threads.get(thread_id)["status"]
        if status != "busy" or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


def refund_threads(url: str) -> dict[str, str]:
    """Threads made through the SDK as a user makes them, on the support chat example.

    ``forked``: a refund run to its ``interrupt()``, resumed with ``Command(resume="yes")``;
    then the paused checkpoint edited with ``threads.update_state`` and run from the edit with
    the answer "no": two branches. ``waiting``: a refund left at its question, on a thread made
    with the metadata ``{"user": "acme", "seat": 42}``.

    Returns:
        ``{"forked": thread id, "waiting": thread id, "paused": the forked thread's checkpoint
        that asked, "fork": the checkpoint the edit made}``.
    """
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=url, api_key=None)
    ask = {"messages": [{"role": "user", "content": "please refund order A17"}]}
    forked = client.threads.create()["thread_id"]
    client.runs.wait(forked, "support_chat", input=ask)
    settled(client, forked)
    client.runs.wait(forked, "support_chat", command={"resume": "yes"})
    paused = next(entry for entry in client.threads.get_history(forked, limit=100)
                  if entry["next"] == ["tools"])["checkpoint_id"]
    edit = client.threads.update_state(forked, {"topic": "escalated"}, checkpoint_id=paused)
    fork = edit["checkpoint"]["checkpoint_id"]
    client.runs.wait(forked, "support_chat", command={"resume": "no"}, checkpoint_id=fork)
    waiting = client.threads.create(metadata={"user": "acme", "seat": 42})["thread_id"]
    client.runs.wait(waiting, "support_chat", input=ask)
    settled(client, forked)
    settled(client, waiting)
    client.close()
    return {"forked": forked, "waiting": waiting, "paused": paused, "fork": fork}
