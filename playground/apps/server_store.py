"""An Agent Server's long-term store, with the four calls the Memory page makes of a store.

``alist_namespaces``, ``asearch``, ``aput`` and ``adelete`` go to the server's store API
(``store.list_namespaces``, ``search_items``, ``put_item``, ``delete_item``) through the bounded
client, in a worker thread so the page's event loop never waits on the network. Items come back
as LangGraph's own ``Item`` (plain JSON values; an unreadable time shows as the epoch).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import Item

from playground.places.server_client import ServerClient

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _time(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
    return _EPOCH


class ServerStore:
    """The store of the server a :class:`ServerClient` reaches."""

    def __init__(self, client: ServerClient) -> None:
        self.client = client

    async def _call(self, what, *args, **kwargs) -> Any:
        return await asyncio.to_thread(self.client.call, what, *args, **kwargs)

    async def alist_namespaces(self, *, prefix: tuple[str, ...] | None = None,
                               limit: int = 100, **kwargs: Any) -> list[tuple[str, ...]]:
        """The namespaces under ``prefix`` (all by default)."""
        answer = await self._call(self.client.sdk.store.list_namespaces,
                                  prefix=list(prefix) if prefix else None, limit=limit)
        found = answer.get("namespaces") if isinstance(answer, dict) else None
        return [tuple(str(part) for part in item) for item in found or ()
                if isinstance(item, list)]

    async def asearch(self, namespace_prefix: tuple[str, ...], *, limit: int = 10,
                      offset: int = 0, **kwargs: Any) -> list[Item]:
        """The items under a namespace prefix, a page at a time."""
        answer = await self._call(self.client.sdk.store.search_items, tuple(namespace_prefix),
                                  limit=limit, offset=offset)
        items = answer.get("items") if isinstance(answer, dict) else None
        return [Item(value=item.get("value") if isinstance(item.get("value"), dict) else
                     {"value": item.get("value")}, key=str(item.get("key")),
                     namespace=tuple(str(part) for part in item.get("namespace") or ()),
                     created_at=_time(item.get("created_at")),
                     updated_at=_time(item.get("updated_at")))
                for item in items or () if isinstance(item, dict)]

    async def aput(self, namespace: tuple[str, ...], key: str, value: dict) -> None:
        """Put an item (``store.put_item``)."""
        await self._call(self.client.sdk.store.put_item, tuple(namespace), key, value)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete an item (``store.delete_item``)."""
        await self._call(self.client.sdk.store.delete_item, tuple(namespace), key)
