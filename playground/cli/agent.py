"""``playground`` subcommands that run the ticket agent: turn, resume, edit, demo, state-sizes.

``run``, which serves any graph, is in ``playground.cli.serve``.

Only the parser is built at import; each command imports what it runs, so the read-only engine
commands of the same ``playground`` process never pay for LangGraph, the HTTP client or the agent.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import uuid
from pathlib import Path

from playground.agent.state import SCHEMAS
from playground.agent.ticket_service import DEFAULT_TICKETS_DB, ticket_api_url
from playground.places.settings import sqlite_timeout
from playground.savers import DEFAULT_CHECKPOINTS, is_lock_timeout, open_saver


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--thread", required=True, help="conversation (thread) id")
    parser.add_argument(
        "--checkpoints", default=str(DEFAULT_CHECKPOINTS),
        help="SQLite checkpoint file, or a postgresql:// URL (also: PLAYGROUND_DATABASE_URL)",
    )
    parser.add_argument("--api-url", help="ticket API to use (default: start one embedded)")
    parser.add_argument(
        "--tickets-db",
        default=str(DEFAULT_TICKETS_DB),
        help="tickets file of the embedded API (ignored with --api-url)",
    )
    parser.add_argument("--tenant", default="demo", help="API tenant (X-Tenant)")
    parser.add_argument(
        "--schema", choices=list(SCHEMAS), default="etag", help="state schema variant"
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the agent's subcommands to the ``playground`` parser."""
    turn = sub.add_parser("turn", help="turn 1: read the ticket, plan, pause before writing")
    _add_agent_options(turn)
    turn.add_argument("request", help='what to do, e.g. "raise t7 to high"')

    res = sub.add_parser("resume", help="turn 2: resume a paused thread (runs the write)")
    _add_agent_options(res)

    edit = sub.add_parser(
        "edit", help="edit a checkpoint of an agent thread (validated update_state)"
    )
    _add_agent_options(edit)
    edit.add_argument("--checkpoint", help="checkpoint id to edit (default: the newest)")
    edit.add_argument("--values", required=True, help='JSON object, e.g. \'{"priority": "low"}\'')
    edit.add_argument("--as-node", help="the node the edit acts as (default: the last writer)")
    edit.set_defaults(handler=_edit)

    demo = sub.add_parser("demo", help="the eight-process demo: each turn in a fresh process")
    demo.add_argument("--checkpoints", help="checkpoint file (default: a new temporary one)")
    demo.add_argument("--api-url", help="ticket API to use (default: start one embedded)")

    # The byte-table lesson is "state sizes"; ``compare`` is its former name.
    cmp_ = sub.add_parser("state-sizes", aliases=["compare"],
                          help="bytes stored by each way of keeping state")
    cmp_.add_argument("--turns", default="1,10", help="comma-separated turn counts")
    cmp_.add_argument("--seed", type=int, default=0, help="seed for channel-version digits")
    cmp_.add_argument("--api-url", help="ticket API to use (default: start one embedded)")
    cmp_.add_argument("--database", metavar="URL",
                      help="also measure on PostgresSaver at this postgresql:// URL")
    turn.set_defaults(handler=_agent_turn)
    res.set_defaults(handler=_agent_turn)
    demo.set_defaults(handler=_demo)
    cmp_.set_defaults(handler=_state_sizes)


def _checkpoints(args: argparse.Namespace) -> str:
    """Where checkpoints live: --checkpoints if given, else PLAYGROUND_DATABASE_URL, else the
    default SQLite file."""
    if args.checkpoints != str(DEFAULT_CHECKPOINTS):
        return args.checkpoints
    return os.environ.get("PLAYGROUND_DATABASE_URL") or args.checkpoints


def _agent_turn(args: argparse.Namespace) -> int:
    from playground.agent.client import TicketClient
    from playground.agent.graph import build_agent
    from playground.agent.turns import resume, start_turn

    try:
        with (
            ticket_api_url(args.api_url, args.tickets_db) as url,
            open_saver(_checkpoints(args)) as saver,
        ):
            client = TicketClient(url, tenant=args.tenant, actor=f"agent:{args.thread}")
            try:
                graph = build_agent(client, saver, schema=args.schema)
                if args.command == "turn":
                    result = start_turn(graph, args.thread, args.request)
                else:
                    result = resume(graph, args.thread)
            finally:
                client.close()
    except Exception as exc:
        if not is_lock_timeout(exc):
            raise
        # The thread keeps its last saved checkpoint, so the same command can simply run again;
        # a write the API already accepted is then replayed under the same Idempotency-Key.
        print(
            f"playground {args.command}: the checkpoint file {args.checkpoints} is locked by "
            f"another writer (waited {sqlite_timeout():g} s), so the turn did not finish: run "
            "the same command again when that writer is done",
            file=sys.stderr,
        )
        return 1
    print(result.line)
    if result.line.startswith("nothing to resume: it has no checkpoints"):
        return 2
    return 0 if result.ok else 1


def _edit(args: argparse.Namespace) -> int:
    """Write a validated edit as a new checkpoint; a refused edit writes nothing (exit 2)."""
    from playground.agent.graph import build_agent
    from playground.apps.json_text import parse_json
    from playground.runtime.time_travel import edit_state

    values = parse_json(args.values)  # JsonRefused is a ValueError: one line, exit 2
    config = {"configurable": {"thread_id": args.thread, "checkpoint_ns": ""}}
    if args.checkpoint:
        config["configurable"]["checkpoint_id"] = args.checkpoint
    with open_saver(_checkpoints(args)) as saver:
        # update_state runs no node, so the agent needs no ticket API here.
        graph = build_agent(None, saver, schema=args.schema)
        if not graph.get_state({"configurable": {"thread_id": args.thread}}).values:
            raise ValueError(f"no thread {args.thread!r} in {_checkpoints(args)}")
        new = edit_state(graph, config, values, as_node=args.as_node)
        snapshot = graph.get_state(new)
    waits = ", ".join(snapshot.next) or "nothing (finished)"
    print(f"wrote checkpoint {new['configurable']['checkpoint_id']}: next runs {waits}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from playground.lessons.demo import run_demo

    with tempfile.TemporaryDirectory(prefix="playground-demo-") as tmp:
        checkpoints = Path(args.checkpoints or Path(tmp) / "checkpoints.sqlite")
        # A tenant of its own, so the demo always starts from t7 at "v1".
        tenant = f"demo-{uuid.uuid4().hex[:8]}"
        with ticket_api_url(args.api_url, Path(tmp) / "tickets.sqlite") as url:
            crashed = run_demo(url, checkpoints, tenant)
    return 1 if crashed else 0


def _state_sizes(args: argparse.Namespace) -> int:
    from playground.agent.client import TicketClient
    from playground.lessons.state_sizes import DEFINITIONS, compare, format_table

    try:
        turns = sorted({int(part) for part in args.turns.split(",") if part.strip()})
    except ValueError:
        print(f"--turns must be comma-separated whole numbers, got {args.turns!r}", file=sys.stderr)
        return 2
    if not turns or turns[0] < 1:
        print("--turns must be positive, such as 1,10", file=sys.stderr)
        return 2

    live = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        # Redraw one line on a terminal; in a log, write the line once when done.
        if live:
            print(f"\rmeasuring: {done}/{total} turns", end="", file=sys.stderr, flush=True)
        elif done == total:
            print(f"measuring: {done}/{total} turns", end="", file=sys.stderr)

    with ticket_api_url(args.api_url, None) as url:
        client = TicketClient(url, tenant="compare")
        try:
            client.reset()
            ticket = client.get_ticket("t7")
            measures = compare(lambda: client.get_ticket("t7"), turns, args.seed, progress,
                               postgres_url=args.database)
        finally:
            client.close()
    print(file=sys.stderr)
    print(format_table(measures, ticket.size))
    print()
    for definition in DEFINITIONS:
        print(definition)
    return 0
