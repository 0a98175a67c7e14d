"""A deterministic planner: turns a plain request into a change to one ticket.

No model provider is called. The planner understands a handful of phrasings, enough for a
workshop script, and says clearly when it does not understand, so nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

PRIORITIES = ("low", "normal", "high", "urgent")

_TICKET = r"(?P<ticket>t\d+)"
_PRIORITY = r"(?P<priority>low|normal|high|urgent)"

# Each rule: a pattern over the lower-cased request and a function from its match to the changes.
_RULES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], dict]]] = [
    (
        re.compile(
            rf"^(?:raise|lower|bump|drop|move|set|make|change|put)\s+{_TICKET}"
            rf"(?:'s)?(?:\s+priority)?\s+(?:to\s+|as\s+)?{_PRIORITY}(?:\s+priority)?$"
        ),
        lambda m: {"priority": m["priority"]},
    ),
    (
        re.compile(rf"^(?:set|change)\s+(?:the\s+)?priority\s+of\s+{_TICKET}\s+to\s+{_PRIORITY}$"),
        lambda m: {"priority": m["priority"]},
    ),
    (
        re.compile(rf"^(?:assign|give)\s+{_TICKET}\s+to\s+(?P<who>[a-z][\w.-]{{0,39}})$"),
        lambda m: {"assignee": m["who"]},
    ),
    (re.compile(rf"^unassign\s+{_TICKET}$"), lambda m: {"assignee": None}),
    (re.compile(rf"^(?:close|resolve)\s+{_TICKET}$"), lambda m: {"status": "closed"}),
    (re.compile(rf"^(?:reopen|open)\s+{_TICKET}$"), lambda m: {"status": "open"}),
    (re.compile(rf"^start(?:\s+work\s+on)?\s+{_TICKET}$"), lambda m: {"status": "in_progress"}),
]

_RENAME = re.compile(r"^(?:rename|retitle)\s+(?P<ticket>t\d+)\s+(?:to|as)\s+(?P<title>.{1,200})$",
                     re.IGNORECASE)

EXAMPLES = (
    "raise t7 to high",
    "set t3 priority to low",
    "assign t2 to dara",
    "close t5",
    "reopen t5",
    "rename t4 to Printer on fire",
)


@dataclass(frozen=True)
class Plan:
    """A change the agent proposes for one ticket."""

    ticket_id: str
    changes: dict


@dataclass(frozen=True)
class NotUnderstood:
    """The request matched no rule; ``reason`` says what the planner does understand."""

    reason: str


def find_ticket_id(request: str) -> str | None:
    """Return the first ticket id (``t7``) named in ``request``, or None."""
    match = re.search(r"\bt\d+\b", request.lower())
    return match.group(0) if match else None


def understand(request: str) -> Plan | NotUnderstood:
    """Map a plain request to a :class:`Plan`, or say why it could not.

    Examples that work: ``raise t7 to high``, ``set t3 priority to low``, ``assign t2 to dara``,
    ``close t5``.
    """
    text = " ".join(request.strip().rstrip(".!").split())
    rename = _RENAME.match(text)
    if rename:
        # Titles keep their case, so this rule reads the original text.
        return Plan(rename["ticket"].lower(), {"title": rename["title"].strip()})
    lowered = text.lower()
    for pattern, changes_of in _RULES:
        match = pattern.match(lowered)
        if match:
            return Plan(match["ticket"], changes_of(match))
    return NotUnderstood(
        f"could not understand {request.strip()!r}: try "
        + ", ".join(f'"{example}"' for example in EXAMPLES[:4])
    )
