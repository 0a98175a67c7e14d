"""A room of N browser tabs on one ``playground run``, measured in Streamlit's own protocol.

Each tab is a websocket to ``/_stcore/stream`` that speaks what the browser speaks: a page open
or a click is a ``BackMsg.rerun_script`` whose widget states carry the button's trigger (the
button found by its label among the elements of the tab's last run), and the action is over
when the server says ``script_finished`` FINISHED_SUCCESSFULLY (a run cut short for an
``st.rerun()`` is followed by the run that counts). A button drawn inside an ``st.fragment``
is clicked as the browser clicks it: the rerun names the fragment, only the fragment runs,
and the rest of the page stays as the last full run drew it. Every click carries the text of
each text input on the page, as a browser's does. Streamlit's own protobuf classes encode and
decode every message, so the server cannot tell these tabs from Chromium's.

Every tab walks the workshop path, the tabs starting each action together (a barrier before
each action, as when a facilitator says "now press Run turn"). With ``spread=0`` every tab sends
its click at that same instant, the worst case one interpreter lock can meet; with a spread of S
seconds each tab first waits a moment drawn evenly from [0, S) (seeded, so two runs draw the
same moments), as people do who hear the cue, find the button and press it. A tab's time runs
from its own click, not from the cue:

open Agent, Run turn, Resume, open Conflicts, Run turn, Simulate concurrent edit, Resume (the
412), open History, Previous twice, Replay from here (a new branch), Fork with edit (priority
typed as "low", as the browser test types it).

Reported per action: p50 and p95 of the time from sending the message to the run's end, the
errors (a run that raised, a page without the button to click, an outcome that is not the
expected one), and the server's CPU seconds per action (the server process and its children,
from /proc). ``python -m bench.room --sessions 1,10,30 [--spread 10] [--board] [--url
http://...]`` starts its own ``playground run`` unless given a URL.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import secrets
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from playground.server_process import start_playground, stop_process

DONE = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
CUT_SHORT = ForwardMsg.FINISHED_EARLY_FOR_RERUN
TIMEOUT_S = 120

# (action name, page to open or None, button label to click or None, text a finished run shows,
# text typed into inputs with the click, by the start of their label)
PATH: tuple[tuple[str, str | None, str | None, str | None, dict | None], ...] = (
    ("open Agent", "agent", None, "Run turn", None),
    ("Run turn", None, "Run turn", "proposed", None),
    ("Resume", None, "Resume", "resumed with ticket t7", None),
    ("open Conflicts", "conflicts", None, "Simulate concurrent edit", None),
    ("Run turn (conflict)", None, "Run turn", None, None),
    ("Simulate concurrent edit", None, "Simulate concurrent edit", None, None),
    ("Resume (412)", None, "Resume", "412", None),
    ("open History", "history", None, "Replay from here", None),
    ("Previous", None, "Previous", None, None),
    ("Previous (again)", None, "Previous", None, None),
    ("Replay from here", None, "Replay from here", "new branch", None),
    ("Fork with edit", None, "Fork with edit", "Forked #",
     {"changes": '{"priority": "low"}'}),
)


class ActionFailed(Exception):
    """An action that did not do what a user would see it do."""


@dataclass
class Run:
    """What one script run sent: its elements' texts and its buttons by label."""

    buttons: dict[str, WidgetState] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)  # text input label -> widget id
    texts: list[str] = field(default_factory=list)
    exception: str | None = None
    fragments: dict[str, str] = field(default_factory=dict)  # widget id -> its fragment's id
    shown: dict[str, str] = field(default_factory=dict)  # text input id -> the text it shows

    def after_fragment(self, fragment_id: str) -> Run:
        """What the page still shows when one fragment reruns: everything drawn outside it."""
        kept = Run()
        for label, button in self.buttons.items():
            if self.fragments.get(button.id) != fragment_id:
                kept.buttons[label] = button
                kept.fragments[button.id] = self.fragments.get(button.id, "")
        for label, widget_id in self.inputs.items():
            if self.fragments.get(widget_id) != fragment_id:
                kept.inputs[label] = widget_id
                kept.fragments[widget_id] = self.fragments.get(widget_id, "")
                if widget_id in self.shown:
                    kept.shown[widget_id] = self.shown[widget_id]
        return kept


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def _text_of(element) -> str | None:
    """What a person reads of an element: markdown with its backslash escapes resolved."""
    kind = element.WhichOneof("type")
    if kind == "markdown":
        return _ESCAPED.sub(r"\1", element.markdown.body).replace("\u2060", "")
    if kind == "alert":
        return _ESCAPED.sub(r"\1", element.alert.body).replace("\u2060", "")
    if kind == "exception":
        return element.exception.message
    if kind == "code":
        return element.code.code_text
    return None


class StreamlitTab:
    """One browser tab: a websocket session on the server, in its own room."""

    def __init__(self, url: str, room: str) -> None:
        self.url = url.rstrip("/")
        self.ws_url = self.url.replace("http://", "ws://") + "/_stcore/stream"
        self.room = room
        self.page = ""
        self.last = Run()
        self.cookies: dict[str, str] = {}
        self.replica: str | None = None
        self._socket = None
        self._cache: dict[str, ForwardMsg] = {}
        self.auto_rerun: tuple[float, str] | None = None  # a fragment's run_every, as asked

    def load(self) -> str | None:
        """GET the page as a browser does before its script connects: keeps the cookies a load
        balancer sets (the sticky one) and returns the replica it names, if any."""
        request = urllib.request.Request(f"{self.url}/?room={self.room}")
        if self.cookies:
            request.add_header("Cookie", self._cookie_header())
        with urllib.request.urlopen(request, timeout=30) as answer:
            for header in answer.headers.get_all("Set-Cookie") or ():
                name, _, value = header.split(";", 1)[0].partition("=")
                self.cookies[name.strip()] = value.strip()
            self.replica = answer.headers.get("X-Playground-Replica")
        return self.replica

    def _cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    async def connect(self) -> None:
        """Open the websocket, as the page's script does on load (sending the page's cookies)."""
        headers = {"Cookie": self._cookie_header()} if self.cookies else None
        self._socket = await websockets.connect(self.ws_url, subprotocols=["streamlit"],
                                                max_size=None, open_timeout=TIMEOUT_S,
                                                additional_headers=headers)

    async def close(self) -> None:
        """Close the websocket (the tab is closed)."""
        if self._socket is not None:
            await self._socket.close()

    def _back(self, widgets: list[WidgetState], fragment_id: str = "") -> bytes:
        message = BackMsg()
        state = message.rerun_script
        state.query_string = f"room={self.room}"
        state.page_name = self.page
        state.fragment_id = fragment_id
        state.widget_states.widgets.extend(widgets)
        return message.SerializeToString()

    async def _run(self, widgets: list[WidgetState], fragment_id: str = "") -> float:
        """Send one rerun (of the page, or of one fragment) and read until the run that counts
        has finished; its duration."""
        started = time.perf_counter()
        await self._socket.send(self._back(widgets, fragment_id))
        run = self.last.after_fragment(fragment_id) if fragment_id else Run()
        deadline = started + TIMEOUT_S
        while True:
            raw = await asyncio.wait_for(self._socket.recv(), max(deadline - time.perf_counter(),
                                                                   0.001))
            message = ForwardMsg.FromString(raw)
            if message.WhichOneof("type") == "ref_hash":
                message = self._cache.get(message.ref_hash, message)
            elif message.metadata.cacheable and message.hash:
                self._cache[message.hash] = message
            kind = message.WhichOneof("type")
            if kind == "auto_rerun":  # the browser reruns that fragment on its own timer
                self.auto_rerun = (message.auto_rerun.interval, message.auto_rerun.fragment_id)
            if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = message.delta.new_element
                if element.WhichOneof("type") == "button":
                    button = element.button
                    run.buttons.setdefault(button.label, button)
                    run.fragments[button.id] = message.delta.fragment_id
                elif element.WhichOneof("type") == "text_input":
                    field_ = element.text_input
                    run.inputs.setdefault(field_.label, field_.id)
                    run.fragments[field_.id] = message.delta.fragment_id
                    run.shown[field_.id] = field_.value if field_.set_value else field_.default
                text = _text_of(element)
                if text:
                    run.texts.append(text)
                if element.WhichOneof("type") == "exception":
                    run.exception = element.exception.message
            elif kind == "script_finished":
                if message.script_finished in DONE:
                    self.last = run
                    return time.perf_counter() - started
                if message.script_finished == CUT_SHORT:
                    run = Run()  # the run st.rerun() asked for follows
                    continue
                raise ActionFailed(f"the run ended with status {message.script_finished}")

    async def open(self, page: str) -> float:
        """Open a page of the room (a navigation: no widget states carried over)."""
        self.page = page
        return await self._run([])

    async def click(self, label: str, typed: dict[str, str] | None = None) -> float:
        """Click the button with exactly this label in the last run's elements.

        Args:
            label: the button's label.
            typed: text to send in text inputs with it, by the start of their label (a form
                submits its inputs' values with its button, as a browser does).
        """
        # A browser sends the value of every text input on the page with a click, typed or not.
        texts = dict(self.last.shown)
        if typed:
            # What is typed commits in a run of its own before the click, as a person's typing
            # does: a button that waits for a changed value (Fork with edit) is enabled by it.
            fields = []
            for prefix, text in typed.items():
                found = [wid for name, wid in self.last.inputs.items() if name.startswith(prefix)]
                if not found:
                    raise ActionFailed(f"no text input {prefix!r}... on {self.page}")
                texts[found[0]] = text
                fields.append(found[0])
            await self._run([WidgetState(id=wid, string_value=text)
                             for wid, text in texts.items()],
                            self.last.fragments.get(fields[0], ""))
        button = self.last.buttons.get(label)
        if button is None:
            raise ActionFailed(f"no button {label!r} on {self.page}: "
                               f"{sorted(self.last.buttons)}; the page said {self.last.texts}")
        widgets = [WidgetState(id=button.id, trigger_value=True)]
        widgets += [WidgetState(id=wid, string_value=text) for wid, text in texts.items()]
        return await self._run(widgets, self.last.fragments.get(button.id, ""))


@dataclass
class Timings:
    """Seconds per action, errors per action, and the server's CPU seconds per action."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)

    def row(self, action: str) -> dict:
        """p50/p95 in ms, error count, server CPU ms per action."""
        times = sorted(self.seconds.get(action, []))
        if not times:
            return {"p50": None, "p95": None, "n": 0, "errors": len(self.errors.get(action, [])),
                    "cpu_ms": None}
        p95 = times[min(len(times) - 1, max(0, round(0.95 * len(times)) - 1))]
        return {"p50": statistics.median(times) * 1000, "p95": p95 * 1000, "n": len(times),
                "errors": len(self.errors.get(action, [])),
                "cpu_ms": self.cpu.get(action, 0) * 1000 / max(len(times), 1)}


def _tree(pid: int) -> list[int]:
    """A process and all its descendants (``playground run`` starts Streamlit as a child)."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except FileNotFoundError:  # exited in between
            continue
        for task in tasks:
            try:
                children = (task / "children").read_text().split()
            except FileNotFoundError:  # a thread that ended in between
                continue
            pending.extend(int(child) for child in children)
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process tree, from /proc."""
    ticks = 0
    for member in _tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # exited in between
            continue
        ticks += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


async def _act(tab: StreamlitTab, page: str | None, label: str | None,
               expect: str | None, typed: dict | None, after: float = 0.0) -> float:
    if after:
        await asyncio.sleep(after)  # this person presses the button a moment after the cue
    took = await (tab.open(page) if page else tab.click(label, typed))
    if tab.last.exception:
        raise ActionFailed(f"the page raised: {tab.last.exception[:200]}")
    if expect and not any(expect in text for text in (*tab.last.texts, *tab.last.buttons)):
        raise ActionFailed(f"expected {expect!r} on the page after the action")
    return took


async def _keep_board_open(tab: StreamlitTab, refreshes: list[float],
                           stop: asyncio.Event) -> None:
    """The facilitator's tab: /board open, its fragment rerun on the timer it asked for, as a
    browser reruns it; each refresh's time kept."""
    await tab.open("board")
    if tab.auto_rerun is None:
        raise ActionFailed(f"the board asked for no refresh; it said {tab.last.texts}")
    interval, fragment = tab.auto_rerun
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), interval)
        except TimeoutError:
            refreshes.append(await tab._run([], fragment))


def click_moments(sessions: int, spread: float) -> random.Random:
    """The seeded draw of each tab's moment after the cue (two runs of the same room draw the
    same moments): ``walk_room`` takes one ``uniform(0, spread)`` per tab per action."""
    return random.Random(f"room-{sessions}-{spread}")


async def walk_room(url: str, sessions: int, server_pids: tuple[int, ...] = (),
                    progress=None, board: bool = False, spread: float = 0.0) -> Timings:
    """``sessions`` tabs, each in a new room, walk the path together; their timings.

    Args:
        url: the playground (or the nginx in front of its replicas).
        sessions: how many tabs.
        server_pids: processes whose CPU (with their children's) counts as the server's.
        progress: called with (done, total, action) after each action.
        board: a facilitator's tab keeps /board open all along, refreshing (its refresh
            times are the timings' "board refresh").
        spread: seconds over which the tabs' clicks of one action fall after its cue (0: all
            at once).
    """
    draw = click_moments(sessions, spread)
    tabs = [StreamlitTab(url, f"load-{secrets.token_hex(4)}") for _ in range(sessions)]
    # As a browser: load the page (a load balancer's sticky cookie), then open the websocket.
    await asyncio.gather(*(asyncio.to_thread(tab.load) for tab in tabs))
    await asyncio.gather(*(tab.connect() for tab in tabs))
    timings = Timings()
    alive = list(tabs)
    stop, facilitator, watching = asyncio.Event(), None, None
    if board:
        facilitator = StreamlitTab(url, f"facilitator-{secrets.token_hex(3)}")
        await asyncio.to_thread(facilitator.load)
        await facilitator.connect()
        watching = asyncio.create_task(_keep_board_open(
            facilitator, timings.seconds.setdefault("board refresh", []), stop))
    try:
        for index, (action, page, label, expect, typed) in enumerate(PATH, 1):
            before = sum(map(cpu_seconds, server_pids))
            results = await asyncio.gather(
                *(_act(tab, page, label, expect, typed, draw.uniform(0, spread))
                  for tab in alive), return_exceptions=True)
            timings.cpu[action] = sum(map(cpu_seconds, server_pids)) - before
            for tab, result in zip(list(alive), results, strict=True):
                if isinstance(result, BaseException):
                    timings.errors.setdefault(action, []).append(f"{type(result).__name__}: "
                                                                 f"{result}")
                    alive.remove(tab)  # a tab that lost its way stops walking
                else:
                    timings.seconds.setdefault(action, []).append(result)
            if progress:
                progress(index, len(PATH), action)
    finally:
        stop.set()
        if watching is not None:
            try:
                await watching
            except Exception as exc:
                timings.errors.setdefault("board refresh", []).append(
                    f"{type(exc).__name__}: {exc}")
            await facilitator.close()
        await asyncio.gather(*(tab.close() for tab in tabs), return_exceptions=True)
    return timings


def measure(counts: list[int], url: str | None = None, *server_args: str, board: bool = False,
            spread: float = 0.0) -> dict[int, Timings]:
    """Walk rooms of each size in ``counts`` on one server (a fresh one, unless ``url``), with
    the facilitator's board open or not, the clicks of an action spread over ``spread`` s."""
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        process = None
        if url is None:
            url, process = start_playground(Path(tmp), *server_args)
        try:
            asyncio.run(walk_room(url, 1))  # a warm server: the first run imports everything
            for count in counts:
                def progress(done: int, total: int, action: str, count: int = count) -> None:
                    print(f"\r  {count} sessions: {done}/{total} {action:<28}", end="",
                          file=sys.stderr, flush=True)

                results[count] = asyncio.run(walk_room(
                    url, count, (process.pid,) if process else (), progress, board, spread))
                print(file=sys.stderr)
        finally:
            if process is not None:
                stop_process(process)
    return results


def chromium_click_ms(url: str, clicks: int = 5) -> float:
    """Median time of a real Chromium click on Run turn, from the click to the run's end as
    the page's websocket receives it (not to the page's repaint)."""
    from playwright.sync_api import sync_playwright

    from playground.testing.browser import ARGS, CHROMIUM, Tab

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            tab = Tab(browser.new_page(), url, f"chromium-{secrets.token_hex(3)}").open("agent")
            finished: list[float] = []
            tab.page.on("websocket", lambda socket: socket.on(
                "framereceived", lambda payload: finished.append(time.perf_counter())
                if isinstance(payload, bytes) and _is_done(payload) else None))
            tab.open("agent")
            times = []
            for _ in range(clicks):
                seen = len(finished)
                button = tab.page.locator('[data-testid^="stBaseButton"]').filter(
                    has_text="Run turn").first
                started = time.perf_counter()
                button.click()
                while len(finished) <= seen:
                    if time.perf_counter() - started > TIMEOUT_S:
                        raise ActionFailed("Chromium's click on Run turn never finished a run")
                    tab.page.wait_for_timeout(5)
                times.append(finished[seen] - started)
                tab.page.wait_for_selector('[data-test-script-state="notRunning"]')
            return statistics.median(times) * 1000
        finally:
            browser.close()


def _is_done(payload: bytes) -> bool:
    message = ForwardMsg.FromString(payload)
    return message.WhichOneof("type") == "script_finished" and message.script_finished in DONE


def _rows(count: int, timings: Timings, alone: Timings | None, where: str) -> list[dict]:
    rows = []
    for action, page, _label, _expect, _typed in PATH:
        row = timings.row(action)
        base = alone.row(action) if alone else None
        goal = ("<= 2000 ms p95" if page else "<= 1000 ms p95") if count >= 30 else "report"
        rows.append({
            "name": f"room, {count} sessions{where}: {action}",
            "ours": f"p95 {row['p95']:.0f} ms (p50 {row['p50']:.0f}, n={row['n']}, "
                    f"errors {row['errors']}, server CPU {row['cpu_ms']:.0f} ms/action)"
                    if row["p95"] is not None else f"errors {row['errors']}",
            "baseline_value": f"p95 {base['p95']:.0f} ms" if base and base["p95"] else "-",
            "baseline": "1 session alone, same server",
            "ratio": round(row["p95"] / base["p95"], 2) if base and base["p95"] and row["p95"]
            else "n/a",
            "goal": goal,
        })
    refreshes = timings.row("board refresh")
    if refreshes["n"] or refreshes["errors"]:
        rows.append({
            "name": f"room, {count} sessions{where}: the board's refresh, as its tab saw it",
            "ours": f"p95 {refreshes['p95']:.0f} ms (p50 {refreshes['p50']:.0f}, "
                    f"n={refreshes['n']}, errors {refreshes['errors']})"
                    if refreshes["p95"] is not None else f"errors {refreshes['errors']}",
            "baseline_value": "-", "baseline": "bench/board_refresh.py has the server-side "
            "read alone", "ratio": "n/a", "goal": "report"})
    return rows


def run(counts: tuple[int, ...] = (1, 10, 30), replicas: int = 3, room_of: int = 100,
        with_board: int = 60, spread: float = 10.0) -> dict:
    """``make bench``: rooms of each size on one server, a Chromium click beside one
    session's, ``with_board`` sessions with the facilitator's board open and refreshing (all
    clicking at once, then their clicks spread over ``spread`` s as a room's are), and
    ``room_of`` sessions across ``replicas`` behind nginx (when there is PostgreSQL and
    nginx)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        url, process = start_playground(Path(tmp))
        try:
            asyncio.run(walk_room(url, 1))  # warm: the first run imports everything
            results = {}
            for count in counts:
                results[count] = asyncio.run(walk_room(url, count, (process.pid,)))
                rows += _rows(count, results[count], results.get(1), "")
            watched = asyncio.run(walk_room(url, with_board, (process.pid,), board=True))
            rows += _rows(with_board, watched, results.get(1), " with the board open")
            paced = asyncio.run(walk_room(url, with_board, (process.pid,), board=True,
                                          spread=spread))
            rows += _rows(with_board, paced, results.get(1),
                          f" with the board open, clicks over {spread:.0f} s")
            browser = chromium_click_ms(url)
            alone = results[counts[0]].row("Run turn")["p50"]
            rows.append({
                "name": "Run turn, 1 session: a real Chromium click",
                "ours": f"{browser:.0f} ms (median)",
                "baseline_value": f"{alone:.0f} ms (p50)",
                "baseline": "the protocol-level tab, same server",
                "ratio": round(browser / alone, 2), "goal": "report"})
        finally:
            stop_process(process)
    rows += _replica_rows(replicas, room_of)
    return {"rows": rows}


def _replica_rows(replicas: int, count: int) -> list[dict]:
    from deploy.workshop import WorkshopError, start_room, workshop_database
    from playground.server_process import free_port

    try:
        database = workshop_database()
        with tempfile.TemporaryDirectory() as tmp, start_room(
                replicas, free_port(), database=database, home=Path(tmp)) as room:
            pids = (room.api_pid, *(r.process.pid for r in room.replicas))
            asyncio.run(walk_room(room.url, 1))
            alone = asyncio.run(walk_room(room.url, 1, pids))
            crowd = asyncio.run(walk_room(room.url, count, pids))
            return _rows(count, crowd, alone, f" across {replicas} replicas (nginx, Postgres)")
    except WorkshopError as exc:
        return [{"name": f"room, {count} sessions across {replicas} replicas", "ours": "not run",
                 "baseline_value": "-", "baseline": str(exc), "ratio": "n/a",
                 "goal": "report"}]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="1,10,30", help="room sizes, comma-separated")
    parser.add_argument("--url", help="a running playground (default: start one)")
    parser.add_argument("--board", action="store_true",
                        help="keep the facilitator's board open and refreshing all along")
    parser.add_argument("--spread", type=float, default=0.0,
                        help="seconds over which an action's clicks fall after its cue "
                             "(default 0: all at once)")
    args = parser.parse_args()
    counts = [int(n) for n in args.sessions.split(",")]
    for count, timings in measure(counts, args.url, board=args.board,
                                  spread=args.spread).items():
        print(f"{count} sessions")
        for action in (*(step[0] for step in PATH), "board refresh"):
            if action == "board refresh" and not timings.seconds.get(action):
                continue
            row = timings.row(action)
            p50 = f"{row['p50']:.0f}" if row["p50"] is not None else "-"
            p95 = f"{row['p95']:.0f}" if row["p95"] is not None else "-"
            cpu = f"{row['cpu_ms']:.0f}" if row["cpu_ms"] is not None else "-"
            print(f"  {action:<26} p50 {p50:>6} ms  p95 {p95:>6} ms  errors {row['errors']}"
                  f"  server CPU {cpu} ms/action")
        for action, errors in timings.errors.items():
            print(f"  ! {action}: {errors[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
