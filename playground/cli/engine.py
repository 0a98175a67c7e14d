"""``playground`` subcommands that read or repair any checkpoint database.

threads, history, diff, branches, chat, timeline, export-test, prune, migrate, export, import.
DB is a SQLite file, a ``postgresql://`` URL or an Agent Server's ``http://`` URL (read through
its API; its key from ``LANGSMITH_API_KEY`` or the variable ``--api-key-env`` names). Only prune
without --dry-run, migrate --apply and import write. Every value is read through the safe
decoder: nothing a database names is imported or called; export-test names the graph in the
file it writes and never loads it. history, diff, chat, branches and timeline take ``--graph``
or ``--config``: the graph the person typed is imported and its own DeltaChannel reducers fold
the values shown, as the app folds them (a graph that does not load is one line, exit 2).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

from playground.places.door import open_place, open_storage
from playground.places.server_address import KEY_ENV, KEY_ENV_SETTING
from playground.timetravel.decode import to_jsonable
from playground.timetravel.delta import (
    ON_CLI,
    UNFOLDED_NOTE,
    describe_unfolded,
    is_unfolded,
)
from playground.timetravel.diff import diff_states
from playground.timetravel.display import tree_view, view_dot
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.limits import clip, limits, reset_limits
from playground.timetravel.messages import conversations, turns
from playground.timetravel.records import checkpoint_name
from playground.timetravel.status import FAILED
from playground.timetravel.storage import Storage
from playground.timetravel.thread_list import (
    MAX_PAGE,
    PAGE,
    RUNNING,
    STATUSES,
    WALK_SHARE,
    QueryRefused,
    ThreadQuery,
    count_threads,
    group_errors,
    metadata_text,
    parse_meta,
    thread_named,
    thread_page,
    typed_query,
)
from playground.timetravel.tree import (
    CheckpointTree,
    load_tree,
    resolve_checkpoint,
    tip_fields,
)

# Errors that mean "bad input": reported in one line with exit code 2, never as a traceback.
USER_ERRORS: tuple[type[Exception], ...] = (CheckpointDbError, ValueError, OSError)
MAX_DEADLINE_S = 3_600  # the longest --deadline a command takes: every read stays bounded
DEADLINE_SETTING = "PLAYGROUND_READ_TIMEOUT"


def stored_thread_named(args: argparse.Namespace) -> str | None:
    """The one thread of ``args.db`` a page would show as ``args.thread``: ``room/NAME`` (the
    playground keeps each room's threads under its code), or ``NAME`` for ``/NAME`` (a page's
    way to name a thread the app wrote itself). None when no thread, or several, have it; the
    caller then reports the name as unknown (several: each stored id is said).

    Raises:
        ValueError: several rooms hold a thread of that name (the message lists them).
    """
    name = getattr(args, "thread", None)
    if not name or getattr(args, "command", "") == "import":  # import names a new thread
        return None
    storage = open_storage(args.db)
    try:
        return thread_named(storage.thread_ids(), name)
    finally:
        storage.close()


def register(sub: argparse._SubParsersAction) -> None:
    """Add the engine's subcommands to the ``playground`` parser."""

    def command(name: str, help_: str, handler) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, help=help_)
        parser.add_argument("db", metavar="DB", help="SQLite file, postgresql:// URL, or an "
                            "Agent Server's http:// URL")
        parser.add_argument("--api-key-env", metavar="NAME", help="with an Agent Server: the "
                            f"environment variable holding its key (default {KEY_ENV})")
        parser.set_defaults(handler=_keyed(handler))
        return parser

    threads = command("threads", "the newest threads, a page at a time, with filters",
                      _threads)
    threads.add_argument("--status", choices=(*STATUSES, RUNNING), help="only threads paused "
                         "(at a question or breakpoint), stopped (a person stopped the run: "
                         "Continue runs it on), failed (in a node), finished, or running (an "
                         "Agent Server's)")
    threads.add_argument("--since", metavar="T", help="only threads written at or after T: "
                         "an ISO time (UTC unless it says) or a span back (90s, 15m, 2h, 3d)")
    threads.add_argument("--until", metavar="T", help="only threads last written before T")
    threads.add_argument("--meta", metavar="KEY=VALUE", action="append", default=[],
                         help="only threads with a checkpoint whose metadata holds it (a "
                         "run's metadata is stored with each checkpoint; repeat for several)")
    threads.add_argument("--match", metavar="TEXT", help="only threads whose error or "
                         "question contains TEXT, or whose id starts with it (any case)")
    threads.add_argument("--limit", type=int, default=PAGE, metavar="N",
                         help=f"threads per page (default {PAGE}, at most {MAX_PAGE:,})")
    threads.add_argument("--after", metavar="CURSOR", help="the page after the one that gave "
                         "this cursor")
    threads.add_argument("--count", action="store_true", help="count every thread that "
                         "matches: the database counts where it can, else the threads are "
                         "read within the read's deadline")
    threads.add_argument("--show-meta", metavar="KEY", action="append", default=[],
                         help="a column for this key of each thread's metadata (--meta keys "
                         "are shown too; --json carries all of it)")
    # (%% is argparse's way to write a percent sign in a help text)
    threads.add_argument("--deadline", type=float, metavar="SECONDS", help="the longest "
                         f"the read may take (default {DEADLINE_SETTING}, 20 s; at most "
                         f"{MAX_DEADLINE_S:,}): a filter's walk stops at "
                         f"{WALK_SHARE * 100:.0f}%% of it and shows the threads it found, "
                         "with the cursor to keep reading from")
    threads.add_argument("--group-by", choices=("error",), metavar="error",
                         help="error: every failed thread grouped by its error (implies "
                         "--status failed; other filters apply): each distinct error once, "
                         "what varies in it (ids, numbers, hex, uuids) masked, with its count, "
                         "newest time and an example thread; all the failed threads are read "
                         "within the read's deadline, and a cut walk says how many it read "
                         "(--limit: groups shown)")
    threads.add_argument("--json", action="store_true", help="one JSON object, with the next "
                         "page's cursor and whether the page is complete")

    history = command("history", "every checkpoint of a thread, across all branches", _history)
    history.add_argument("--thread", required=True)
    history.add_argument("--ns", default="", help="checkpoint namespace (subgraph)")
    _graph_options(history, shows_values=False)
    shape = history.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="one JSON object")
    shape.add_argument("--dot", action="store_true", help="the tree as Graphviz DOT")

    diff = command("diff", "what changed between two checkpoints of a thread (one: from its "
                   "parent)", _diff)
    diff.add_argument("--thread", required=True)
    diff.add_argument("a", help="checkpoint id, unique part of one, or #N (creation order); "
                      "alone, the checkpoint compared with its parent")
    diff.add_argument("b", nargs="?", help="the checkpoint to compare A with (same forms)")
    _graph_options(diff)

    branches = command("branches", "two branches of a thread compared step by step",
                       _branches)
    branches.add_argument("--thread", required=True)
    branches.add_argument("--left", metavar="CHECKPOINT", help="where the left branch ends: id, "
                          "unique part of one, or #N (default: the older of the two newest tips)")
    branches.add_argument("--right", metavar="CHECKPOINT", help="where the right branch ends "
                          "(default: the newest tip)")
    branches.add_argument("--ns", default="", help="checkpoint namespace (subgraph)")
    branches.add_argument("--json", action="store_true", help="one JSON object")
    _graph_options(branches)

    chat = command("chat", "the conversation a thread's messages hold, at one checkpoint", _chat)
    chat.add_argument("--thread", required=True)
    chat.add_argument("--at", default=None, metavar="CHECKPOINT",
                      help="checkpoint id, unique part of one, or #N (default: the head)")
    chat.add_argument("--ns", default="", help="checkpoint namespace (subgraph)")
    chat.add_argument("--json", action="store_true", help="the messages as plain JSON data")
    _graph_options(chat)

    spent = command("timeline", "where a thread's time and tokens went, step by step",
                    _timeline)
    spent.add_argument("--thread", required=True)
    spent.add_argument("--branch", metavar="CHECKPOINT", help="the branch that ends at this "
                       "checkpoint: id, unique part of one, or #N (default: the head's)")
    spent.add_argument("--json", action="store_true", help="one JSON object")
    spent.add_argument("--prices", type=Path, metavar="FILE", help="a JSON price table, "
                       '{"model": {"input": 3.0, "output": 15.0}} in money per million tokens')
    _graph_options(spent, shows_values=False)

    test = command("export-test", "write a thread's branch as a self-contained pytest file",
                   _export_test)
    test.add_argument("--thread", required=True)
    test.add_argument("--at", default=None, metavar="CHECKPOINT",
                      help="where the branch ends: id, unique part of one, or #N (default: the "
                      "head)")
    named = test.add_mutually_exclusive_group(required=True)
    named.add_argument("--graph", metavar="SPEC", help="the graph as `playground run --graph` "
                       "names it (path relative to where the test will run)")
    named.add_argument("--config", metavar="FILE", help="a langgraph.json (relative to where "
                       "the test will run), with --graph-name")
    named.add_argument("--ticket-agent", action="store_true", help="the built-in ticket agent "
                       "(the test starts the bundled ticket API with freshly seeded tickets)")
    test.add_argument("--graph-name", help="the graph's name in --config")
    test.add_argument("--context", metavar="JSON", help="the context the thread ran with, as "
                      "a JSON object (default: the schema's defaults)")
    test.add_argument("--real-tools", action="store_true",
                      help="run the tools for real in the test (default: answered from the "
                      "recording, so the test needs no network)")
    test.add_argument("-o", "--output", type=Path, help="write the file here (default: "
                      "standard output)")

    prune = command("prune", "delete old checkpoints, or one branch, of a thread", _prune)
    prune.add_argument("--thread", required=True)
    what = prune.add_mutually_exclusive_group(required=True)
    what.add_argument("--keep", type=int, help="keep the newest N checkpoints")
    what.add_argument("--branch", metavar="CHECKPOINT",
                      help="delete this checkpoint and everything made from it (#N, id or part)")
    prune.add_argument("--dry-run", action="store_true", help="report only, change nothing")

    migrate = command("migrate", "rename a state key inside paused threads", _migrate)
    migrate.add_argument("--rename", required=True, metavar="OLD=NEW")
    migrate.add_argument("--thread", help="only this thread (default: every thread holding OLD)")
    migrate.add_argument("--apply", action="store_true", help="write (default: dry run)")

    export = command("export", "write one thread as JSON to standard output", _export)
    export.add_argument("--thread", required=True)

    import_ = command("import", "load a thread exported as JSON into an empty thread", _import)
    import_.add_argument("file", type=Path, help="file written by playground export")
    import_.add_argument("--thread", help="import under this thread id instead")


def _graph_options(parser: argparse.ArgumentParser, shows_values: bool = True) -> None:
    """``--graph SPEC`` or ``--config FILE [--graph-name NAME]`` on a read command: the app's
    graph, whose own DeltaChannel reducers fold the values shown (:func:`reads_for`). Every
    read command takes them, so one command line serves them all; ``shows_values`` False says
    the command prints no state value for them to change."""
    said = ("its own DeltaChannel reducers fold the values shown, as the app does" if
            shows_values else "taken as chat, diff and branches take it, though this command "
            "shows no state value for its reducers to fold")
    named = parser.add_mutually_exclusive_group()
    named.add_argument("--graph", metavar="SPEC", help="the app's graph, path/to/file.py:ATTR "
                       f"or package.module:ATTR as `playground run` takes it: {said} (its code "
                       "runs)")
    named.add_argument("--config", metavar="FILE", help="the app's langgraph.json instead "
                       "(with --graph-name when it lists several graphs)")
    parser.add_argument("--graph-name", metavar="NAME", help="which graph of --config")


def reads_for(args: argparse.Namespace) -> Storage:
    """The place's reads for a read command, shown in a terminal: with ``--graph`` or
    ``--config``, the graph's own DeltaChannel reducers fold the values, as the app does.

    The graph is loaded first, only because the person who typed the command named it: one
    that does not load stops the command before the place is opened.

    Raises:
        AppLoadError: the graph does not load, or several are named (one line, exit 2).
        ValueError: ``--graph-name`` without ``--config``.
        CheckpointDbError: the place cannot be read.
    """
    from playground.apps.launch import AppChoice, reading_reducers

    if args.graph_name and not args.config:
        raise ValueError("--graph-name picks a graph of a langgraph.json: give --config too")
    reducers = reading_reducers(AppChoice(args.graph, args.config, args.graph_name))
    storage = open_storage(args.db)
    storage.shown_on = ON_CLI  # a value the app's reducer folds says what works here
    if reducers:
        storage.reducers = reducers
    return storage


def _unfolded_lines(tree: CheckpointTree, *shown: tuple[str, dict]) -> list[str]:
    """A line for each value only the app's own reducer folds (no ``--graph`` named it) at the
    checkpoints shown (``(checkpoint id, its values)``): its stored pieces, the snapshot and
    the writes since; then, once, what to add to the command to see the value it makes (the
    value's own note, in the CLI's words)."""
    found = [(cid, key, value) for cid, values in shown for key, value in values.items()
             if is_unfolded(value)]
    lines = [f"{clip(key, 80)} at #{tree.ordinal(cid)}, not folded: "
             f"{describe_unfolded(value, tree.ordinal, 600)}" for cid, key, value in found]
    if found:
        lines.append(f"note: {found[0][2][UNFOLDED_NOTE]}")
    return lines


def _keyed(handler):
    """The handler, with ``--api-key-env`` naming where an Agent Server's key is read from
    (the key itself is never an argument: it would show in the process list)."""

    def run(args: argparse.Namespace) -> int:
        if args.api_key_env:
            os.environ[KEY_ENV_SETTING] = args.api_key_env
        return handler(args)

    return run


# -- reading ------------------------------------------------------------------------------


def _query(args: argparse.Namespace) -> ThreadQuery:
    if not 1 <= args.limit <= MAX_PAGE:
        raise QueryRefused(f"--limit takes 1 to {MAX_PAGE:,}")
    return typed_query(args.status, args.since, args.until, parse_meta(args.meta), args.match,
                       args.limit, args.after)


@contextmanager
def read_deadline(seconds: float | None) -> Iterator[None]:
    """Within it, a read of a database may take ``seconds`` (``--deadline``), this command
    only: the read limit's setting, given back afterwards.

    Raises:
        ValueError: not more than 0 and at most :data:`MAX_DEADLINE_S`.
    """
    if seconds is None:
        yield
        return
    if not 0 < seconds <= MAX_DEADLINE_S:
        raise ValueError(f"--deadline takes more than 0 and at most {MAX_DEADLINE_S:,} seconds")
    before = os.environ.get(DEADLINE_SETTING)
    os.environ[DEADLINE_SETTING] = repr(float(seconds))
    reset_limits()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DEADLINE_SETTING, None)
        else:
            os.environ[DEADLINE_SETTING] = before
        reset_limits()


def _threads(args: argparse.Namespace) -> int:
    if args.group_by:
        return _error_groups(args)
    query = _query(args)
    with read_deadline(args.deadline):
        source = open_storage(args.db)
        try:
            if args.count:
                return _count(source, query, args.json)
            page = thread_page(source, query)
        finally:
            source.close()
        seconds = limits().read_seconds
    if args.json:
        print(json.dumps({"place": source.label, "writer": source.writer,
                          "threads": [row.as_json() for row in page.rows],
                          "next": page.next_cursor, "complete": page.complete,
                          "scanned": page.scanned, "cut": page.cut,
                          "walked": None if page.walked is None else round(page.walked, 4)},
                         ensure_ascii=False))
        return 0
    print(f"{clip(source.label, 200)}: written by {source.writer}")
    if not page.rows:
        print("no threads" + (" match" if query.filtered else "")
              + ("" if page.complete else " among those read"))
    else:
        _thread_table(page, query, args.show_meta)
    if page.cut:
        print(f"cut short: {clip(page.cut, 300)}")
    if page.cut and page.next_cursor:
        print(f"more: add --after {page.next_cursor} to keep reading from where it stopped "
              f"(or --deadline {_longer(seconds):g} to read longer)")
    elif page.next_cursor:
        print(f"more: add --after {page.next_cursor} for the next page")
    return 0


def _error_groups(args: argparse.Namespace) -> int:
    """``threads --group-by error``: every failed thread that matches, grouped by error."""
    if args.status not in (None, FAILED):
        raise QueryRefused(f"--group-by error groups the failed threads: give --status failed "
                           f"or no --status, not --status {args.status}")
    for given, flag in ((args.count, "--count"), (args.after, "--after"),
                        (args.show_meta, "--show-meta")):
        if given:
            raise QueryRefused(f"--group-by error reads every failed thread and prints groups, "
                               f"not a page of threads: leave out {flag}")
    query = _query(args)
    with read_deadline(args.deadline):
        source = open_storage(args.db)
        try:
            found = group_errors(source, query)
        finally:
            source.close()
        seconds = limits().read_seconds
    if args.json:
        print(json.dumps({"place": source.label, "writer": source.writer,
                          **found.as_json(shown=query.limit)}, ensure_ascii=False))
        return 0
    print(f"{clip(source.label, 200)}: written by {source.writer}")
    if not found.groups:
        print("no failed threads" + (" match" if query.since or query.until or query.meta
                                     or query.match else "")
              + ("" if found.complete else " among those read"))
    else:
        _group_table(found, query.limit)
    if found.cut:
        print(f"cut short: {clip(found.cut, 300)}: the groups are of the {found.failed:,} "
              f"failed threads read (--deadline {_longer(seconds):g} to read longer)")
    return 0


def _group_table(found, limit: int) -> None:
    """The groups, the largest first: count, newest time and the masked error, and under each
    the nodes that raised it and an example thread with its error as stored."""
    groups = found.groups
    plural = "s" if len(groups) != 1 else ""
    print(f"{found.failed:,} failed thread{'s' if found.failed != 1 else ''} in "
          f"{len(groups):,} group{plural} of errors (what varies inside one is masked: <n> a "
          "number, <id> an id, <hex>, <uuid>, <time>, <email>)")
    print(f"{'count':>7}  {'newest':<19}  error")
    for group in groups[:limit]:
        newest = (group.newest_at or "-")[:19].replace("T", " ")
        print(f"{group.count:>7,}  {clip(newest, 19):<19}  {clip(group.key, 300)}")
        nodes = f"in {clip(', '.join(group.nodes), 200)}; " if group.nodes else ""
        print(f"{'':>7}  {'':<19}  {nodes}e.g. {clip(group.example_thread, 200)}: "
              f"{clip(' '.join(group.example_error.split()), 300)}")
    if len(groups) > limit:
        rest = groups[limit:]
        print(f"and {len(rest):,} more group{'s' if len(rest) != 1 else ''} "
              f"({sum(g.count for g in rest):,} threads): --limit {len(groups)} shows them all")


def _longer(seconds: float) -> float:
    """A deadline to suggest after ``seconds`` ran out: three times as long, within bounds."""
    return min(round(seconds * 3), MAX_DEADLINE_S)


def _thread_table(page, query: ThreadQuery, show_meta: list[str]) -> None:
    """The page's threads as a table: id, counts, bytes, when, the metadata columns asked
    for, and where each stands."""
    # An id is cut to the max_text limit when shown: a 10 MB id padded into every row of
    # the table printed a gigabyte.
    shown = [(clip(row.summary.thread_id), row) for row in page.rows]
    width = max(len(text) for text, _ in shown)
    # The metadata keys a person filtered by or asked to see, a column each.
    keys = list(dict.fromkeys([*(key for key, _ in query.meta), *show_meta]))
    cells = {key: [metadata_text(row.metadata.get(key), 40, "-") for _, row in shown]
             for key in keys}
    widths = {key: max([len(clip(key, 40)), *map(len, cells[key])]) for key in keys}
    meta_head = "".join(f"{clip(key, 40):<{widths[key]}}  " for key in keys)
    print(f"{'thread':<{width}}  {'checkpoints':>11}  {'branches':>8}  {'bytes':>10}  "
          f"{'newest':<26}  {meta_head}status")
    for index, (text, row) in enumerate(shown):
        t = row.summary
        said = clip(row.said, 160)
        meta = "".join(f"{cells[key][index]:<{widths[key]}}  " for key in keys)
        print(f"{text:<{width}}  {t.checkpoints:>11,}  {t.branches:>8}  "
              f"{t.stored_bytes:>10,}  {clip(t.newest_at or '-', 40):<26}  {meta}{said}")


def _count(source, query: ThreadQuery, as_json: bool) -> int:
    """Every thread that matches, counted by the database where it can; else read page by
    page, with a progress line on a terminal (never into a pipe or a log)."""
    live = sys.stderr.isatty()

    def progress(total: int, scanned: int) -> None:
        print(f"\rcounted {total:,} of {scanned:,} threads read", end="", file=sys.stderr,
              flush=True)

    found = count_threads(source, query, progress if live else None)
    if live and found.scanned:
        print(file=sys.stderr)
    if as_json:
        print(json.dumps({"place": source.label, "count": found.count, "scanned": found.scanned,
                          "exact": found.cut is None, "cut": found.cut}))
        return 0
    how = "counted by the database" if found.by_query else f"read {found.scanned:,}"
    print(f"{found.count:,} thread{'s' if found.count != 1 else ''}"
          + (" match" if query.filtered else "") + f" ({how})")
    if found.cut:
        print(f"cut short: {clip(found.cut, 300)}: the count is of the threads read so far")
    return 0


def history_json(tree: CheckpointTree, metadata: dict[str, dict] | None = None) -> dict:
    """The ``history --json`` object: the thread, its head and every checkpoint, each with its
    metadata as stored (``metadata``, by checkpoint id).

    The tree must hold every checkpoint's details (``load_tree(..., all_details=True)``).
    """
    metadata = metadata or {}
    forks, branch = set(tree.forks), set(tree.current_branch)
    details = tree.details
    return {
        "thread_id": tree.thread_id,
        "checkpoint_ns": tree.checkpoint_ns,
        "head": tree.head,
        "checkpoints": [
            {
                "checkpoint_id": r.checkpoint_id,
                "parent_checkpoint_id": r.parent_id,
                "ordinal": tree.ordinal(r.checkpoint_id),
                "step": r.step,
                "source": r.source,
                "next": list(details[r.checkpoint_id].next),
                "writers": list(details[r.checkpoint_id].writers),
                "changed": list(details[r.checkpoint_id].changed),
                "created_at": details[r.checkpoint_id].created_at,
                "metadata": to_jsonable(metadata.get(r.checkpoint_id, {})),
                "bytes": r.stored_bytes,
                "blob_bytes": r.blob_bytes,
                "paused": r.checkpoint_id in tree.paused,
                **tip_fields(tree, r.checkpoint_id),
                "fork_point": r.checkpoint_id in forks,
                "on_current_branch": r.checkpoint_id in branch,
                "signals": [
                    {"kind": signal.kind, "node": signal.node, "text": signal.text,
                     "value": to_jsonable(signal.value), "interrupt_id": signal.interrupt_id}
                    for signal in tree.signals.get(r.checkpoint_id, ())
                ],
                "problem": details[r.checkpoint_id].problem,
                "broken_link": tree.broken.get(r.checkpoint_id),
            }
            for r in tree.nodes.values()
        ],
    }


def _history(args: argparse.Namespace) -> int:
    source = reads_for(args)
    try:
        if args.dot:
            tree = load_tree(source, args.thread, args.ns)
            print(view_dot(tree_view(tree, storage=source)).source)
            return 0
        tree = load_tree(source, args.thread, args.ns, all_details=True)
        metadata = source.checkpoint_metadata(args.thread, args.ns) if args.json else None
    finally:
        source.close()
    if args.json:
        # orjson: 10,000 checkpoints make about 5 MB of JSON, which json.dump writes ~10x slower
        sys.stdout.buffer.write(orjson.dumps(history_json(tree, metadata),
                                             option=orjson.OPT_INDENT_2))
        sys.stdout.buffer.write(b"\n")
        return 0
    branch = set(tree.current_branch)
    print(f"thread {clip(tree.thread_id, 200)}: {len(tree)} checkpoints, "
          f"{len(tree.leaves)} branches, head #{tree.ordinal(tree.head)}")
    records = list(tree.nodes.values())
    # Each checkpoint named as LangGraph writes it, as the tree, the inspector, Compare and
    # MCP name it (input, loop · NODE, update · NODE, fork).
    names = {r.checkpoint_id: clip(checkpoint_name(
        r.source, tree.details[r.checkpoint_id].writers), 80) for r in records}
    nexts = {r.checkpoint_id: clip(_named(tree.details[r.checkpoint_id].next), 80)
             for r in records}
    # Columns as wide as their widest cell (a fan-out's, "loop · research ×3", is wider than
    # the heading), so every row lines up.
    named = max([16, *map(len, names.values())])
    waits = max([16, *map(len, nexts.values())])
    print(f"{'#':>5} {'parent':>6} {'step':>5}  {'checkpoint':<{named}} "
          f"{'next':<{waits}} {'bytes':>8}  checkpoint id")
    for r in records:
        detail = tree.details[r.checkpoint_id]
        parent = tree.parent_of(r.checkpoint_id)
        marks = []
        if r.checkpoint_id == tree.head:
            marks.append("HEAD")
        if not tree.children.get(r.checkpoint_id) and r.checkpoint_id in (
                tree.paused | tree.failed | tree.stopped):
            marks.append(tree.tip_status(r.checkpoint_id).kind)  # failed is never paused
        if len(tree.children.get(r.checkpoint_id, ())) > 1:
            marks.append("fork")
        if r.checkpoint_id not in branch:
            marks.append("other branch")
        print(f"{tree.ordinal(r.checkpoint_id):>5} "
              f"{('#' + str(tree.ordinal(parent))) if parent else '-':>6} {r.step!s:>5}  "
              f"{names[r.checkpoint_id]:<{named}} "
              f"{nexts[r.checkpoint_id]:<{waits}} {r.stored_bytes:>8,}  "
              f"{clip(r.checkpoint_id, 200)}{'  ' + ' '.join(marks) if marks else ''}")
        if r.checkpoint_id in tree.broken:
            print(f"{'':>13}! broken link: {tree.broken[r.checkpoint_id]}")
        if detail.problem:
            print(f"{'':>13}! {detail.problem}")
        for signal in tree.signals.get(r.checkpoint_id, ()):
            mark = {"interrupt": "?", "error": "!", "answer": ">"}[signal.kind]
            print(f"{'':>13}{mark} {signal.line}")
    return 0


def _named(names: tuple[str, ...]) -> str:
    """Node names for a column, each once, with how many times it ran when more than once
    (``research ×3, merge``); ``-`` for none."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counts.items()) or "-"


def _diff(args: argparse.Namespace) -> int:
    source = reads_for(args)
    try:
        tree = load_tree(source, args.thread)
        a, b = _diffed(tree, args.a, args.b)
        before, after = source.values(args.thread, a), source.values(args.thread, b)
        changes = diff_states(before, after)
    finally:
        source.close()
    print(f"#{tree.ordinal(a)} {a} -> #{tree.ordinal(b)} {b}")
    lines = changes.lines()
    print("\n".join(lines) if lines else "no differences")
    # A changed value only the app's reducer folds, which the diff cuts short: its pieces on
    # each side, and how to see what they make.
    changed = {key for key in {*before, *after} if before.get(key) != after.get(key)}
    for line in _unfolded_lines(tree, *((cid, {k: v for k, v in values.items() if k in changed})
                                        for cid, values in ((a, before), (b, after)))):
        print(line)
    return 0


def _diffed(tree: CheckpointTree, first: str, second: str | None) -> tuple[str, str]:
    """The two checkpoints ``diff`` compares: the two named, or one named and its parent (as
    the page and the MCP tool compare a checkpoint by default).

    Raises:
        ValueError: a checkpoint not found, or one alone that starts the thread.
    """
    if second is not None:
        return resolve_checkpoint(tree, first), resolve_checkpoint(tree, second)
    to = resolve_checkpoint(tree, first)
    parent = tree.parent_of(to)
    if parent is None:
        raise ValueError(f"checkpoint #{tree.ordinal(to)} is where the thread starts: it has "
                         "no parent to compare with; name a second checkpoint")
    return parent, to


def _branches(args: argparse.Namespace) -> int:
    from playground.timetravel.compare import compare_branches, newest_branches

    if (args.left is None) != (args.right is None):
        raise ValueError("give both --left and --right, or neither for the two newest branches")
    storage = reads_for(args)
    try:
        tree = load_tree(storage, args.thread, args.ns)
        if args.left is None:
            left, right = newest_branches(tree)
        else:
            left = resolve_checkpoint(tree, args.left)
            right = resolve_checkpoint(tree, args.right)
        comparison = compare_branches(storage, tree, left, right)
        ends = [(end, storage.values(args.thread, end, args.ns)) for end in (left, right)]
    finally:
        storage.close()
    if args.json:
        # stdlib json, not orjson: a value from the database may be an integer past 64 bits
        json.dump(comparison.to_json(), sys.stdout, indent=2, ensure_ascii=False, default=str)
        sys.stdout.write("\n")
        return 0
    print("\n".join(comparison.lines(name=lambda cid: f"#{tree.ordinal(cid)} {clip(cid, 80)}")))
    for line in _unfolded_lines(tree, *ends):
        print(line)
    return 0


def _seconds(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.3f} s"


def _timeline(args: argparse.Namespace) -> int:
    from playground.timetravel.timeline import EDIT, read_prices, timeline

    prices = read_prices(args.prices)
    storage = reads_for(args)
    try:
        tree = load_tree(storage, args.thread, times=True)
        tip = resolve_checkpoint(tree, args.branch) if args.branch else tree.head
        found = timeline(storage, tree, tip)
    finally:
        storage.close()
    if args.json:
        json.dump(found.to_json(prices), sys.stdout, indent=2, ensure_ascii=False, default=str)
        sys.stdout.write("\n")
        return 0
    usage = found.usage
    maybe = found.maybe_paused
    print(f"thread {clip(args.thread, 200)}, branch to #{tree.ordinal(tip)}: ran "
          f"{found.run_seconds:.3f} s, waited {found.wait_seconds:.3f} s, idle "
          f"{found.idle_seconds:.3f} s; tokens {usage.input:,} in, {usage.output:,} out"
          + (f" ({usage.cache_read:,} cache reads)" if usage.cache_read else "")
          + (f"; {usage.without} AI messages carry no usage (not counted)" if usage.without
             else "")
          + (f"; {maybe} step{'s' if maybe != 1 else ''} may include a pause (a new run whose "
             "start is not recorded)" if maybe else ""))
    print(f"{'#':>5}  {'step':>4}  {'node':<20} {'kind':<5} {'start':>10}  {'took':>10}  "
          f"{'tokens in':>9}  {'out':>7}  note")
    for step in found.steps:
        note = step.note or (f"time unknown: {step.unknown}" if step.unknown else "")
        start = "unknown" if step.start is None else f"{step.start:.3f}"
        took = "instant" if step.kind == EDIT and step.seconds is not None \
            else _seconds(step.seconds)
        print(f"{step.ordinal:>5}  {step.step!s:>4}  {clip(step.node, 20):<20} {step.kind:<5} "
              f"{start:>10}  {took:>10}  {step.usage.input:>9,}  "
              f"{step.usage.output:>7,}  {note}")
    print()
    print(f"{'node':<20} {'calls':>5}  {'time':>10}  {'share':>6}  {'task time':>10}  "
          f"{'tokens in':>9}  {'out':>7}  {'model':<24}" + ("  cost" if prices else ""))
    for node in found.totals(prices):
        cost = "" if not prices else ("  -" if node.cost is None else f"  {node.cost:.4f}")
        print(f"{clip(node.node, 20):<20} {node.calls:>5}  {node.seconds:>8.3f} s  "
              f"{node.share:>6.1%}  {node.task_seconds:>8.3f} s  {node.usage.input:>9,}  "
              f"{node.usage.output:>7,}  {clip(', '.join(node.usage.models) or '-', 24):<24}"
              f"{cost}")
    print("time: wall time of the steps a node ran in (share: of the running time); task "
          "time: its tasks' times summed (parallel tasks each count). Waits, idle time and "
          "instants are no node's.")
    return 0


def _export_test(args: argparse.Namespace) -> int:
    """The branch as a pytest file; the graph is only named, never imported, here."""
    from playground.timetravel.regression_file import regression_test

    if args.config and not args.graph_name:
        raise ValueError("--config needs --graph-name: which of its graphs made the thread")
    graph = ({"graph": args.graph} if args.graph
             else {"builtin": "ticket-agent"} if args.ticket_agent
             else {"config": args.config, "graph_name": args.graph_name})
    settings = {}
    if args.context:
        try:
            context = json.loads(args.context)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--context is not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(context, dict):
            raise ValueError("--context must be a JSON object, like '{\"model\": \"...\"}'")
        settings = {"context": context}
    storage = open_storage(args.db)
    try:
        tree = load_tree(storage, args.thread)
        at = resolve_checkpoint(tree, args.at) if args.at else tree.head
        text = regression_test(storage, tree, at, graph, settings,
                               tools_from_recording=not args.real_tools,
                               written_to=args.output.resolve().parent if args.output else None)
    finally:
        storage.close()
    if args.output is None:
        sys.stdout.write(text)
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}: thread {clip(args.thread, 80)!r} to #{tree.ordinal(at)}; run "
          "it with pytest from any folder (it names the graph relative to itself)",
          file=sys.stderr)
    return 0


def _chat(args: argparse.Namespace) -> int:
    source = reads_for(args)
    try:
        tree = load_tree(source, args.thread, args.ns)
        at = resolve_checkpoint(tree, args.at) if args.at else tree.head
        values = source.values(args.thread, at, args.ns)
        signals = tree.signals.get(at, ())
    finally:
        source.close()
    found = conversations(values)
    if args.json:
        json.dump({"thread_id": args.thread, "checkpoint_id": at,
                   "conversations": {key: [to_jsonable(m.raw) for m in messages]
                                     for key, messages in found.items()},
                   # what only the app's reducer folds: its stored pieces and how to fold them
                   "not_folded": {key: to_jsonable(value) for key, value in values.items()
                                  if is_unfolded(value)}}, sys.stdout, indent=2)
        print()
        return 0
    print(f"thread {args.thread} at #{tree.ordinal(at)} {at}")
    # A conversation only the app's reducer folds is shown as its stored pieces, with how to
    # see the messages they make.
    unfolded = _unfolded_lines(tree, (at, values))
    if not found:
        print("no messages in this checkpoint's state" + (", as stored" if unfolded else ""))
    for key, messages in found.items():
        if len(found) > 1 or key != "messages":
            print(f"[{key}]")
        for turn in turns(messages):
            for line in turn.message.lines():
                # tool calls indented under the message that made them, each result below
                print(f"  {line}" if line.startswith("tool call ") else line)
            for call, reply in turn.results:
                result = reply.text if reply else "(no result yet)"
                print(f"    -> {call.name}: {' '.join(result.split())[:160]}")
    for line in unfolded:
        print(line)
    for signal in signals:
        print(signal.line)
    return 0


# -- writing ------------------------------------------------------------------------------


def _prune(args: argparse.Namespace) -> int:
    from playground.timetravel.prune import delete_branch, prune_keep_latest

    storage = open_storage(args.db, writable=not args.dry_run)
    try:
        tree = load_tree(storage, args.thread)  # unknown thread: one clear line
        if args.branch:
            report = delete_branch(storage, args.thread, resolve_checkpoint(tree, args.branch),
                                   dry_run=args.dry_run)
        else:
            report = prune_keep_latest(storage, args.thread, args.keep, dry_run=args.dry_run)
    finally:
        storage.close()
    verb = "would delete" if report.dry_run else "deleted"
    print(f"{verb} {len(report.deleted_ids)} of {report.checkpoints_before} checkpoints "
          f"({report.writes_deleted} pending writes); keeps {report.checkpoints_after}")
    print(f"bytes: {report.bytes_before:,} before, {report.bytes_after:,} after "
          f"({report.bytes_freed:,} freed)")
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from playground.timetravel.migrate import rename_channel, threads_with_channel

    old, sep, new = args.rename.partition("=")
    if not sep or not old or not new or old == new:
        raise ValueError(f"--rename wants OLD=NEW with two different keys, got {args.rename!r}")
    # A dry run reads only: a read-only session, with the read deadline.
    storage = open_storage(args.db, writable=args.apply)
    try:
        threads = [args.thread] if args.thread else threads_with_channel(storage, old)
        if not threads:
            print(f"no thread holds {old!r} in its newest checkpoint: nothing to do")
            return 0
        for thread_id in threads:
            report = rename_channel(storage, thread_id, old, new, apply=args.apply)
            verb = "renamed" if report.applied else "would rename"
            print(f"{thread_id}: {verb} {old} -> {new} in checkpoint {report.checkpoint_id} "
                  f"({', '.join(report.changed)})")
    finally:
        storage.close()
    if not args.apply:
        print("dry run: nothing changed; add --apply to write")
    return 0


def _export(args: argparse.Namespace) -> int:
    from playground.timetravel.transfer import dumps_export, export_thread

    storage = open_storage(args.db)
    try:
        load_tree(storage, args.thread)  # an unknown thread: one clear line
        print(dumps_export(export_thread(storage, args.thread)))
    finally:
        storage.close()
    return 0


def _import(args: argparse.Namespace) -> int:
    from playground.timetravel.transfer import import_thread

    try:
        data = json.loads(args.file.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{args.file}: not JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"{args.file}: its JSON nests too deep to read") from None
    place = open_place(args.db)
    created = not place.exists()
    try:
        storage = place.reads(writable=True, create=True)
        try:
            report = import_thread(storage, data, thread_id=args.thread)
        finally:
            storage.close()
    except BaseException:
        if created:  # a refused import leaves no empty database behind
            place.discard()
        raise
    print(f"imported thread {report.thread_id}: {report.checkpoints} checkpoints, "
          f"{report.writes} writes")
    return 0
