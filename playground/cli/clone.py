"""``playground clone PLACE --thread T``: copy a thread (or one branch) where it can be replayed.

The place is read, never written: a SQLite file opened read-only, a Postgres database on a
read-only session, an Agent Server through its API. The copy goes into the playground's own
checkpoint file (the one ``playground run`` uses) unless ``--to`` names another SQLite file or
a Postgres database. One line says what was copied; a refusal is one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from playground.places.door import DEFAULT_CHECKPOINTS, database_errors, open_place
from playground.places.server_address import KEY_ENV, KEY_ENV_SETTING
from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.limits import clip


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``clone`` to the ``playground`` parser."""
    clone = sub.add_parser(
        "clone", help="copy a thread, or one branch of it, into a checkpoint file the "
        "playground writes, to replay and fork it there")
    clone.add_argument("db", metavar="PLACE", help="where the thread lives (read only): a "
                       "SQLite file, a postgresql:// URL, or an Agent Server's http:// URL")
    clone.add_argument("--thread", required=True, help="the thread to copy")
    clone.add_argument("--to", metavar="TARGET", default=str(DEFAULT_CHECKPOINTS),
                       help="the SQLite file (made if missing) or postgresql:// URL to copy "
                       f"into (default {DEFAULT_CHECKPOINTS}, where `playground run` keeps "
                       "its threads)")
    clone.add_argument("--as", dest="as_id", metavar="NEW_ID",
                       help="the copy's thread id (default: the thread's own)")
    clone.add_argument("--to-checkpoint", metavar="ID_OR_#N",
                       help="copy only the branch from the root to this checkpoint (an id, a "
                       "unique part of one, or #N in creation order)")
    clone.add_argument("--api-key-env", metavar="NAME", help="with an Agent Server: the "
                       f"environment variable holding its key (default {KEY_ENV})")
    clone.set_defaults(handler=_clone)


class _Progress:
    """A line on a terminal's stderr saying where the copy is, redrawn in place (a carriage
    return); the command passes it only to a terminal, so a log or a pipe gets nothing."""

    shown = False

    def __call__(self, what: str, done: int, total: int) -> None:
        self.shown = True
        print(f"\r{what} {done:,} of {total:,} checkpoints", end="", file=sys.stderr,
              flush=True)

    def end(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def _clone(args: argparse.Namespace) -> int:
    from playground.timetravel.clone import FROM_VALUES, clone_thread

    if args.api_key_env:
        os.environ[KEY_ENV_SETTING] = args.api_key_env
    progress = _Progress() if sys.stderr.isatty() else None
    source_place = open_place(args.db)
    target_place = open_place(args.to)
    created = not target_place.exists()
    try:
        source = source_place.reads()  # read-only, whatever the kind
        try:
            target = target_place.reads(writable=True, create=True)
            try:
                report = clone_thread(source, target, args.thread, as_id=args.as_id,
                                      to_checkpoint=args.to_checkpoint,
                                      progress=progress)
            finally:
                target.close()
        finally:
            source.close()
            if progress:
                progress.end()
    except BaseException as exc:
        if created:  # a refused clone leaves no empty database behind
            target_place.discard()
        if isinstance(exc, database_errors()) and not isinstance(exc, CheckpointDbError):
            # A driver's error (a lock held too long, a server gone): one line, no traceback.
            raise CheckpointDbError(clip(" ".join(str(exc).split()), 300)) from None
        raise
    finally:
        source_place.close()
        target_place.close()
    what = (f"the branch up to {report.tip} of thread {report.source_thread_id}"
            if report.tip else f"thread {report.source_thread_id}")
    named = "" if report.thread_id == report.source_thread_id else f" as {report.thread_id}"
    extra = [ns for ns in report.namespaces if ns]
    subgraphs = f", {len(extra)} subgraph namespace{'s' if len(extra) != 1 else ''}" \
        if extra else ""
    how = ("rebuilt from the server's values (values and next at each checkpoint), not "
           "copied byte for byte" if report.how == FROM_VALUES else report.how)
    print(f"cloned {what} from {report.source} into {report.target}{named}: "
          f"{report.checkpoints:,} checkpoints, {report.writes:,} writes{subgraphs}, "
          f"{report.bytes:,} bytes ({how})")
    return 0
