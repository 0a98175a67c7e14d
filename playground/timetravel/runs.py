"""Which run wrote a checkpoint, and when that run started: the mark the playground leaves.

LangGraph copies the keys of a call's ``config["metadata"]`` (plain strings and numbers only)
into the metadata of every checkpoint that call writes (verified on LangGraph 1.2.24: an
``invoke(None, {..., "metadata": {...}})`` tags only the checkpoints of that resume). So every
run the playground drives carries two keys, written by :func:`run_metadata` alone:

- ``run_id`` (:data:`RUN_ID_KEY`): the key an Agent Server stores itself, so a thread from a
  server and one the playground ran read the same way;
- ``run_started_at`` (:data:`RUN_STARTED_KEY`): the UTC time (ISO) the playground started the
  call.

A timeline reads them back from each checkpoint's record: where a step's checkpoint belongs to
another run than its parent, the time from the parent to the run's start was spent paused
(a breakpoint, ``interrupt()``, a restart, the gap between two turns), not running.

A run that is more than a run says what it was, under :data:`ACTION_KEY`: a re-run on the
graph's current code marks its checkpoints :data:`RERUN`, so the tree calls its branch "re-run
of #9 on current code" rather than a replay (which is what an untagged branch made the same way
by someone else reads).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from typing import Any

RUN_ID_KEY = "run_id"  # the key an Agent Server stores too
RUN_STARTED_KEY = "run_started_at"
ACTION_KEY = "playground_action"  # what a run the playground drove was, when not a plain run
RERUN = "rerun"  # a re-run on the graph's current code (runtime/rerun.py)
_MAX_TEXT = 100  # a run id or a time longer than this is not one the playground wrote


def run_metadata(now: dt.datetime | None = None) -> dict[str, str]:
    """A new run's marks: a fresh run id and the time it started (ISO, UTC)."""
    started = now or dt.datetime.now(dt.UTC)
    return {RUN_ID_KEY: str(uuid.uuid4()), RUN_STARTED_KEY: started.isoformat()}


def with_run(config: Mapping[str, Any] | None, now: dt.datetime | None = None
             ) -> dict[str, Any]:
    """``config`` with a run's marks in its ``metadata``; marks already there are kept (a
    caller that marked the run, like a turn of the ticket agent, wins over a lower layer)."""
    config = dict(config or {})
    metadata = dict(config.get("metadata") or {})
    if RUN_ID_KEY not in metadata:
        metadata.update(run_metadata(now))
    config["metadata"] = metadata
    return config


def run_of(metadata: Mapping[str, Any] | None) -> tuple[str | None, str | None, str | None]:
    """(run id, run start, action) as a checkpoint's metadata records them, unchecked text or
    None (the metadata comes from a database: anything but a short string is None)."""
    if not metadata:
        return None, None, None
    return tuple(value if type(value) is str and len(value) <= _MAX_TEXT else None
                 for value in (metadata.get(RUN_ID_KEY), metadata.get(RUN_STARTED_KEY),
                               metadata.get(ACTION_KEY)))
