"""Start the Streamlit playground as a server process, and the ticket API beside it.

For the built-in ticket agent, the bundled API runs as a process of its own (``ticket-api`` on a
free loopback port) rather than as a thread inside the Streamlit server: a room of attendees
then spends the API's CPU on the other core instead of in the GIL their script runs need.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from playground.access.facilitator import FACILITATOR_KEY_ENV
from playground.access.token import TOKEN_ENV
from playground.agent.ticket_service import DEFAULT_TICKETS_DB
from playground.places.door import open_place

# The pages behind the room's gate: `streamlit run` finds the st.App there (ui/asgi_app.py).
APP = Path(__file__).parent / "ui" / "asgi_app.py"
# The secrets the pages' process needs and no other: the ticket API is given neither.
SECRETS = (TOKEN_ENV, FACILITATOR_KEY_ENV)
# How the server runs Streamlit, whatever the page (bench/element_cost.py measures with them).
STREAMLIT_FLAGS = (
    "--server.headless", "true",
    "--browser.gatherUsageStats", "false",
    # No source watcher: after every script run it walks all of sys.modules on the event loop
    # (a third of the server's CPU with 10 sessions, and the loop that sends every page stalls
    # meanwhile). A graph's author reloads with the Run page's Reload graph.
    "--server.fileWatcherType", "none",
    # No full garbage collection after every script run: with LangGraph, pandas and Arrow
    # loaded it takes ~100 ms holding the GIL, and the run's script_finished waits behind it
    # (the "87 ms inside a warm Run turn"). Python's own collector still runs.
    "--runner.postScriptGC", "false",
    # The terminal says the URLs a person needs, once the server answers (serve() prints
    # them): not Streamlit's Local/Network URLs, which carry no token, nor its lookup of this
    # machine's public address, which leaves the machine.
    "--logger.hideWelcomeMessage", "true",
    "--logger.level", "warning",
)
API_STARTUP_S = 30


def start_ticket_api(tickets_db: str, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """``ticket-api --port 0`` on ``tickets_db``; (process, its URL) once it listens.

    Raises:
        RuntimeError: the API did not start (its own message included).
    """
    # The ticket store makes a file's folder itself.
    process = subprocess.Popen(
        [sys.executable, "-m", "ticket_api.server", "--port", "0", "--db", tickets_db,
         "--log-level", "warning"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    line = process.stdout.readline() if process.stdout else ""
    marker = "serving "
    if marker not in line:
        process.kill()
        raise RuntimeError(f"the ticket API did not start: {line.strip() or 'no output'}")
    # Whatever it says later goes on to our stderr: an unread pipe would block it once full.
    threading.Thread(target=_forward, args=(process.stdout,), daemon=True).start()
    return process, line.split(marker, 1)[1].split()[0]


def _forward(stream) -> None:
    for line in stream:
        sys.stderr.write(line)


def serve(
    host: str = "127.0.0.1",
    port: int = 8501,
    api_url: str | None = None,
    checkpoints: str | None = None,
    database: str | None = None,
    app_env: dict[str, str] | None = None,
    announce: tuple[str, ...] = (),
    withheld: tuple[str, ...] = (),
) -> int:
    """Run ``streamlit run`` on the playground until it is stopped; return its exit code.

    Settings reach the app through environment variables, which every Streamlit session reads;
    ``app_env`` names the graph to run (``playground.apps.launch``) and carries the room's
    secrets, which only the pages' process is given. ``announce`` is printed once the server
    answers, so a URL printed is a URL that works. ``withheld`` names variables of this
    process's environment that no child is given (the one a secret was read from).
    """
    from playground.ui.inspect_access import MAX_UPLOAD_MB

    env = {name: value for name, value in {**os.environ, **(app_env or {})}.items()
           if name not in withheld}
    api = None
    from playground.access.mode import OPEN_PLACE_ENV
    from playground.apps.launch import CONFIG_ENV, GRAPH_ENV, SERVER_ENV

    # The ticket agent's API, for its workshop: a debugger on a place of one's own runs none.
    builtin = not ({GRAPH_ENV, CONFIG_ENV, SERVER_ENV, OPEN_PLACE_ENV} & set(app_env or {}))
    shared = open_place(checkpoints).shared_database if checkpoints else None
    if api_url:
        env["PLAYGROUND_API_URL"] = api_url
    elif builtin and not env.get("PLAYGROUND_API_URL"):
        # A database the checkpoints' place shares between processes (replicas) keeps the
        # bundled API's tickets too; a file keeps them beside it.
        tickets = (env.get("PLAYGROUND_TICKETS_DB") or database or shared
                   or str(DEFAULT_TICKETS_DB))
        api, env["PLAYGROUND_API_URL"] = start_ticket_api(
            tickets, {name: value for name, value in env.items() if name not in SECRETS})
    if shared:
        database = database or shared
    elif checkpoints:
        env["PLAYGROUND_CHECKPOINTS"] = checkpoints
    if database:
        env["PLAYGROUND_DATABASE_URL"] = database
    argv = [
        sys.executable, "-m", "streamlit", "run", str(APP),
        "--server.address", host,
        "--server.port", str(port),
        # A workshop tool, not an app to deploy: no "Deploy" button in the toolbar.
        "--client.toolbarMode", "minimal",
        # Inspect's upload limit, held by the server itself (a script skips the page).
        "--server.maxUploadSize", str(MAX_UPLOAD_MB),
        *STREAMLIT_FLAGS,
    ]
    streamlit = subprocess.Popen(argv, env=env)
    # `kill`, a service manager or a test stops the server with SIGTERM, which would end this
    # process at once and leave Streamlit and the ticket API running: stop them as Ctrl+C does.
    previous = _on_sigterm(_interrupt)
    try:
        _announce(host, port, streamlit, announce)
        return streamlit.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        _stop(streamlit)
        if api is not None:
            _stop(api)
        _on_sigterm(previous)
        # Uploads a browser opened on Inspect are copies in the temporary folder: a server
        # that was killed could not delete them itself.
        from playground.ui.inspect_access import discard_uploads_of

        discard_uploads_of(streamlit.pid)


def _announce(host: str, port: int, streamlit: subprocess.Popen, lines: tuple[str, ...]
              ) -> None:
    """Print ``lines`` once the server answers on ``host:port`` (nothing, if it exits first:
    its own error is then on the terminal)."""
    asked = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{asked}]" if ":" in asked else asked
    try:
        wait_until_up(f"http://{shown}:{port}/_stcore/health", streamlit, "the playground")
    except ServerDidNotStart:
        return
    for line in lines:
        print(line, flush=True)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _on_sigterm(handler):
    """Set the SIGTERM handler where Python allows it (the main thread); return the old one."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler if handler is not None else signal.SIG_DFL)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# -- a playground as a process of its own (the workshop's replicas, the browser tests) --------

STARTUP_S = 60


class ServerDidNotStart(RuntimeError):
    """A process exited or did not answer in time; the message says which and where its log is."""


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, process: subprocess.Popen, what: str) -> None:
    """Poll ``url`` until it answers.

    Raises:
        ServerDidNotStart: the process exited, or did not answer within STARTUP_S.
    """
    deadline = time.monotonic() + STARTUP_S
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if process.poll() is not None:
                raise ServerDidNotStart(f"{what} exited with code {process.returncode}"
                                        ) from None
            if time.monotonic() > deadline:
                raise ServerDidNotStart(f"{what} did not answer at {url} within {STARTUP_S} s"
                                        ) from None
            time.sleep(0.3)


def spawn(argv: list[str], env: dict[str, str], log: Path, cwd: Path | None = None
          ) -> subprocess.Popen:
    """Start a process in a group of its own (so stopping it stops its children), its output
    in ``log``, in ``cwd`` (default: this process's)."""
    with log.open("w") as output:  # the child keeps its own handle
        return subprocess.Popen(argv, env=env, stdout=output, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=cwd)


def stop_process(process: subprocess.Popen) -> None:
    """Stop a process started by :func:`spawn` (SIGTERM to its group, SIGKILL after 20 s)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def start_playground(home: Path, *args: str, env: dict[str, str] | None = None,
                     cwd: Path | None = None, port: int | None = None
                     ) -> tuple[str, subprocess.Popen]:
    """``playground run ARGS`` on a free port (or ``port``), as a user starts it: its checkpoint
    and ticket files and its log (``playground.log``) under ``home``, ``env`` on top of this
    process's environment, run in ``cwd`` (where it keeps ``.playground/access-token``; default
    this process's folder). Returns (its loopback URL, process); :func:`stop_process` stops it
    with its children.

    Raises:
        ServerDidNotStart: it exited or did not answer in time (its log says why).
    """
    port = port or free_port()
    env = {**os.environ, "PLAYGROUND_CHECKPOINTS": str(home / "checkpoints.sqlite"),
           "PLAYGROUND_TICKETS_DB": str(home / "tickets.sqlite"), **(env or {})}
    process = spawn([sys.executable, "-m", "playground.cli", "run", "--port", str(port), *args],
                    env, home / "playground.log", cwd=cwd)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{url}/_stcore/health", process, f"playground run (log: {home})")
    except BaseException:
        stop_process(process)
        raise
    return url, process
