"""``playground run``: serve the web playground (Streamlit) on any graph, the built-in ticket
agent by default.

Only the parser is built at import; the command imports what it runs.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

from playground.access.mode import DEBUGGER, MODE_ENV, WORKSHOP
from playground.places.door import DEFAULT_CHECKPOINTS, open_place

DEFAULT_PORT = 8501
ROOM_HELP = """\
a room on your network (--host 0.0.0.0):
  It prints one line to hand out, the room URL: this machine's address on its network
  (--public-host NAME to choose another) and an access token. A browser that opens it once
  stays in: reloads, other pages, new tabs and bookmarks need nothing more (the server gives it
  a cookie no page script can read). Anyone without it gets only a sign-in line.
  The token is kept in .playground/access-token, so a restart with the same command keeps
  every URL handed out; $PLAYGROUND_ACCESS_TOKEN gives one instead (replicas share it), and
  --new-token makes a new one (the old URLs stop working, the board's mark starts afresh).
  The facilitator's board is /board: open on this machine (the second line printed), and from
  anywhere else once the key --facilitator-key-env names is given (12 characters or more).
  A page opens no database or Agent Server typed into it but those --allow-url names.
"""
_PORTS_TRIED = 20  # past the default, when it is taken


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``run`` to the ``playground`` parser."""
    run = sub.add_parser("run", help="start the web playground (Streamlit)",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Start the web playground: the built-in ticket agent's "
                         "workshop, or a debugger on your checkpoint database (PLACE), your "
                         "graph (--graph, --config) or an Agent Server's (--server).",
                         epilog=ROOM_HELP)
    run.add_argument("place", nargs="?", metavar="PLACE",
                     help="a checkpoint database or an Agent Server to debug, read-only: a "
                     "SQLite file, a postgresql:// URL or an http:// URL. Its threads are the "
                     "first page; a thread cloned to work on goes to --checkpoints")
    run.add_argument("--port", type=int, help=f"port to serve on (default {DEFAULT_PORT}, or the "
                     "next free one when it is taken)")
    run.add_argument("--host", default="127.0.0.1", help="address to bind (loopback by default; "
                     "any other asks for the access token the room URL carries)")
    run.add_argument("--workshop", action="store_true",
                     help="rooms on a server on loopback too (each browser its own threads, "
                     "the tour, the board); beyond loopback a server always has them")
    run.add_argument("--no-token", action="store_true",
                     help="serve beyond loopback with no access token (anyone on the network "
                     "may use it)")
    run.add_argument("--new-token", action="store_true",
                     help="make a new access token: every room URL handed out before stops "
                     "working, and the facilitator's mark starts afresh (the token is kept in "
                     ".playground/access-token, or given by $PLAYGROUND_ACCESS_TOKEN)")
    run.add_argument("--allow-url", metavar="URL", action="append", default=[],
                     help="a Postgres database or Agent Server a page may open (Inspect), as a "
                     "URL naming its host and port; repeat for more. A server beyond loopback "
                     "opens nothing else typed into a page, loopback included, and never its "
                     "own checkpoints")
    run.add_argument("--public-host", metavar="NAME",
                     help="the host the printed room URL names (default: this machine's "
                     "address on its network, the one its default route leaves from)")
    run.add_argument("--api-url", help="ticket API to use (default: start one embedded)")
    which = run.add_mutually_exclusive_group()
    which.add_argument("--graph", metavar="SPEC",
                       help="your graph: path/to/file.py:ATTR or package.module:ATTR (a compiled "
                       "graph, a StateGraph, or a factory taking a RunnableConfig)")
    which.add_argument("--config", metavar="LANGGRAPH_JSON",
                       help="your app's langgraph.json (graphs, env, dependencies)")
    which.add_argument("--server", metavar="URL",
                       help="an Agent Server (langgraph dev, self-hosted, a deployment): its "
                       "graphs and threads, every run and edit through its HTTP API")
    run.add_argument("--api-key-env", metavar="NAME",
                     help="with --server: the environment variable holding its key (default "
                     "LANGSMITH_API_KEY); the key itself is never an argument")
    run.add_argument("--graph-name", metavar="NAME",
                     help="which graph of the langgraph.json (when it has several)")
    run.add_argument("--checkpoints",
                     help="SQLite checkpoint file or postgresql:// URL (default: "
                     f"$PLAYGROUND_CHECKPOINTS, else {DEFAULT_CHECKPOINTS}, or "
                     ".playground/<graph-name>.sqlite with --graph)")
    run.add_argument("--database", metavar="URL",
                     help="postgresql:// URL for checkpoints (and tickets, when the API is "
                     "embedded); replicas sharing it share every thread")
    run.add_argument("--facilitator-key-env", metavar="NAME",
                     help="the environment variable holding the facilitator's key (at least 12 "
                     "characters): /board asks for it from any other machine (without one, "
                     "/board opens only on this machine); the key itself is never an argument")
    run.add_argument("--prices", metavar="FILE", help="a JSON price table for the timeline's "
                     'costs, {"model": {"input": 3.0, "output": 15.0}} per million tokens')
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from playground.apps.launch import AppChoice, load_apps
    from playground.server_process import serve

    if args.graph_name and not args.config:
        raise ValueError("--graph-name picks a graph of a langgraph.json: give --config too")
    args.port = _port(args)
    if args.server:
        return _run_on_server(args)
    choice = AppChoice(args.graph, args.config, args.graph_name)
    opened = _opened(args)
    # Load it here first: a spec that does not load is one line and exit 2, before the server
    # starts and before any file is written.
    apps = load_apps(choice)
    first = next(iter(apps.values()))
    # Several graphs of one langgraph.json share one database, named by the config's folder.
    name = Path(args.config).resolve().parent.name if len(apps) > 1 else first.name
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    checkpoints = args.checkpoints or os.environ.get("PLAYGROUND_CHECKPOINTS") or str(
        DEFAULT_CHECKPOINTS if first.builtin else Path(".playground") / f"{stem}.sqlite")
    # A place another writer made (LangGraph.js) is refused here, in one line and exit 2,
    # before a Python saver adds rows its app cannot read: the database replicas share when
    # one is named, else the checkpoint file or URL.
    open_place(args.database or os.environ.get("PLAYGROUND_DATABASE_URL")
               or checkpoints).check_runnable()
    for app in apps.values():
        if not app.builtin:
            print(f"graph {app.name} ({app.spec}): nodes {', '.join(app.nodes)}", flush=True)
    for warning in first.warnings:  # the config's: every graph of it shares them
        print(f"warning: {warning}", file=sys.stderr, flush=True)
    if not first.builtin:
        print(f"checkpoints in {checkpoints}", flush=True)
    app_env, announce = _room(args, {**choice.to_env(), **opened})
    return serve(host=args.host, port=args.port, api_url=args.api_url,
                 checkpoints=checkpoints, database=args.database, app_env=app_env,
                 announce=announce, withheld=_withheld(args))


def _opened(args: argparse.Namespace) -> dict[str, str]:
    """The place ``PLACE`` names, checked now (one that is not a checkpoint database, or does
    not answer, is one line and exit 2 before the server starts): a file made absolute, for
    the server reads it from its own folder."""
    if not args.place:
        return {}
    from contextlib import closing

    from playground.access.mode import OPEN_PLACE_ENV
    from playground.timetravel.thread_list import ThreadQuery, thread_page

    place = open_place(args.place)
    with closing(place.reads()) as reads:
        thread_page(reads, ThreadQuery(limit=1))  # reads its newest thread, or says why not
    words = place.command_words()
    return {OPEN_PLACE_ENV: words[0] if Path(words[0]).exists() else args.place}


def _run_on_server(args: argparse.Namespace) -> int:
    """The playground on an Agent Server's graphs: checked here first (a server that does not
    answer, or serves no graph, is one line and exit 2, before Streamlit starts)."""
    from playground.apps.launch import AppChoice, load_apps
    from playground.places.server_address import KEY_ENV_SETTING, server_label
    from playground.server_process import serve

    if args.api_key_env:
        os.environ[KEY_ENV_SETTING] = args.api_key_env
    choice = AppChoice(server=args.server)
    apps = load_apps(choice)
    print(f"Agent Server {server_label(args.server)}: graphs {', '.join(apps)}", flush=True)
    app_env = choice.to_env()
    if args.api_key_env:
        app_env[KEY_ENV_SETTING] = args.api_key_env
    app_env, announce = _room(args, app_env)
    return serve(host=args.host, port=args.port, api_url=args.api_url,
                 checkpoints=None, database=None, app_env=app_env, announce=announce,
                 withheld=_withheld(args))


def _withheld(args: argparse.Namespace) -> tuple[str, ...]:
    """The variable the facilitator's key was read from: the pages' process is given the key
    under a name of its own, and no other process is given it at all."""
    return (args.facilitator_key_env,) if args.facilitator_key_env else ()


def _room(args: argparse.Namespace, app_env: dict[str, str]
          ) -> tuple[dict[str, str], tuple[str, ...]]:
    """The pages' settings (the mode, the graph's, the room's access, the board's, the
    prices) and the lines to print once the server answers."""
    board = _facilitator(args)  # a key that will not do is refused before a token is made
    prices = _prices(args)
    access, announce = _access(args)
    return ({**app_env, MODE_ENV: _mode(args, app_env), **access, **board, **prices,
             **_allowed(args)}, announce)


def _mode(args: argparse.Namespace, app_env: dict[str, str]) -> str:
    """The workshop (rooms, the tour, the board) for the ticket agent, for every server beyond
    loopback and with ``--workshop``; else, a graph or a server of one's own on one's own
    machine, the debugger (one person, the ids as they are)."""
    from playground.access.mode import OPEN_PLACE_ENV
    from playground.access.peers import is_loopback
    from playground.apps.launch import CONFIG_ENV, GRAPH_ENV, SERVER_ENV

    own = bool({GRAPH_ENV, CONFIG_ENV, SERVER_ENV, OPEN_PLACE_ENV} & set(app_env))
    if args.workshop or not is_loopback(args.host) or not own:
        return WORKSHOP
    return DEBUGGER


def _allowed(args: argparse.Namespace) -> dict[str, str]:
    """The places a page may open beyond those it always may: ``--allow-url`` added to
    ``$PLAYGROUND_ALLOWED_SERVERS``."""
    from playground.places.typed_targets import ALLOWED_ENV

    if not args.allow_url:
        return {}
    given = [item for item in os.environ.get(ALLOWED_ENV, "").split(",") if item.strip()]
    return {ALLOWED_ENV: ",".join([*given, *args.allow_url])}


def _port_free(host: str, port: int) -> bool:
    """Whether a server may listen on ``host:port`` now (as Streamlit's does, reusing an
    address a closed connection still holds)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def _port(args: argparse.Namespace) -> int:
    """The port to serve on: the one asked for (refused in one line when it is taken), else
    the default or, when another server holds it, the next free one, said on the terminal.

    Raises:
        ValueError: ``--port`` names a port that is taken, or none near the default is free.
    """
    how = "choose another with `make run PORT=8600` or `playground run --port 8600`"
    if args.port is not None:
        if not _port_free(args.host, args.port):
            raise ValueError(f"port {args.port} is taken (another server listens there): {how}")
        return args.port
    for port in range(DEFAULT_PORT, DEFAULT_PORT + _PORTS_TRIED):
        if _port_free(args.host, port):
            if port != DEFAULT_PORT:
                print(f"port {DEFAULT_PORT} is taken, so the playground takes {port} ({how})",
                      flush=True)
            return port
    raise ValueError(f"ports {DEFAULT_PORT} to {DEFAULT_PORT + _PORTS_TRIED - 1} are all taken: "
                     f"{how}")


def _prices(args: argparse.Namespace) -> dict[str, str]:
    """The price table the timeline's costs come from, checked before the server starts."""
    if not args.prices:
        return {}
    from playground.timetravel.timeline import PRICES_ENV, read_prices

    read_prices(Path(args.prices))
    return {PRICES_ENV: str(Path(args.prices).resolve())}


def _facilitator(args: argparse.Namespace) -> dict[str, str]:
    """What the board checks: the address served on, and the facilitator's key when one is
    named (read from its variable here: unset or too short is one line and exit 2)."""
    from playground.access.facilitator import FACILITATOR_KEY_ENV, check_key
    from playground.access.peers import BIND_HOST_ENV

    found = {BIND_HOST_ENV: args.host}
    if args.facilitator_key_env:
        key = os.environ.get(args.facilitator_key_env, "").strip()
        if not key:
            raise ValueError(f"--facilitator-key-env {args.facilitator_key_env}: that "
                             "environment variable is not set (put the facilitator's key in it)")
        found[FACILITATOR_KEY_ENV] = check_key(key, f"--facilitator-key-env "
                                                    f"{args.facilitator_key_env}")
    return found


def _access(args: argparse.Namespace) -> tuple[dict[str, str], tuple[str, ...]]:
    """The room's token for the pages' process, and the lines to print once it serves: the
    one URL to hand out (on a server beyond loopback, carrying the token) and the board's."""
    from playground.access.peers import is_loopback, shown_host
    from playground.access.token import REQUIRED_ENV, TOKEN_ENV, TokenError, room_token

    try:
        token = room_token(renew=args.new_token)
    except TokenError:
        if not is_loopback(args.host) and not args.no_token:
            raise
        token = None  # a loopback server asks for none: its mark is kept under no token
    env = {TOKEN_ENV: token} if token else {}
    if is_loopback(args.host):
        return env, (f"playground on http://{shown_host(args.host)}:{args.port} "
                     "(Ctrl+C stops it)",)
    host = shown_host(args.host, args.public_host)
    board = (f"board, the facilitator's: http://127.0.0.1:{args.port}/board on this machine"
             + (", or /board with the key from another" if args.facilitator_key_env else ""))
    if args.no_token:
        print(f"warning: serving on {args.host} with no access token: anyone who reaches port "
              f"{args.port} can run turns, read every room they know the code of, and make the "
              "server open files and databases", file=sys.stderr, flush=True)
        return env, (f"room URL: http://{host}:{args.port}/", board)
    env[REQUIRED_ENV] = "1"
    return env, (f"room URL: http://{host}:{args.port}/?token={token}", board)
