"""The door: the one code that looks at a path, a URL or an object to pick the kind of place.

Every caller (the CLI, the pages, the runtime, the lessons, deploy) names a target and gets a
:class:`~playground.places.base.Place`; none of them branches on the kind. A new kind is one
module in this package and one line in :data:`KINDS` (docs/architecture.md, "Adding a kind").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from playground.places.agent_server import AgentServer
from playground.places.base import Place
from playground.places.postgres import PostgresDatabase
from playground.places.saver_object import SaverObject
from playground.places.sqlite import SqliteFile
from playground.places.urls import UrlRefused
from playground.timetravel.errors import CheckpointDbError

if TYPE_CHECKING:
    from playground.timetravel.storage import Storage

# Asked in order; the first that claims a target opens it. A SQLite file claims any path, so
# it comes last. A kind registers here by one line.
KINDS: list[type[Place]] = [
    SaverObject,
    AgentServer,
    PostgresDatabase,
    SqliteFile,
]

# What a page accepts as a typed target, said when it is given something else.
TYPED_FORMS = ("a Postgres URL starts with postgresql:// (for example "
               "postgresql://user:password@localhost:5432/app), an Agent Server's with http:// "
               "(for example http://127.0.0.1:2024); for a SQLite file use the list or an "
               "upload")

# Where the playground's own checkpoints live when nothing else is named.
DEFAULT_CHECKPOINTS = Path(".playground") / "checkpoints.sqlite"


def open_place(target: str | Path | Any, typed: bool = False, label: str | None = None
               ) -> Place:
    """The place a target names. Cheap: nothing connects until the place is asked something.

    Args:
        target: a SQLite file path, a ``postgresql://`` URL, a saver object, or whatever a
            registered kind claims.
        typed: the target was typed into a page: it may ask for only what a page may (a
            Postgres URL names one host, no server files; see :mod:`playground.places.urls`).
        label: how to name it to a person, when not by the target (an upload's copy).

    Raises:
        CheckpointDbError: no kind claims the target.
        UrlRefused: ``typed``, and the target is not one a page may be given (a path, a URL
            asking for more than a page may).
    """
    for kind in KINDS:
        if kind.claims(target):
            if typed and not kind.typeable:
                raise UrlRefused(TYPED_FORMS)
            place = kind(target, typed=typed, label=label)
            if typed:
                place.check_typed()
            return place
    if typed:
        raise UrlRefused(TYPED_FORMS)
    raise CheckpointDbError(f"{target!s}: not a place this tool can open")


def open_storage(target: str | Path | Any, writable: bool = False, typed: bool = False,
                 create: bool = False, shared: bool = False) -> Storage:
    """Shorthand for ``open_place(target, typed).reads(writable, create, shared)``: the
    engine's reads on a target, for one command or one page run.

    Raises:
        CheckpointDbError: the target is not a readable LangGraph checkpoint store.
    """
    return open_place(target, typed=typed).reads(writable=writable, create=create,
                                                 shared=shared)


def database_errors() -> tuple[type[Exception], ...]:
    """What opening or reading any place can raise besides a refusal: a file that is not one,
    a lock held too long, a server that is down, full or too slow."""
    errors: tuple[type[Exception], ...] = (CheckpointDbError,)
    for kind in KINDS:
        errors += tuple(error for error in kind.errors() if error not in errors)
    return errors


def is_transient(exc: BaseException) -> bool:
    """Whether an error is a moment of another process's write: the same read will likely
    succeed again (a page reads again rather than showing it)."""
    return any(kind.is_transient(exc) for kind in KINDS)


def is_busy(exc: BaseException) -> bool:
    """Whether an error means another writer held the place too long (the call can run
    again; the thread keeps its last checkpoint)."""
    return any(kind.is_busy(exc) for kind in KINDS)
