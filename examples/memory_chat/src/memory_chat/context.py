"""Who is talking, and to which model: the chat's Runtime context."""

from __future__ import annotations

from typing import TypedDict


class Context(TypedDict, total=False):
    """Memories are kept per ``user_id``: another user id starts with none."""

    user_id: str
    model: str
