"""How a database URL is shown without its password: the ticket API's own redactor.

The standalone API depends on nothing of the playground, so it keeps this copy of the
playground's ``redact_url`` (same patterns, same output;
``tests/ticket_api/test_ticket_api_urls.py`` holds the two together). It hides a password in
the authority, however many ``@`` it holds, and one given as ``?password=``.
"""

from __future__ import annotations

import re

# Greedy up to the last "@" of the authority, so a password holding a raw "@" is all hidden.
_PASSWORD_IN_NETLOC = re.compile(r"(://[^:/@?#]*:)[^/?#]*@")
_PASSWORD_IN_QUERY = re.compile(r"(?i)([?&]password=)[^&#]*")


def redact_url(url: str) -> str:
    """A database URL with its password replaced by ``***``, safe to print, show or log."""
    return _PASSWORD_IN_QUERY.sub(r"\1***", _PASSWORD_IN_NETLOC.sub(r"\1***@", url))
