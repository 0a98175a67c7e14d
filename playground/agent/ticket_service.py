"""Where the playground finds its ticket API: a URL the user gave, or one it starts itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DEFAULT_TICKETS_DB = Path(".playground") / "tickets.sqlite"


@contextmanager
def ticket_api_url(
    api_url: str | None = None, tickets_db: str | Path | None = DEFAULT_TICKETS_DB
) -> Iterator[str]:
    """Yield the base URL of a ticket API, starting an embedded one when none is given.

    The embedded API keeps its tickets in ``tickets_db`` (None: in memory), so separate CLI
    processes that each start their own embedded API still see the same tickets and ETags.
    """
    if api_url:
        yield api_url.rstrip("/")
        return
    # Imported here: a process given --api-url never pays for loading FastAPI and uvicorn.
    from ticket_api.server import start_embedded

    if tickets_db is not None:
        Path(tickets_db).parent.mkdir(parents=True, exist_ok=True)
    server = start_embedded(str(tickets_db) if tickets_db is not None else None)
    try:
        yield server.url
    finally:
        server.stop()
