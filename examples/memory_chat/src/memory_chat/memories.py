"""Turn what a user says into facts to keep, and read them back: the memory's whole logic.

"remember that I like green tea" keeps the fact ``I like green tea``; "my name is Ana" keeps
``name: Ana``; "forget green tea" removes every fact that mentions it.
"""

from __future__ import annotations

import re

_REMEMBER = re.compile(r"\bremember(?: that)?\s+(.+)", re.I)
_NAME = re.compile(r"\bmy name is\s+(\w+)", re.I)
_FORGET = re.compile(r"\bforget(?: that)?(?: about)?\s+(.+)", re.I)


def key_of(fact: str) -> str:
    """A stable key for a fact: its words, lower case, joined."""
    return "-".join(re.findall(r"[a-z0-9]+", fact.lower()))[:60] or "fact"


def facts_to_keep(text: str) -> dict[str, str]:
    """The facts a message asks to keep, by key."""
    found = {}
    if name := _NAME.search(text):
        found["name"] = f"name: {name.group(1)}"
    if remember := _REMEMBER.search(text):
        fact = remember.group(1).strip(" .!")
        found[key_of(fact)] = fact
    return found


def words_to_forget(text: str) -> str | None:
    """What a message asks to forget, if it does."""
    found = _FORGET.search(text)
    return found.group(1).strip(" .!").lower() if found else None
