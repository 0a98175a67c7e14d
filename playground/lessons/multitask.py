"""The Agent Server's own conflict lesson: two tabs start runs on one thread.

An Agent Server answers a second run on a thread that is still busy by the run's
``multitask_strategy`` (the same question as a stale PATCH and its 412, one level up):

- ``reject``: the second run is refused, 409 Conflict; the first runs on alone;
- ``enqueue``: the second waits, then runs after the first, on the state the first left;
- ``interrupt``: the first is stopped where it is (its finished steps kept), the second runs;
- ``rollback``: the first is stopped and deleted with everything it wrote, the second runs.

:func:`play_two_tabs` plays it on a fresh thread of the server: the first tab's run starts, the
second tab's run follows at once with the strategy, both are waited for, and what each did is
returned as a timeline (seconds since the first click) with the thread it left. Everything
goes through the server's documented API (``runs.create``, ``runs.join``, ``runs.get``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from playground.places.server_address import ServerError
from playground.places.server_client import ServerClient

STRATEGIES = ("reject", "enqueue", "interrupt", "rollback")
WHAT_IT_DOES = {
    "reject": "the second run is refused (409 Conflict); the first runs on alone",
    "enqueue": "the second run waits, then runs on the state the first left",
    "interrupt": "the first run is stopped where it is, its finished steps kept; the second "
                 "runs",
    "rollback": "the first run is stopped and deleted with what it wrote; the second runs",
}
# Streamed so the server's model call streams (and takes the time a real one takes).
_MODES = ["values", "messages-tuple"]
LESSON_KEY = "playground_lesson"


@dataclass(frozen=True)
class TabRun:
    """What one tab's run did.

    Attributes:
        tab: ``first tab`` or ``second tab``.
        run_id: the server's run, or None when it was refused.
        answered: what the server answered the click (``accepted``, ``409 Conflict``).
        status: how the run ended (``success``, ``interrupted``, ``error``), ``deleted`` when
            rollback removed it, ``refused`` when it never ran.
        started: seconds after the first click when the server took (or refused) it.
        ended: seconds after the first click when it was over, None when it never ran.
    """

    tab: str
    run_id: str | None
    answered: str
    status: str
    started: float
    ended: float | None


@dataclass(frozen=True)
class TwoTabs:
    """One play of the lesson: the strategy, the thread it left and both tabs' runs."""

    strategy: str
    thread_id: str
    runs: tuple[TabRun, ...]
    events: tuple[tuple[float, str], ...] = field(default=())

    @property
    def line(self) -> str:
        """What happened, in one line."""
        first, second = self.runs
        return (f"{self.strategy}: second tab {second.answered}; first run {first.status}, "
                f"second run {second.status}")


def play_two_tabs(client: ServerClient, assistant_id: str, first_input: dict,
                  second_input: dict, strategy: str) -> TwoTabs:
    """Start a run on a new thread, then a second run on it at once with ``strategy``.

    Raises:
        ValueError: an unknown strategy.
        ServerError: the server is down or refused the first run; one line.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown multitask strategy {strategy!r}: one of "
                         f"{', '.join(STRATEGIES)}")
    sdk, call = client.sdk, client.call
    events: list[tuple[float, str]] = []
    thread_id = call(sdk.threads.create, metadata={LESSON_KEY: f"multitask {strategy}"})[
        "thread_id"]
    started = time.monotonic()

    def now() -> float:
        return round(time.monotonic() - started, 3)

    first = call(sdk.runs.create, thread_id, assistant_id, input=first_input,
                 stream_mode=_MODES)
    events.append((now(), "first tab: run A starts"))
    second_started = now()
    try:
        second = call(sdk.runs.create, thread_id, assistant_id, input=second_input,
                      stream_mode=_MODES, multitask_strategy=strategy)
        answered = "accepted"
        events.append((second_started, f"second tab: run B accepted ({strategy})"))
    except ServerError as exc:
        if exc.status != 409:
            raise
        second, answered = None, "409 Conflict"
        events.append((second_started, "second tab: run B refused, 409 Conflict"))
    runs = []
    for tab, run, at, said in (("first tab", first, 0.0, "accepted"),
                               ("second tab", second, second_started, answered)):
        if run is None:
            runs.append(TabRun(tab, None, said, "refused", at, None))
            continue
        call(sdk.runs.join, thread_id, run["run_id"])
        ended = now()
        try:
            status = call(sdk.runs.get, thread_id, run["run_id"]).get("status", "?")
        except ServerError as exc:
            if exc.status != 404:
                raise
            status = "deleted"
        letter = "A" if tab == "first tab" else "B"
        events.append((ended, f"{tab}: run {letter} {status}"))
        runs.append(TabRun(tab, run["run_id"], said, str(status), at, ended))
    return TwoTabs(strategy, thread_id, tuple(runs), tuple(sorted(events)))
