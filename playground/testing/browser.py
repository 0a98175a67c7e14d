"""Helpers that drive the playground in a real Chromium, for the tests and the benchmarks;
needs the test extras (Playwright) and Debian's chromium.

Launching: :data:`CHROMIUM` with :data:`ARGS` (``playwright.chromium.launch(executable_path=
CHROMIUM, args=ARGS)``). Serving: :func:`playground_server` starts ``playground run`` as a user
does, in a process of its own. Driving: :class:`Tab` clicks Streamlit widgets by their exact
label and waits until the run each click starts has finished.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from google.protobuf.message import DecodeError
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from playground.server_process import start_playground, stop_process

CHROMIUM = "/usr/bin/chromium"
# Never `playwright install`: Debian's chromium, with the flags this sandbox needs
# (docs/architecture.md).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# How a script run ends, as Streamlit's server reports it. A run cut short by st.rerun() is
# followed by another run, so only these mean the page is done (a fragment's run included).
FINAL = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
         ForwardMsg.FINISHED_WITH_COMPILE_ERROR}
RUN_TIMEOUT_S = 60
STARTUP_S = 60


def chromium_missing() -> bool:
    """True when Debian's chromium is not installed here."""
    return not Path(CHROMIUM).exists()


@contextmanager
def playground_server(home: Path, *args: str, env: dict[str, str] | None = None,
                      cwd: Path | None = None, port: int | None = None) -> Iterator[str]:
    """``playground run ARGS`` on a free port (or ``port``), in its own process as a user starts
    it, with its own checkpoint and ticket files (and its log, ``playground.log``) under
    ``home``, ``env`` set on top of this process's environment, run in ``cwd``; yields its
    loopback URL and stops it, with its children, afterwards.

    Raises:
        ServerDidNotStart: it exited or did not answer in time (its log says why).
    """
    url, process = start_playground(home, *args, env=env, cwd=cwd, port=port)
    try:
        yield url
    finally:
        stop_process(process)


class Tab:
    """One browser tab on one playground server, kept in one room.

    It knows a run is over from Streamlit's own messages: it reads every websocket frame the
    server sends and counts the runs that finished for good. The DOM alone cannot tell: after
    a click the page still shows the previous run as finished for a moment, and st.rerun()
    leaves it idle between two runs.

    Args:
        page: a Playwright page.
        base: the server's URL.
        room: the room to stay in; None takes the one the server gives the first visit.
    """

    def __init__(self, page, base: str, room: str | None = None) -> None:
        self.page, self.base, self.room = page, base, room
        self.runs = 0
        # Fragments that rerun on a timer (st.fragment(run_every=...): the board, the Start
        # page's tour): their runs come whether or not anyone clicked, so they are not the run
        # a click started. (A click inside such a fragment would never be counted: none has a
        # button.)
        self._timed: set[str] = set()
        page.on("websocket", lambda socket: socket.on("framereceived", self._count_run))

    def _count_run(self, payload: str | bytes) -> None:
        if isinstance(payload, str):
            return
        try:
            message = ForwardMsg.FromString(payload)
        except DecodeError:
            return
        kind = message.WhichOneof("type")
        if kind == "auto_rerun":
            self._timed.add(message.auto_rerun.fragment_id)
        elif kind == "script_finished" and message.script_finished in FINAL:
            fragments = set(message.metadata.run.fragment_ids)
            if not fragments or not fragments <= self._timed:
                self.runs += 1

    def _wait_for_run_after(self, runs_before: int, what: str) -> None:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while self.runs <= runs_before:
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: no run finished within {RUN_TIMEOUT_S} s; the "
                                     f"page shows:\n{self.text()[:3000]}")
            self.page.wait_for_timeout(50)  # lets Playwright deliver the websocket events
        # The server has sent everything; wait until the page has drawn it. The frame reached
        # the network before the page's script handled it, so look twice, a moment apart: a
        # starved renderer may still be showing the idle gap before an st.rerun() run.
        for _ in range(2):
            self.page.wait_for_selector(IDLE, timeout=RUN_TIMEOUT_S * 1000)
            self.page.wait_for_timeout(200)

    def open(self, path: str = "") -> Tab:
        """Go to a page in this tab's room (a first visit gets a room from the server)."""
        query = f"{'&' if '?' in path else '?'}room={self.room}" if self.room else ""
        before = self.runs
        self.page.goto(f"{self.base}/{path}{query}")
        self._wait_for_run_after(before, f"opening /{path}")
        found = re.search(r"room=([a-z0-9-]+)", self.page.url)
        if self.room is None and found:  # the board keeps no room
            self.room = found.group(1)
        return self

    def visit(self, url: str) -> Tab:
        """Go to ``url`` as typed into the address bar (a room URL, a bookmark, a link some
        page holds) and wait for the run it starts; the tab's room is whatever that gives."""
        before = self.runs
        self.page.goto(url)
        self._wait_for_run_after(before, f"opening {url}")
        return self

    def follow_sidebar_link(self, label: str) -> Tab:
        """Click the sidebar's link to the page named ``label`` and wait for the run it
        starts (the address changes to that page's)."""
        before = self.runs
        self.page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=label).click()
        self.page.wait_for_url(re.compile(rf"/{re.escape(label.lower())}"))
        self._wait_for_run_after(before, f"the sidebar's {label} link")
        return self

    def reload(self) -> Tab:
        """Reload the page, as the browser's reload button does, and wait for its run."""
        before = self.runs
        self.page.reload()
        self._wait_for_run_after(before, "a reload")
        return self

    def click(self, label: str) -> Tab:
        """Click the Streamlit button with exactly this label (not a selectbox's "Open") and
        wait until the run it starts, and any rerun that run asks for, has finished."""
        before = self.runs
        text = self.page.locator("p", has_text=re.compile(rf"^{re.escape(label)}$"))
        self.page.locator('[data-testid^="stBaseButton"]').filter(has=text).first.click()
        self._wait_for_run_after(before, f"clicking {label!r}")
        return self

    def segment(self, label: str) -> Tab:
        """Pick the option ``label`` of a segmented control (a radio button, not an
        stBaseButton) and wait for the run it starts."""
        before = self.runs
        self.page.get_by_role("radio", name=label, exact=True).first.click()
        self._wait_for_run_after(before, f"picking {label!r}")
        return self

    def tree_point(self, ordinal: int):
        """The history tree's row for checkpoint ``#ordinal`` (drawn while it is scrolled into
        view: a thread's newest 22 rows when the page opens on its head)."""
        return self.page.locator(f'.ht-row[aria-label^="#{ordinal} "]').first

    def click_tree(self, ordinal: int) -> Tab:
        """Click checkpoint ``#ordinal`` in the history tree where a person's pointer lands,
        on its point, and wait for the run the selection starts."""
        row = self.tree_point(ordinal)
        row.wait_for()
        point = self.page.locator(f'.ht-points circle[data-id="{row.get_attribute("data-id")}"]')
        box = point.bounding_box()
        before = self.runs
        self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self._wait_for_run_after(before, f"clicking #{ordinal} in the tree")
        return self

    def text(self) -> str:
        """Everything the main area shows, as text (a page with a chat input has no stMain,
        only its block container)."""
        # The invisible word joiner md_escape puts in a bare URL is no text a person reads.
        return self.page.inner_text("[data-testid='stMainBlockContainer']").replace("\u2060", "")

    def choose(self, label: str, option: str) -> Tab:
        """Pick ``option`` in the multiselect labelled ``label`` and wait for the run.

        A click that lands while its expander is still opening (or while a busy page is still
        drawing it) does not open the list, and a click on an option the list is redrawing is
        lost: each is repeated until the option shows as picked (or its run has started), for
        as long as a run may take.
        """
        picker = self.page.locator('[data-testid="stMultiSelect"]').filter(has_text=label)
        listed = self.page.locator('[role="option"]', has_text=option).first
        chosen = picker.get_by_text(option, exact=True)  # the pick's tag in the box itself
        before = self.runs
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while self.runs <= before and not chosen.is_visible():
            if time.monotonic() > deadline:
                raise AssertionError(f"{option!r} could not be chosen in {label!r} within "
                                     f"{RUN_TIMEOUT_S} s")
            if not listed.is_visible():
                picker.get_by_role("button", name="Open").click()
                try:
                    listed.wait_for(state="visible", timeout=2000)
                except Exception:  # Playwright's TimeoutError: the list did not open, again
                    continue
            # A click on an option the list is redrawing is lost (no tag, no run), and one on a
            # list that closed meanwhile finds no option: the tag, or the run it starts, says
            # whether it landed; else open the list and click again.
            try:
                listed.click(timeout=2000)
                chosen.wait_for(state="visible", timeout=2000)
            except Exception:  # Playwright's TimeoutError: not picked; open and click again
                continue
        self._wait_for_run_after(before, f"choosing {option!r} in {label!r}")
        self.page.keyboard.press("Escape")  # close the list
        return self

    def select(self, label: str, option: str) -> Tab:
        """Pick ``option`` in the selectbox labelled ``label`` and wait for the run."""
        box = self.page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
        listed = self.page.locator('[role="option"]', has_text=option).first
        for _ in range(10):  # as in choose(): a click during a redraw may not open the list
            box.click()
            try:
                listed.wait_for(state="visible", timeout=1000)
                break
            except Exception:  # Playwright's TimeoutError: click again
                continue
        before = self.runs
        listed.click()
        self._wait_for_run_after(before, f"selecting {option!r} in {label!r}")
        return self

    def type_into(self, label: str, text: str) -> Tab:
        """Type into the text input labelled ``label``, press Enter, and wait for the run."""
        before = self.runs
        box = self.page.get_by_label(label, exact=True)
        box.fill(text)
        box.press("Enter")
        self._wait_for_run_after(before, f"typing {text!r} into {label!r}")
        return self

    def say(self, text: str) -> Tab:
        """Type a message into the page's chat input, send it, and wait for the run."""
        before = self.runs
        box = self.page.get_by_placeholder("Message")
        box.fill(text)
        box.press("Enter")
        self._wait_for_run_after(before, f"sending {text!r}")
        return self
