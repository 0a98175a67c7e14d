"""What every read of a SQLite place is wrapped in: a deadline said in words, and another
process's passing lock tried again (the kind's reads and its thread list share it)."""

from __future__ import annotations

import functools
import sqlite3

from playground.timetravel.limits import limits, took_too_long


def interrupted(exc: BaseException) -> bool:
    """True for the error SQLite raises when the read's progress handler stopped it."""
    return isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)


def locked(exc: BaseException) -> bool:
    """True for an error that says another connection holds a lock."""
    return "locked" in str(exc).lower()


def stoppable(method):
    """A read that says "took longer than N s to read: stopped" when its deadline stopped it, and
    that is tried again while another process's write makes it fail for a moment (the object's
    ``_retrying``)."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            return self._retrying(lambda: method(self, *args, **kwargs))
        except sqlite3.OperationalError as exc:
            if interrupted(exc):
                raise took_too_long(self.label, limits().read_seconds) from None
            raise

    return guarded
