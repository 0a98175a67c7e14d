"""The facilitator's key: long enough to hold, slow to guess, and a sign-in that lasts the
browser's session.

The board (``/board``) shows every room's progress, so it opens only for the person who
started the server: a browser on that machine (:func:`playground.access.peers.local_peer`), or
one that gave the key ``--facilitator-key-env`` named. A key given once signs the browser in
with a session cookie the page cannot read, derived from the key so that every replica
accepts it; wrong keys from one address are slowed, doubling after a few.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from playground.access.token import derived, same

FACILITATOR_KEY_ENV = "PLAYGROUND_FACILITATOR_KEY"  # the key itself, for the pages' process
MIN_KEY_CHARS = 12
BOARD_COOKIE = "playground_board"


class KeyTooShort(ValueError):
    """The facilitator's key is shorter than :data:`MIN_KEY_CHARS`."""


def check_key(key: str, where: str) -> str:
    """The key, stripped, when it is long enough to hold against guessing.

    Raises:
        KeyTooShort: it has fewer than :data:`MIN_KEY_CHARS` characters.
    """
    key = key.strip()
    if len(key) < MIN_KEY_CHARS:
        raise KeyTooShort(f"{where}: the facilitator's key must be at least {MIN_KEY_CHARS} "
                          f"characters (it has {len(key)}); a passphrase of three words will do")
    return key


def board_cookie_value(key: str) -> str:
    """What the board's sign-in cookie holds: derived from the key, never the key."""
    return derived(key, "playground facilitator board v1")


def signed_in(cookie: str | None, key: str | None) -> bool:
    """Whether a browser's board cookie was given for ``key``."""
    return bool(key) and same(cookie, board_cookie_value(key))


class Throttle:
    """Wrong tries per client address: the first few are free, then each waits twice as long
    as the one before (1 s, 2 s, 4 s... up to ``longest`` s). A right key clears the count.

    Args:
        free: wrong tries before any wait.
        longest: the longest wait, in seconds.
        clients: addresses remembered at most (the oldest forgotten first), so a flood of
            addresses costs bounded memory.
        clock: seconds, monotonic (a test's clock in tests).
    """

    def __init__(self, free: int = 5, longest: float = 900.0, clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._free, self._longest, self._clients, self._clock = free, longest, clients, clock
        self._tries: OrderedDict[str, tuple[int, float]] = OrderedDict()  # wrong, next try
        self._lock = threading.Lock()

    def wait(self, client: str) -> float:
        """Seconds before ``client`` may try again (0: now)."""
        with self._lock:
            _, allowed_at = self._tries.get(client, (0, 0.0))
        return max(0.0, allowed_at - self._clock())

    def failed(self, client: str) -> float:
        """Count a wrong try; return the seconds the next one must wait."""
        with self._lock:
            wrong = self._tries.pop(client, (0, 0.0))[0] + 1
            delay = 0.0 if wrong <= self._free else min(
                self._longest, 2.0 ** (wrong - self._free - 1))
            self._tries[client] = (wrong, self._clock() + delay)
            while len(self._tries) > self._clients:
                self._tries.popitem(last=False)
        return delay

    def succeeded(self, client: str) -> None:
        """A right key: the client starts afresh."""
        with self._lock:
            self._tries.pop(client, None)
