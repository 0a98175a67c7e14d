"""Items of a LangGraph store table (``SqliteStore``, ``PostgresStore``), read as plain data.

A database an app wrote may hold its long-term store beside its checkpoints: a ``store`` table
of ``(prefix, key, value, created_at, updated_at)``, the value a JSON object. Inspect lists them
read-only; values go through the same bounded JSON reading as everything else the engine reads
from a database it did not write, and a value too large to show says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.timetravel.decode import bounded_json_loads, unread

MAX_STORE_VALUE_BYTES = 1024 * 1024  # one item's value; past it, "too large to show"
SHOWN_STORE_ITEMS = 500


@dataclass(frozen=True)
class StoreItem:
    """One item of a store table.

    Attributes:
        namespace: the item's namespace, split on ``.`` as LangGraph stores it.
        key: its key.
        value: its value as plain data (or an ``__unread__`` note saying why not).
        created_at: when it was first put, as stored.
        updated_at: when it was last put, as stored.
    """

    namespace: tuple[str, ...]
    key: str
    value: Any
    created_at: str
    updated_at: str


def store_item(prefix: Any, key: Any, value: Any, size: int | None, created: Any,
               updated: Any) -> StoreItem:
    """A store row as an item; ``value`` is None when its ``size`` was over the bound."""
    if value is None:
        shown = unread(f"too large to show ({size:,} bytes)" if size else "no value")
    elif isinstance(value, (dict, list)):  # JSONB, already parsed by the driver
        shown = value
    else:
        try:
            shown = bounded_json_loads(value)
        except Exception as exc:  # a value that is not JSON: say so, show the rest
            shown = unread(f"not JSON: {type(exc).__name__}")
    return StoreItem(tuple(str(prefix).split(".")), str(key), shown, str(created or ""),
                     str(updated or ""))
