"""``playground mcp PLACE``: serve a place's threads to an assistant over MCP, on stdio.

Only the parser is built at import; the command imports the server (and the ``mcp`` package)
when it runs. With ``--allow-writes`` the server also offers the write tools, which run a graph:
the one ``--graph`` or ``--config`` names, or an Agent Server's own; one it cannot run is
refused before the server starts, in one line (exit 2). Without ``--allow-writes`` no graph is
imported, even one ``--graph`` names. The setup section of ``--help`` comes from
:mod:`playground.mcp.setup`, the one place those texts are written.
"""

from __future__ import annotations

import argparse
import sys
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
            "nothing the database holds is run. With --allow-writes it also offers "
            "fork_with_edit, replay_from and resume, which run the graph --graph or --config "
            "names on the place (or, on an Agent Server, the server's own graphs there); each "
            "write is refused when the thread moved past the head the assistant last read.",
            80),
        epilog=setup_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    mcp.add_argument("db", metavar="PLACE", help="SQLite file, postgresql:// URL, or an Agent "
                     "Server's http:// URL")
    mcp.add_argument("--api-key-env", metavar="NAME", help="with an Agent Server: the "
                     f"environment variable holding its key (default {KEY_ENV})")
    which = mcp.add_mutually_exclusive_group()
    which.add_argument("--graph", metavar="SPEC", help="the graph the write tools run: "
                       "path/to/file.py:ATTR or package.module:ATTR, as `playground run` "
                       "takes it")
    which.add_argument("--config", metavar="LANGGRAPH_JSON", help="the app's langgraph.json "
                       "instead (with --graph-name when it has several graphs)")
    mcp.add_argument("--graph-name", metavar="NAME", help="which graph of the langgraph.json")
    mcp.add_argument("--allow-writes", action="store_true", help="also offer the tools that "
                     "write (fork_with_edit, replay_from, resume), running the graph --graph or "
                     "--config names (an Agent Server runs its own); without it no write tool "
                     "is listed")
    mcp.set_defaults(handler=_keyed(_mcp))


def _mcp(args: argparse.Namespace) -> int:
    from playground.mcp.server import ServerOptions, serve

    if args.graph_name and not args.config:
        raise ValueError("--graph-name picks a graph of a langgraph.json: give --config too")
    if (args.graph or args.config) and not args.allow_writes:
        # Served all the same: the read tools need no graph, and none is imported.
        print("playground mcp: --graph and --config name the graph the write tools run; "
              "without --allow-writes it is not loaded", file=sys.stderr)
    return serve(args.db, ServerOptions(graph=args.graph, config=args.config,
                                        graph_name=args.graph_name,
                                        allow_writes=args.allow_writes))
