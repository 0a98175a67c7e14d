"""The Agent Server's own conflict lesson: two tabs start runs on one thread.

An Agent Server answers a second run on a thread that is still busy by the run's
``multitask_strategy`` (the same question as a stale PATCH and its 412, one level up). What
``langgraph dev`` does is the reference (:data:`WHAT_IT_DOES`, :data:`REFERENCE`):

- ``reject``: the second run is refused, 409 Conflict; the first runs on alone;
- ``enqueue``: the second waits, then runs after the first, on the state the first left;
- ``interrupt``: the first is stopped where it is (its finished steps kept), the second runs;
- ``rollback``: the first is stopped and deleted with everything it wrote, the second runs.

Not every server does that (Aegra 0.11 accepts every strategy and runs both runs at once), so
the lesson never says what the strategy does: it says what this server did.
:func:`play_two_tabs` plays it on a fresh thread of the server: the first tab's run starts, the
second tab's run follows at once with the strategy, both are waited for, and what each did is
returned as a timeline (seconds since the first click) with what the thread holds after
(:class:`ThreadAfter`); :func:`verdict` sets that beside the reference. Everything goes through
the server's documented API (``runs.create``, ``runs.join``, ``runs.get``, ``threads.get_state``,
``threads.get_history``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from playground.places.server_address import ServerError
from playground.places.server_client import ServerClient

STRATEGIES = ("reject", "enqueue", "interrupt", "rollback")
# What langgraph dev (langgraph-api 0.16) does with each strategy: the lesson's reference.
WHAT_IT_DOES = {
    "reject": "answers the second run 409 Conflict; the first runs on alone",
    "enqueue": "holds the second run until the first is over, then runs it on the state the "
               "first left",
    "interrupt": "stops the first run where it is, keeping the steps it finished (none, when "
                 "it had not finished one), and runs the second",
    "rollback": "stops the first run and deletes it with what it wrote, and runs the second",
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
class ThreadAfter:
    """What the thread holds once both runs are over.

    Attributes:
        held: for each tab, whether its message is in the thread's messages; None for an app
            whose input has no messages (then nothing is said of them).
        branches: the thread's branch tips: more than one when the two runs interleaved and
            each wrote on from the same checkpoint.
    """

    held: tuple[bool, bool] | None = None
    branches: int = 1


@dataclass(frozen=True)
class TwoTabs:
    """One play of the lesson: the strategy, the thread it left and both tabs' runs."""

    strategy: str
    thread_id: str
    runs: tuple[TabRun, ...]
    events: tuple[tuple[float, str], ...] = field(default=())
    after: ThreadAfter = field(default_factory=ThreadAfter)

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
    after = _thread_after(client, thread_id, (first_input, second_input))
    return TwoTabs(strategy, thread_id, tuple(runs), tuple(sorted(events)), after)


def _said_by_person(run_input: dict) -> str | None:
    """The text of a tab's message, when its input is a chat message."""
    messages = run_input.get("messages") if isinstance(run_input, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    text = last.get("content") if isinstance(last, dict) else None
    return text if isinstance(text, str) else None


def _thread_after(client: ServerClient, thread_id: str, inputs: tuple[dict, dict]
                  ) -> ThreadAfter:
    """Whose message the thread holds now, and how many branches it has."""
    sdk, call = client.sdk, client.call
    state = call(sdk.threads.get_state, thread_id)
    values = state.get("values") if isinstance(state, dict) else None
    messages = values.get("messages") if isinstance(values, dict) else None
    texts = [_said_by_person(tab_input) for tab_input in inputs]
    held = None
    if isinstance(messages, list) and all(texts):
        person = [m.get("content") for m in messages
                  if isinstance(m, dict) and m.get("type") == "human"]
        held = (texts[0] in person, texts[1] in person)
    history = call(sdk.threads.get_history, thread_id, limit=500)
    entries = [entry for entry in history if isinstance(entry, dict)] \
        if isinstance(history, list) else []
    ids = {entry.get("checkpoint_id") for entry in entries}
    parents = {(entry.get("parent_checkpoint") or {}).get("checkpoint_id") for entry in entries
               if isinstance(entry.get("parent_checkpoint"), dict)}
    return ThreadAfter(held, max(1, len(ids - parents)))


@dataclass(frozen=True)
class Expected:
    """What ``langgraph dev`` ends with for a strategy: the second tab's answer, each run's
    status, whose message the thread holds (None: it depends on how far the first run got)."""

    refused: bool
    first: str
    second: str
    first_held: bool | None
    second_held: bool


# Checked on a real langgraph dev (tests/playground/lessons/test_multitask_verdict.py).
REFERENCE = {
    "reject": Expected(True, "success", "refused", True, False),
    "enqueue": Expected(False, "success", "success", True, True),
    "interrupt": Expected(False, "interrupted", "success", None, True),
    "rollback": Expected(False, "deleted", "success", False, True),
}


@dataclass(frozen=True)
class Verdict:
    """What this server did, beside what ``langgraph dev`` does.

    Attributes:
        as_reference: the server did what ``langgraph dev`` does.
        observed: what it did, in words.
        differences: each way it differed, in words ("accepted the second run and ran both").
        reference: what ``langgraph dev`` does with the strategy.
    """

    as_reference: bool
    observed: str
    differences: tuple[str, ...]
    reference: str

    @property
    def line(self) -> str:
        """The verdict in one line."""
        if self.as_reference:
            return f"{self.observed}: as langgraph dev does."
        return (f"This server {'; '.join(self.differences)}; langgraph dev "
                f"{self.reference}.")


def _whose(held: tuple[bool, bool]) -> str:
    return {(True, True): "both tabs' messages", (True, False): "only the first tab's message",
            (False, True): "only the second tab's message",
            (False, False): "neither tab's message"}[held]


def verdict(play: TwoTabs) -> Verdict:
    """What the server did in ``play``, set beside what ``langgraph dev`` does."""
    first, second = play.runs
    expected = REFERENCE[play.strategy]
    refused = second.answered.startswith("409")
    observed = (f"the second run was {'refused, 409 Conflict' if refused else 'accepted'}; "
                f"the first run ended {first.status}"
                + ("" if refused else f", the second {second.status}"))
    if play.after.held is not None:
        observed += f"; the thread holds {_whose(play.after.held)}"
    if play.after.branches > 1:
        observed += f", on {play.after.branches} branches"
    differences = []
    if refused != expected.refused:
        differences.append("refused the second run with 409 Conflict" if refused else
                           "accepted the second run and ran both" if second.status == "success"
                           and first.status == "success" else "accepted the second run")
    ran_both = bool(differences) and differences[-1].endswith("ran both")
    if not refused and first.status != expected.first and not ran_both:
        differences.append(_first_ended.get(first.status, f"ended the first run {first.status}"))
    if play.after.branches > 1:
        differences.append(f"let the two runs interleave: the thread forked into "
                           f"{play.after.branches} branches")
    if play.after.held is not None:
        first_held, second_held = play.after.held
        if expected.first_held is not None and first_held != expected.first_held:
            differences.append("kept the first tab's message in the thread" if first_held
                               else "dropped the first tab's message")
        if second_held != expected.second_held and not ran_both:
            differences.append("kept the second tab's message in the thread" if second_held
                               else "dropped the second tab's message")
    return Verdict(not differences, observed[0].upper() + observed[1:], tuple(differences),
                   f"would have {_would(play.strategy)}")


_first_ended = {"success": "let the first run finish",
                "interrupted": "interrupted the first run",
                "deleted": "deleted the first run",
                "error": "ended the first run in an error"}


def _would(strategy: str) -> str:
    return {"reject": "answered 409 Conflict and run the first alone",
            "enqueue": "run the second after the first, on the state the first left",
            "interrupt": "stopped the first run where it was, then run the second",
            "rollback": "deleted the first run with what it wrote, then run the second"}[strategy]
