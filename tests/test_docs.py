"""The README and every page of docs/ say only what is there: each relative link reaches a file
(and its #anchor a heading of it), each picture exists, each `make X` is a Makefile target, each
`playground ...` command line parses with the real command's parser, and each module path they
name is a module of the repository. Each check is shown catching what it is for."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_LINES = 200
FIRST_SCREEN = 25  # lines a newcomer sees before scrolling

_FENCE = re.compile(r"^(```+|~~~+)(.*)$")
_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_SHELLS = {"bash", "sh", "shell", "console", "zsh"}


# -- reading a page ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """A fenced code block: its info string (``bash``) and its lines."""

    info: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    """A markdown page split into its prose (code blocks left out) and its code blocks."""

    path: Path
    prose: str
    blocks: tuple[Block, ...]

    @property
    def spans(self) -> list[str]:
        """The inline code spans of the prose."""
        return [match[2] for match in _CODE_SPAN.finditer(self.prose)]


def read_page(path: Path, text: str | None = None) -> Page:
    text = path.read_text(encoding="utf-8") if text is None else text
    prose: list[str] = []
    blocks: list[Block] = []
    fence = None
    for line in text.splitlines():
        found = _FENCE.match(line.strip())
        if fence is None and found:
            fence, info, body = found[1], found[2].strip().lower(), []
        elif fence is not None and line.strip().startswith(fence) and not line.strip(fence[0]):
            blocks.append(Block(info, tuple(body)))
            fence = None
        elif fence is not None:
            body.append(line)
        else:
            prose.append(line)
    return Page(path, "\n".join(prose), tuple(blocks))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text (links and code marks taken off) in lower case,
    every character but letters, digits, spaces, hyphens and underscores dropped, spaces
    turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"[`*]", "", text).lower()
    return "-".join(re.sub(r"[^\w\- ]", "", text).split(" "))


def anchors(page: Page) -> set[str]:
    """Every heading's anchor, repeats numbered as GitHub numbers them (``x``, ``x-1``)."""
    found: set[str] = set()
    for line in page.prose.splitlines():
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = slug(heading[1])
            name, n = base, 0
            while name in found:
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


# -- the checks --------------------------------------------------------------------------------


def broken_links(page: Page) -> list[str]:
    """Every relative link or picture of ``page`` that reaches no file, or no heading."""
    broken = []
    prose = _CODE_SPAN.sub("", page.prose)
    for image, _, target in _LINK.findall(prose):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        file = (page.path.parent / path_part).resolve() if path_part else page.path
        if not file.exists():
            broken.append(f"{'image' if image else 'link'} {target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(read_page(file)):
            broken.append(f"link {target}: no heading #{anchor} in {file.name}")
    return broken


def makefile_targets(makefile: Path = ROOT / "Makefile") -> set[str]:
    targets = set()
    for line in makefile.read_text(encoding="utf-8").splitlines():
        rule = re.match(r"^([A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)*)\s*:(?![=:])", line)
        if rule:
            targets.update(rule[1].split())
    return targets


def make_targets_named(page: Page) -> list[str]:
    """The X of every ``make X`` in a code block or code span of ``page``."""
    code = [line for block in page.blocks for line in block.lines] + page.spans
    return [found for line in code
            for found in re.findall(r"(?:^|[\s;&|(`])make\s+([A-Za-z][\w-]*)(?![\w=])", line)]


def unknown_make_targets(page: Page, targets: set[str]) -> list[str]:
    return [f"make {name}" for name in make_targets_named(page) if name not in targets]


def command_lines(page: Page) -> list[str]:
    """The command lines of ``page``: every line of a shell block, every ``$ `` line of any
    block (``\\`` continuations joined), and every code span that starts with ``.venv/bin/``
    (a whole command in the prose; a bare ``playground run --server`` there names a flag)."""
    found = [span for span in page.spans if span.startswith(".venv/bin/")]
    for block in page.blocks:
        shell = block.info.split()[0] in _SHELLS if block.info else False
        joined: list[str] = []
        for line in block.lines:
            if joined and joined[-1].endswith("\\"):
                joined[-1] = joined[-1][:-1] + " " + line.strip()
            else:
                joined.append(line)
        for line in joined:
            stripped = line.strip()
            if stripped.startswith("$ "):
                found.append(stripped[2:])
            elif shell and stripped and not stripped.startswith("#"):
                found.append(stripped)
    return found


def _words(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars="[]()|&;<>")
    lexer.whitespace_split = True  # commenters stay "#": a trailing comment is left out
    words = []
    for word in lexer:
        if word and set(word) <= set("[]()"):
            words.extend(word)  # "])" is two marks
        else:
            words.append(word)
    return words


def _commands(words: list[str]) -> list[list[str]]:
    """The simple commands of a line: split at ``&&``, ``||``, ``;`` and a pipe outside
    brackets, redirections left out."""
    commands: list[list[str]] = [[]]
    depth = 0
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in "[(":
            depth += 1
        elif word in "])":
            depth -= 1
        if depth == 0 and word in ("&&", "||", ";", "|", "&"):
            commands.append([])
        elif word in (">", ">>", "<", "2>"):
            skip = True
        else:
            commands[-1].append(word)
    return [command for command in commands if command]


def _alternatives(words: list[str], at: int = 0, closer: str | None = None
                  ) -> tuple[list[list[str]], int]:
    """Every way to read a synopsis: ``[A]`` is A or nothing, ``(A | B)`` and ``[A | B]`` one
    of them. Returns the readings and where the group ended."""
    readings: list[list[str]] = [[]]
    choices: list[list[list[str]]] = []
    while at < len(words):
        word = words[at]
        if word in ("[", "("):
            inner, at = _alternatives(words, at + 1, "]" if word == "[" else ")")
            if word == "[":
                inner = [[], *inner]
            readings = [r + i for r in readings for i in inner][:1024]
        elif word == closer:
            return [reading for group in [*choices, readings] for reading in group], at
        elif word == "|" and closer:
            choices.append(readings)
            readings = [[]]
        else:
            readings = [[*r, word] for r in readings]
        at += 1
    return readings, at


def synopsis_readings(line: str) -> list[list[str]]:
    """Each command of a line under each reading of its brackets, as argv lists."""
    found = []
    for command in _commands(_words(line)):
        readings, _ = _alternatives(command)
        found.extend(readings)
    return found


def _playground_parser() -> argparse.ArgumentParser:
    from playground.cli import build_parser

    return build_parser()


def _ticket_api_parse(argv: list[str]) -> None:
    from ticket_api.server import _parse_args

    _parse_args(argv)


def refused_commands(page: Page) -> list[str]:
    """Every ``playground ...`` or ``ticket-api ...`` reading the real parser refuses, with its
    complaint."""
    parser = _playground_parser()
    refused = []
    for line in command_lines(page):
        for argv in synopsis_readings(line):
            program = argv[0].rsplit("/", 1)[-1]
            if program not in ("playground", "ticket-api"):
                continue  # make, langgraph, pip, pytest, export...: not ours to parse
            said = io.StringIO()
            try:
                with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
                    if program == "playground":
                        parser.parse_args(argv[1:])
                    else:
                        _ticket_api_parse(argv[1:])
            except SystemExit:
                complaint = said.getvalue().strip().splitlines()
                refused.append(f"{shlex.join(argv)}: {complaint[-1] if complaint else 'exit'}")
    return refused


# The playground's own folders, as the docs name paths inside the package (places/door.py).
_PACKAGE_FOLDERS = "timetravel|places|apps|runtime|lessons|cli|agent|ui|testing|samples"
_REPO_FOLDERS = "tests|bench|deploy|frontend|examples|docs|assets"
_FULL_PATH = re.compile(r"(?<![\w./-])((?:playground|ticket_api)/[\w/]*\w\.py)\b")
_PACKAGE_PATH = re.compile(rf"(?<![\w./-])((?:{_PACKAGE_FOLDERS})/[\w/]*\w\.py)\b")
_REPO_PATH = re.compile(rf"(?<![\w./-])((?:{_REPO_FOLDERS})/[\w./-]*\w)")
_DOTTED = re.compile(r"(?<![\w.])(playground\.[a-z_]\w*(?:\.[A-Za-z_]\w*)*)")
_BARE_MODULE = re.compile(r"(?<![\w./-])([a-z_]\w*\.py)\b")


def _module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _repo_files() -> set[str]:
    skip = {".venv", ".venv-server", ".venv-aegra", ".venv-peer", "node_modules", ".git",
            "__pycache__"}
    return {path.name for path in ROOT.rglob("*.py") if not skip & set(path.parts)}


def missing_modules(page: Page, repo_files: set[str] | None = None) -> list[str]:
    """Every module path ``page`` names that is not in the repository: ``playground/x/y.py``,
    ``places/sqlite/reads.py`` (inside the package), ``tests/...`` and the like, dotted
    ``playground.x.y`` names (and a name after the module must be in it), and, in the layout's
    file tree, every bare ``name.py``."""
    text = "\n".join([page.prose, *("\n".join(block.lines) for block in page.blocks)])
    missing = []
    for path in _FULL_PATH.findall(text):
        if not (ROOT / path).exists():
            missing.append(path)
    for path in _PACKAGE_PATH.findall(text):
        if not (ROOT / "playground" / path).exists():
            missing.append(path)
    for path in _REPO_PATH.findall(text):
        path = path.split(":", 1)[0].rstrip(".")
        if not (ROOT / path).exists():
            missing.append(path)
    for dotted in _DOTTED.findall(text):
        parts = dotted.split(".")
        for cut in range(len(parts), 1, -1):
            module = _module_file(".".join(parts[:cut]))
            if module is not None:
                rest = parts[cut:]
                if rest and not re.search(rf"\b{re.escape(rest[0])}\b",
                                          module.read_text(encoding="utf-8")):
                    missing.append(dotted)
                break
        else:
            missing.append(dotted)
    if page.path.name == "layout.md" and page.blocks:
        names = repo_files if repo_files is not None else _repo_files()
        tree = "\n".join(page.blocks[0].lines)
        missing += [name for name in _BARE_MODULE.findall(tree)
                    if name not in names and name != "file.py"]  # file.py:attr, a spec's form
    return sorted(set(missing))


# -- the docs as they are ------------------------------------------------------------------------


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_relative_link_and_picture_in_the_docs_resolves(doc):
    assert broken_links(read_page(doc)) == []


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_make_target_the_docs_name_is_in_the_makefile(doc):
    assert unknown_make_targets(read_page(doc), makefile_targets()) == []


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_playground_command_in_the_docs_parses(doc):
    assert refused_commands(read_page(doc)) == []


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_module_path_the_docs_name_exists(doc):
    assert missing_modules(read_page(doc)) == []


def test_the_readme_is_short_and_its_first_screen_starts_and_tests_the_playground():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first_screen = "\n".join(lines[:FIRST_SCREEN])
    assert len(lines) <= README_LINES
    assert "make run" in first_screen and "make test" in first_screen


def test_the_checks_read_commands_and_links_from_the_docs():
    # A check that finds nothing to check passes whatever the docs say.
    pages = [read_page(doc) for doc in DOCS]
    assert sum(len(command_lines(page)) for page in pages) >= 20
    assert sum(len(make_targets_named(page)) for page in pages) >= 5
    assert sum(len(_LINK.findall(page.prose)) for page in pages) >= 20


# -- each check catches what it is for -----------------------------------------------------------


def _page(text: str, name: str = "page.md") -> Page:
    return read_page(ROOT / "docs" / name, text)


def test_a_link_to_a_missing_file_or_heading_or_a_missing_picture_is_reported():
    page = _page("See [layout](layout.md), [the door](architecture.md#the-door),\n"
                 "[gone](no-such-page.md), [nowhere](architecture.md#no-such-heading),\n"
                 "[web](https://example.com/x.md) and "
                 "![lost](../assets/screenshots/no-such.png).\n"
                 "```\n[in code](not-checked.md)\n```\n")
    assert broken_links(page) == [
        "link no-such-page.md: no such file",
        "link architecture.md#no-such-heading: no heading #no-such-heading in architecture.md",
        "image ../assets/screenshots/no-such.png: no such file",
    ]


def test_anchors_are_github_slugs_numbered_when_repeated():
    assert slug("Security: opening a database never runs its code") == (
        "security-opening-a-database-never-runs-its-code")
    assert slug("An Agent Server's answers") == "an-agent-servers-answers"
    assert slug("`playground run`") == "playground-run"
    assert slug("A room of 30 to 300: one server, or replicas behind nginx") == (
        "a-room-of-30-to-300-one-server-or-replicas-behind-nginx")
    assert slug("DeltaChannel: values LangGraph rebuilds") == (
        "deltachannel-values-langgraph-rebuilds")
    assert anchors(_page("## Setup\n\n## Setup\n")) == {"setup", "setup-1"}


def test_an_unknown_make_target_is_reported():
    page = _page("Run `make check`, then `make no-such-target`.\n"
                 "```bash\nmake run PORT=8600   # or make test\nmake deploy-everything\n```\n")
    assert make_targets_named(page) == ["run", "test", "deploy-everything", "check",
                                        "no-such-target"]
    assert unknown_make_targets(page, makefile_targets()) == [
        "make deploy-everything", "make no-such-target"]


def test_a_command_with_an_unknown_flag_or_subcommand_is_reported():
    page = _page("Serve it with `.venv/bin/playground run --hots 0.0.0.0`; a bare\n"
                 "`playground run --server` names a flag, not a command.\n"
                 "```bash\n"
                 ".venv/bin/playground threads DB --status failed [--json]   # fine\n"
                 "playground history DB --thread a [--json | --dott]\n"
                 "playground threads DB --no-such-flag\n"
                 "playground teleport DB\n"
                 "playground run --port N\n"
                 "langgraph dev --whatever   # not ours\n"
                 "```\n"
                 "```\n$ playground diff DB --thread a '#3' '#5' \\\n    --colour\n```\n")
    refused = refused_commands(page)
    assert [line.split(":")[0] for line in refused] == [
        ".venv/bin/playground run --hots 0.0.0.0",
        "playground history DB --thread a --dott",
        "playground threads DB --no-such-flag",
        "playground teleport DB",
        "playground run --port N",
        "playground diff DB --thread a '#3' '#5' --colour",
    ]


def test_a_synopsis_is_read_every_way_its_brackets_allow():
    readings = synopsis_readings("playground prune DB (--keep 10 | --branch '#7') [--dry-run]")
    assert sorted(readings) == sorted([
        ["playground", "prune", "DB", "--keep", "10"],
        ["playground", "prune", "DB", "--branch", "#7"],
        ["playground", "prune", "DB", "--keep", "10", "--dry-run"],
        ["playground", "prune", "DB", "--branch", "#7", "--dry-run"],
    ])
    assert synopsis_readings("playground export DB --thread a > a.json && playground import "
                             "b.sqlite a.json | tee log") == [
        ["playground", "export", "DB", "--thread", "a"],
        ["playground", "import", "b.sqlite", "a.json"], ["tee", "log"]]


def test_a_module_path_that_no_longer_exists_is_reported():
    page = _page("The door is `playground/places/door.py` (`places/door.py`,\n"
                 "`playground.places.door.open_place`); gone are `playground/places/gone.py`,\n"
                 "`places/sqlite/gone.py`, `playground.places.gone`,\n"
                 "`playground.places.door.no_such_name` and `tests/no_such_test.py`.\n"
                 "```\n  door.py   the door\n  vanished.py  a module no more\n```\n",
                 name="layout.md")
    assert missing_modules(page) == sorted([
        "playground/places/gone.py", "places/sqlite/gone.py", "playground.places.gone",
        "playground.places.door.no_such_name", "tests/no_such_test.py", "vanished.py"])


def test_every_doc_page_is_checked():
    # A page added to docs/ is checked without being listed anywhere.
    assert {path.name for path in DOCS} >= {
        "README.md", "architecture.md", "cli.md", "debugging.md", "layout.md", "security.md",
        "servers.md", "workshop.md"}
