"""A big room: N ``playground run`` replicas behind nginx, one ticket API, one PostgreSQL database.

``make workshop REPLICAS=3 PORT=8500`` runs this. Every replica and the API share the database
in ``PLAYGROUND_DATABASE_URL`` (default: a ``playground_workshop`` database on the PostgreSQL
server at 127.0.0.1:5432, made if missing), so a thread started through one replica resumes
through any other. nginx (Debian's package) keeps each browser on one replica, since a
Streamlit session lives in one replica's memory, and sends it to a live one if its replica
dies. Everything listens on loopback unless ``--host`` says otherwise; Ctrl+C stops it all.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playground.access.facilitator import KeyTooShort, check_key
from playground.access.peers import BEHIND_PROXY_ENV, is_loopback, shown_host
from playground.access.token import REQUIRED_ENV, TOKEN_ENV, TokenError, room_token
from playground.server_process import (
    SECRETS,
    ServerDidNotStart,
    free_port,
    spawn,
    stop_process,
    wait_until_up,
)

TEMPLATE = Path(__file__).with_name("nginx.conf.template")
LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432"
WORKSHOP_DB = "playground_workshop"


class WorkshopError(Exception):
    """Something the room needs is missing, or a process of it did not start; the message says
    what to install or set, or where the process's log is."""


def workshop_database() -> str:
    """``PLAYGROUND_DATABASE_URL``, else the local server's workshop database (made if new)."""
    url = os.environ.get("PLAYGROUND_DATABASE_URL")
    if url:
        return url
    try:
        import psycopg

        with psycopg.connect(f"{LOCAL_SERVER}/postgres", autocommit=True,
                             connect_timeout=3) as admin:
            exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                   (WORKSHOP_DB,)).fetchone()
            if not exists:
                admin.execute(f'CREATE DATABASE "{WORKSHOP_DB}"')
    except Exception as exc:
        raise WorkshopError(
            "a room of replicas needs PostgreSQL: set PLAYGROUND_DATABASE_URL=postgresql://... "
            f"or run a server on 127.0.0.1:5432 with trust auth ({type(exc).__name__})"
        ) from None
    return f"{LOCAL_SERVER}/{WORKSHOP_DB}"


def nginx_config(prefix: Path, host: str, port: int, replicas: list[int]) -> str:
    """The nginx configuration for these replica ports."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;"
                        for p in replicas)
    text = TEMPLATE.read_text()  # @name@ fields: nginx's own $variables stay as they are
    for name, value in (("prefix", prefix), ("host", host), ("port", port), ("servers", servers)):
        text = text.replace(f"@{name}@", str(value))
    return text


@dataclass
class Replica:
    """One ``playground run`` process behind nginx."""

    port: int
    process: subprocess.Popen

    @property
    def url(self) -> str:
        """The replica's own address (bypassing nginx)."""
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """Stop the replica at once, as a crash would (SIGKILL to its process group)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


@dataclass
class Room:
    """A running room: nginx's URL, the API's, and the replicas."""

    url: str
    api_url: str
    database: str
    api_pid: int = 0
    replicas: list[Replica] = field(default_factory=list)


@contextmanager
def start_room(replicas: int = 3, port: int = 8500, host: str = "127.0.0.1",
               database: str | None = None, home: Path | None = None,
               facilitator_key_env: str | None = None) -> Iterator[Room]:
    """Start the API, the replicas and nginx; yield the room; stop everything after.

    ``facilitator_key_env`` names the environment variable holding the facilitator's key:
    behind nginx every request comes from loopback through a proxy, so the board (``/board``)
    opens only with that key.

    Raises:
        WorkshopError: nginx is not installed, PostgreSQL is not reachable, or a process did
            not come up (its log is in ``home``).
    """
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if nginx is None:
        raise WorkshopError("nginx is not installed: apt-get install nginx-light (or nginx)")
    database = database or workshop_database()
    with ExitStack() as stack, _as_workshop_error():
        home = home or Path(stack.enter_context(tempfile.TemporaryDirectory(
            prefix="playground-workshop-")))
        # Behind nginx every request comes from loopback: no replica may take one for the
        # facilitator's own (playground.access.peers.local_peer).
        env = {**os.environ, BEHIND_PROXY_ENV: "1"}
        token = None
        if not is_loopback(host):
            # The room is served to the network: every replica asks for one access token (the
            # one kept in .playground/access-token, or $PLAYGROUND_ACCESS_TOKEN), which the
            # room's URL carries; each replica derives the same cookie from it.
            try:
                token = room_token()
            except TokenError as exc:
                raise WorkshopError(str(exc)) from None
            env.update({TOKEN_ENV: token, REQUIRED_ENV: "1"})
        api_port = free_port()
        api = spawn([sys.executable, "-m", "ticket_api.server", "--port", str(api_port),
                     "--db", database, "--log-level", "warning"],
                    {name: value for name, value in env.items()
                     if name not in (*SECRETS, facilitator_key_env)},
                    home / "api.log")
        stack.callback(stop_process, api)
        api_url = f"http://127.0.0.1:{api_port}"
        wait_until_up(f"{api_url}/health", api, "the ticket API")
        room = Room("", api_url, database, api.pid)
        for index in range(replicas):
            replica_port = free_port()
            process = spawn([sys.executable, "-m", "playground.cli", "run", "--port",
                             str(replica_port), "--database", database, "--api-url", api_url,
                             *(("--facilitator-key-env", facilitator_key_env)
                               if facilitator_key_env else ())],
                            env, home / f"replica-{index + 1}.log")
            stack.callback(stop_process, process)
            room.replicas.append(Replica(replica_port, process))
        for index, replica in enumerate(room.replicas, 1):
            wait_until_up(f"{replica.url}/_stcore/health", replica.process, f"replica {index}")
        config = home / "nginx.conf"
        config.write_text(nginx_config(home, host, port, [r.port for r in room.replicas]))
        proxy = spawn([nginx, "-p", str(home), "-c", str(config)], env, home / "nginx.out")
        stack.callback(stop_process, proxy)
        local = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
        wait_until_up(f"{local}/_stcore/health", proxy, "nginx")
        room.url = f"http://{shown_host(host)}:{port}/?token={token}" if token else local
        yield room


@contextmanager
def _as_workshop_error() -> Iterator[None]:
    """A process of the room that did not come up is the room's error, said in one line."""
    try:
        yield
    except ServerDidNotStart as exc:
        raise WorkshopError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make workshop", description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--port", type=int, default=8500)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address nginx listens on (0.0.0.0: your whole network)")
    parser.add_argument("--facilitator-key-env", metavar="NAME",
                        help="the environment variable holding the facilitator's key, which "
                        "/board asks for (behind nginx it asks everyone)")
    args = parser.parse_args(argv)
    if args.facilitator_key_env:
        key = os.environ.get(args.facilitator_key_env, "").strip()
        if not key:
            print(f"make workshop: {args.facilitator_key_env} is not set (put the "
                  "facilitator's key in it)", file=sys.stderr)
            return 2
        try:
            check_key(key, args.facilitator_key_env)
        except KeyTooShort as exc:
            print(f"make workshop: {exc}", file=sys.stderr)
            return 2
    try:
        with start_room(args.replicas, args.port, args.host,
                        facilitator_key_env=args.facilitator_key_env) as room:
            print(f"room URL: {room.url}", flush=True)
            print(f"{len(room.replicas)} replicas behind nginx on {_redact(room.database)}; "
                  "the board at /board asks for the facilitator's key. Ctrl+C stops it.",
                  flush=True)
            try:
                while all(r.process.poll() is None for r in room.replicas):
                    time.sleep(1)
                print("a replica stopped: stopping the room", file=sys.stderr)
                return 1
            except KeyboardInterrupt:
                print("stopping the room", flush=True)
                return 0
    except WorkshopError as exc:
        print(f"make workshop: {exc}", file=sys.stderr)
        return 2


def _redact(url: str) -> str:
    head, at, tail = url.rpartition("@")
    if not at or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, auth = head.partition("//")
    return f"{scheme}//{auth.split(':', 1)[0]}:***@{tail}"


if __name__ == "__main__":
    sys.exit(main())
