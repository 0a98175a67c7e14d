"""``playground mcp PLACE``: serve a place's threads to an assistant over MCP, on stdio.

Only the parser is built at import; the command imports the server (and the ``mcp`` package)
when it runs. A graph ``--graph`` or ``--config`` names is imported (the person starting the
server named it) and its reducers fold the values the read tools show. With ``--allow-writes``
the server also offers the write tools, which run a graph: that one, or an Agent Server's own;
one it cannot run is refused before the server starts, in one line (exit 2), as is a graph that
does not load. Without ``--allow-writes`` no write tool is listed. The setup section of
``--help`` comes from :mod:`playground.mcp.setup`, the one place those texts are written.
"""

from __future__ import annotations

import argparse
import textwrap

from playground.cli.engine import _keyed
from playground.mcp.setup import setup_epilog
from playground.places.server_address import KEY_ENV


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``mcp`` to the ``playground`` parser."""
    mcp = sub.add_parser(
        "mcp", help="serve a place's threads to an assistant over MCP (stdio)",
        description=textwrap.fill(
            "An MCP server on stdio that reads the place's threads with the engine's read "
            "tools (list_threads, get_thread, get_checkpoint, diff_checkpoints, "
            "get_conversation, get_timeline, compare_branches), the thread://{id} resource "
            "and the debug_failed_thread prompt, with every command's deadlines and bounds; "
            "nothing the database holds is run. The graph --graph or --config names folds "
            "the values the tools show with its own DeltaChannel reducers, as the app does. "
            "With --allow-writes it also offers fork_with_edit, replay_from and resume, which "
            "run that graph on the place (or, on an Agent Server, the server's own graphs "
            "there); each write is refused when the thread moved past the head the assistant "
            "last read.",
            80),
        epilog=setup_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    mcp.add_argument("db", metavar="PLACE", help="SQLite file, postgresql:// URL, or an Agent "
                     "Server's http:// URL")
    mcp.add_argument("--api-key-env", metavar="NAME", help="with an Agent Server: the "
                     f"environment variable holding its key (default {KEY_ENV})")
    which = mcp.add_mutually_exclusive_group()
    which.add_argument("--graph", metavar="SPEC", help="the app's graph, "
                       "path/to/file.py:ATTR or package.module:ATTR as `playground run` takes "
                       "it: its own DeltaChannel reducers fold the values the tools show (its "
                       "code runs), and with --allow-writes the write tools run it")
    which.add_argument("--config", metavar="LANGGRAPH_JSON", help="the app's langgraph.json "
                       "instead (with --graph-name when it has several graphs)")
    mcp.add_argument("--graph-name", metavar="NAME", help="which graph of the langgraph.json")
    mcp.add_argument("--allow-writes", action="store_true", help="also offer the tools that "
                     "write (fork_with_edit, replay_from, resume), running the graph --graph or "
                     "--config names (an Agent Server runs its own); without it no write tool "
                     "is listed, with or without a graph")
    mcp.set_defaults(handler=_keyed(_mcp))


def _mcp(args: argparse.Namespace) -> int:
    from playground.mcp.server import ServerOptions, serve

    if args.graph_name and not args.config:
        raise ValueError("--graph-name picks a graph of a langgraph.json: give --config too")
    return serve(args.db, ServerOptions(graph=args.graph, config=args.config,
                                        graph_name=args.graph_name,
                                        allow_writes=args.allow_writes))
