"""Real Agent Servers for tests and benchmarks, started as their users start them.

- ``langgraph dev`` runs from ``.venv-server`` (``make test`` makes it from tests/fixtures/
  agent_server/requirements.txt: langgraph-api's pins clash with the test extras'), on a free
  port, from a copy of the folder holding the app's ``langgraph.json`` (the server writes its
  ``.langgraph_api`` folder beside it), with its usage analytics and version check off: it
  never calls out.
- Aegra 0.11 (``aegra serve``, as its README starts it without Docker) runs from
  ``.venv-aegra`` (``make test`` makes it with a Python 3.12 or newer, where one exists, from
  tests/fixtures/aegra/requirements.txt), on a free port, on a PostgreSQL database of its own,
  from a copy of the same app folder (Aegra reads ``langgraph.json`` too).
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


AEGRA_BIN = ROOT / ".venv-aegra" / "bin" / "aegra"
AEGRA_SKIP_REASON = ("Aegra 0.11 is not installed in .venv-aegra: it needs Python 3.12 or newer, "
                     "which make test looks for (python3.13, python3.12, pyenv's); none was "
                     "found, or make test has not run")


def aegra_missing() -> bool:
    """True where Aegra's own venv has not been made."""
    return not AEGRA_BIN.exists()


@contextmanager
def aegra_serve(home: Path, database_url: str, app: Path = EXAMPLES,
                env: dict[str, str] | None = None) -> Iterator[str]:
    """``aegra serve`` on a copy of ``app`` under ``home``, its threads in ``database_url``
    (an empty database of its own: Aegra makes its tables there); yields its URL.

    Args:
        home: a folder of the test's own (the copy and the server's log go there).
        database_url: a ``postgresql://`` URL.
        app: the folder holding ``langgraph.json``.
        env: more environment for the server.
    """
    folder = home / "app"
    shutil.copytree(app, folder, ignore=shutil.ignore_patterns(".langgraph_api", "__pycache__"))
    port = free_port()
    environment = {**os.environ, "DATABASE_URL": database_url, **(env or {})}
    environment.pop("VIRTUAL_ENV", None)
    environment["PATH"] = f"{AEGRA_BIN.parent}{os.pathsep}{environment.get('PATH', '')}"
    process = spawn([str(AEGRA_BIN), "serve", "--host", "127.0.0.1", "--port", str(port),
                     "--config", str(folder / "langgraph.json")], environment,
                    home / "aegra.log", cwd=folder)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(f"{url}/health", process, "aegra serve")
        yield url
    finally:
        stop_process(process)


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
    then the paused checkpoint edited with ``threads.update_state``, run from the edit to the
    question again and answered "no": two branches. ``waiting``: a refund left at its
    question, on a thread made with the metadata ``{"user": "acme", "seat": 42}``.

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
    # From the edit, the run goes on to the question again, which is then answered "no" (a
    # resume straight from an older checkpoint is refused by servers that check the thread's
    # status, such as Aegra 0.11: the thread is idle, its head finished).
    client.runs.wait(forked, "support_chat", input=None, checkpoint_id=fork)
    settled(client, forked)
    client.runs.wait(forked, "support_chat", command={"resume": "no"})
    waiting = client.threads.create(metadata={"user": "acme", "seat": 42})["thread_id"]
    client.runs.wait(waiting, "support_chat", input=ask)
    settled(client, forked)
    settled(client, waiting)
    client.close()
    return {"forked": forked, "waiting": waiting, "paused": paused, "fork": fork}
