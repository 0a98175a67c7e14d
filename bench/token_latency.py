"""From a chat model's first streamed token to that token on the page, in a real browser.

A one-node chat graph whose stand-in model notes the moment it starts answering, then streams
its reply with a fixed pause before each token. Debian's Chromium has the Run page open; a
MutationObserver notes the moment the first token's word shows on the page. The figure is the
page time minus the moment the model yielded that token (the note plus one pause), over a few
messages: the Run page's share of "time to first token" (the streamed event crossing from the
event loop to the page's script, the delta, the websocket and the browser's render).
Both clocks are this machine's.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

DELAY_S = 0.05
GRAPH = '''\
import time
from pathlib import Path

from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

from playground.standin import StandInChatModel

NOTES = Path(__file__).with_name("first-token.txt")


def rules(messages, tools):
    NOTES.write_text(repr(time.time()))  # the model starts answering now
    return AIMessage(content="Zebra" + " crossing" * 12)


model = StandInChatModel(rules=rules, token_delay={delay})


async def reply(state: MessagesState) -> dict:
    return {{"messages": [await model.ainvoke(state["messages"])]}}


builder = StateGraph(MessagesState)
builder.add_node(reply)
builder.add_edge(START, "reply")
graph = builder.compile()
'''
WATCH = """() => { window.__firstToken = null; new MutationObserver(() => {
  if (window.__firstToken === null && document.body.innerText.includes('Zebra'))
    window.__firstToken = performance.timeOrigin + performance.now();
}).observe(document.body, {subtree: true, childList: true, characterData: true}); }"""


def run(messages: int = 5) -> dict:
    """Median delay from the model's first token to the page showing it."""
    from playwright.sync_api import sync_playwright

    from playground.testing.browser import ARGS, CHROMIUM, Tab, playground_server

    delays = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "chat.py").write_text(GRAPH.format(delay=DELAY_S))
        with playground_server(home, "--graph", f"{home}/chat.py:graph") as url, \
                sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                tab = Tab(browser.new_page(viewport={"width": 1400, "height": 1600}), url)
                tab.open()
                for i in range(messages + 1):
                    tab.click("New thread")
                    tab.page.evaluate(WATCH)
                    tab.say(f"hello {i}")
                    shown_ms = tab.page.evaluate("window.__firstToken")
                    started = float((home / "first-token.txt").read_text())
                    if i:  # the first message warms the page up
                        delays.append(shown_ms - (started + DELAY_S) * 1000)
            finally:
                browser.close()
    median = statistics.median(delays)
    return {"rows": [{
        "name": "first streamed token: model -> Run page in Chromium, median of "
                f"{messages} messages",
        "ours": f"{median:.0f} ms",
        "baseline_value": f"{DELAY_S * 1000:.0f} ms",
        "baseline": "the pause between two of the model's tokens",
        "ratio": round(median / (DELAY_S * 1000), 2),
        "goal": "report",
    }]}


if __name__ == "__main__":
    print(run())
