"""The ``playground`` command: the same core the pages use, from a terminal.

Exit codes: 0 when the command did what it says; 1 when a turn ran but failed (a 412, a refused
write, a stranded thread); 2 for bad input (unknown thread, a file that is not a checkpoint
database, a refused edit), reported in one line without a traceback.
"""

from __future__ import annotations

import argparse
import sys

from playground.apps.errors import AppLoadError
from playground.cli import agent, clone, engine, mcp, serve
from playground.timetravel.errors import UnknownThread


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: ``run``, then the agent's commands, then the engine's."""
    parser = argparse.ArgumentParser(
        prog="playground",
        description="Time-travel playground for LangGraph checkpoints and 412 conflicts.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve.register(sub)
    agent.register(sub)
    engine.register(sub)
    clone.register(sub)
    mcp.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``playground`` console script."""
    args = build_parser().parse_args(argv)
    try:
        try:
            return args.handler(args)
        except UnknownThread:
            # A page shows a thread by its name (thread-1); the playground stores it inside its
            # room (43d16b7762/thread-1). The name is taken when one stored thread has it.
            stored = engine.stored_thread_named(args)
            if stored is None:
                raise
            print(f"playground {args.command}: thread {args.thread!r} is stored as "
                  f"{stored!r}; reading that one", file=sys.stderr)
            args.thread = stored
            return args.handler(args)
    except (*engine.USER_ERRORS, AppLoadError) as exc:
        print(f"playground {args.command}: {exc}", file=sys.stderr)
        return 2
