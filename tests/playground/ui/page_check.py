"""The page check: what every page must never show or ask, read off a real Chromium tab.

A :class:`PageCheck` watches one browser context (every request it makes, every answer) and
looks at each page it is asked to: text that reads as code, a traceback, a label or a tab a
person cannot read whole. It collects every problem instead of stopping at the first, so one run
of ``tests/playground/ui/test_page_check.py`` lists all a walk found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

DOCS = Path(__file__).parents[3] / "docs" / "security.md"
WEB = {"http", "https", "ws", "wss"}  # a data: or blob: URL is no request to a host

# Text that reads as code, outside the one place that shows JSON as JSON (the As JSON viewer).
# A quote escaped for JSON (\"v2\") or doubled by a formatter (""v1""): a person reads "v1".
ESCAPED_QUOTE = re.compile(r'\\"|""[A-Za-z0-9]')
CODE_WORDS = re.compile(r"_DeltaSnapshot|<class\b|Traceback \(most recent call last\)")
# In a heading, an identifier with an underscore (find_stranded) is a function's name, not words.
SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")

# Everything a person reads on the page, and every value typed into a field, with where it is.
_READ = """() => {
  // the main area (a page with a chat input has its block container, no stMain)
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const side = document.querySelector('[data-testid="stSidebar"]');
  const roots = [main, side].filter(Boolean);
  const outsideJson = el => !el.closest('[data-testid="stJson"]');
  // A Material icon is a word (smart_toy) the icon font draws as a picture: no text read.
  const isIcon = el => /Material Symbols/.test(getComputedStyle(el).fontFamily);
  const words = el => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const parts = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!isIcon(node.parentElement)) parts.push(node.textContent);
    }
    return parts.join('').trim();
  };
  const texts = [];
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || !outsideJson(el) || !el.getClientRects().length) continue;
      if (el.closest('style, script, [data-testid="stDataFrame"]') || isIcon(el)) continue;
      const text = node.textContent.trim();
      if (text) texts.push(text);
    }
    for (const box of root.querySelectorAll('input, textarea')) {
      if (box.type !== 'hidden' && box.value && outsideJson(box)) texts.push(box.value);
    }
    // a table's cells are drawn on a canvas; the grid keeps them as text for screen readers
    for (const cell of root.querySelectorAll('[data-testid="stDataFrame"] td')) {
      if (cell.textContent.trim()) texts.push(cell.textContent.trim());
    }
  }
  const headings = [...main.querySelectorAll('h1, h2, h3, h4, [data-testid="stExpander"] summary')]
    .filter(h => h.getClientRects().length).map(words);
  const errors = document.querySelectorAll('[data-testid="stException"]').length;
  // Streamlit's own modal for an address no page has ("Page not found")
  const dialogs = [...document.querySelectorAll('[role="dialog"]')]
    .filter(d => d.getClientRects().length).map(words);
  // A label, a caption, a metric or a button cut by "..." with nothing that shows it whole
  // (the history tree's rows are cut by design and show their whole text on hover).
  const cut = [...main.querySelectorAll('*')].filter(el => {
    if (el.closest('.ht, [data-testid="stDataFrame"]') || !el.textContent.trim()) return false;
    const style = getComputedStyle(el);
    return style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1
      && el.getClientRects().length > 0 && !el.closest('[title]');
  }).map(el => el.textContent.trim());
  // A tab a person cannot reach without a scroll arrow: beyond its row's visible edge.
  const hiddenTabs = [];
  for (const row of document.querySelectorAll('[data-testid="stTabs"] [role="tablist"]')) {
    const edge = row.getBoundingClientRect();
    for (const tab of row.querySelectorAll('[role="tab"]')) {
      const box = tab.getBoundingClientRect();
      if (box.right > edge.right + 1 || box.left < edge.left - 1) {
        hiddenTabs.push(tab.textContent.trim());
      }
    }
  }
  return {texts, headings, errors, dialogs, cut, hiddenTabs};
}"""


def documented_probes() -> list[re.Pattern]:
    """The requests docs/security.md says Streamlit makes and answers 404 (``/<page>/...``),
    as patterns over a request's path: the page check allows those and nothing else."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Nothing leaves the machine", 1)[1].split("\n## ", 1)[0]
    paths = re.findall(r"^- `(/[^`]+)`", section, flags=re.MULTILINE)
    assert paths, "docs/security.md lists no request Streamlit makes that answers 404"
    return [re.compile("^" + re.escape(p).replace(re.escape("<page>"), "[a-z_-]+") + "$")
            for p in paths]


@dataclass
class PageCheck:
    """Watches a browser context and collects what each looked-at page does wrong.

    Args:
        context: a Playwright browser context; every page opened in it is watched.
        server: the playground's URL (its host is the only one a page may ask).
    """

    context: object
    server: str
    problems: list[str] = field(default_factory=list)
    pages_seen: int = 0

    def __post_init__(self) -> None:
        self._own = urlsplit(self.server).netloc
        self._allowed = documented_probes()
        self.context.on("request", self._asked)
        self.context.on("response", self._answered)

    def _asked(self, request) -> None:
        url = urlsplit(request.url)
        if url.scheme in WEB and url.netloc != self._own:
            self.problems.append(f"a request to another host: {request.url}")

    def _answered(self, response) -> None:
        url = urlsplit(response.url)
        if response.status < 400 or url.netloc != self._own:
            return
        if not any(p.match(url.path) for p in self._allowed):
            self.problems.append(f"{response.status} from the app's server: {url.path}")

    def look(self, page, where: str) -> None:
        """Read the page as it is now and note each problem, named by ``where``."""
        self.pages_seen += 1
        seen = page.evaluate(_READ)
        if seen["errors"]:
            self.problems.append(f"{where}: {seen['errors']} exception box(es) on the page")
        for dialog in seen["dialogs"]:
            self.problems.append(f"{where}: a dialog over the page: {dialog[:120]!r}")
        for text in seen["texts"]:
            if ESCAPED_QUOTE.search(text):
                self.problems.append(f"{where}: an escaped or doubled quote: {text[:120]!r}")
            found = CODE_WORDS.search(text)
            if found:
                self.problems.append(f"{where}: code on the page ({found.group(0)}): "
                                     f"{text[:120]!r}")
        for heading in seen["headings"]:
            names = SNAKE.findall(heading)
            if names:
                self.problems.append(f"{where}: an identifier in a heading ({names[0]}): "
                                     f"{heading[:120]!r}")
        for text in seen["cut"]:
            self.problems.append(f"{where}: text cut with no way to read it whole: "
                                 f"{text[:120]!r}")
        for tab in seen["hiddenTabs"]:
            self.problems.append(f"{where}: a tab beyond the edge of its row: {tab!r}")
