"""Text that is not ours, made safe to put into Streamlit markdown.

Streamlit renders markdown (and its own ``:color[...]`` directives) in ``st.markdown``, captions,
alerts, labels and help text. A string from a database, an export, a graph's state or a URL
parameter pasted there could show an image that makes every viewer's browser fetch a URL, or a
link dressed as something else. :func:`md_escape` backslash-escapes every character markdown
gives a meaning to, so such text reaches the page as the literal characters it holds.
"""

from __future__ import annotations

import re

# The ASCII punctuation markdown gives a meaning to: emphasis, code, links and images, headings,
# lists, tables, HTML and entities, math, setext underlines, and ":" (Streamlit's directives and
# icons, and the scheme of a bare URL that GFM would make a link).
_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=])")


# GFM turns a bare "http://...", "www...." or "name@host.tld" into a link after the text is
# parsed, escapes or not: an invisible WORD JOINER inside each keeps it text.
_AUTOLINK = re.compile(r"(?i)(https?)(:)|(www)(\.)|(@)")
_JOINER = "\u2060"


def _unlinked(match: re.Match) -> str:
    head, tail = (match.group(1), match.group(2)) if match.group(1) else (
        (match.group(3), match.group(4)) if match.group(3) else ("", match.group(5)))
    return f"{head}{_JOINER}{tail}"


def md_escape(text: object, limit: int | None = None) -> str:
    """``text`` as markdown that shows exactly its characters (cut to ``limit`` first).

    Line breaks are kept as breaks; nothing in it can become a link, an image, HTML, a heading,
    a list, code or a Streamlit directive. (A bare URL or email address keeps an invisible
    WORD JOINER after its scheme, ``www`` or ``@``: what GFM would make a link stays text.)
    """
    value = str(text)
    if limit is not None and len(value) > limit:
        value = value[: max(limit - 1, 0)] + "…"
    value = _AUTOLINK.sub(_unlinked, value)
    return _SPECIAL.sub(r"\\\1", value).replace("\r", "").replace("\n", "  \n")


def md_code(text: object, limit: int | None = None) -> str:
    """``text`` as a markdown code span that shows exactly its characters (cut to ``limit``).

    Inside a code span markdown gives no character a meaning, so nothing is escaped (an
    escape would show as a backslash); the span's fence is one backtick longer than the
    longest run of backticks inside, and line breaks become spaces (a span is one line).
    """
    value = str(text).replace("\r", "").replace("\n", " ")
    if limit is not None and len(value) > limit:
        value = value[: max(limit - 1, 0)] + "…"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"
