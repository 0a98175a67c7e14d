"""A throwaway kind of place, to show that a new kind is one module plus one line.

``memory://NAME`` names an ``InMemorySaver`` kept in this process. Graphs run on it through the
place's saver; the engine reads it by its own three questions, straight from the saver's
dicts of serialized rows, through the safe decoder (never the saver's serializer). Nothing
else: every other read is the base class's default. A test registers it with one line,
``KINDS.insert(0, MemoryPlace)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from playground.places.base import Place
from playground.timetravel.decode import decode_typed
from playground.timetravel.storage import Storage, StoredCheckpoint, StoredWrite

PREFIX = "memory://"
_SAVERS: dict[str, InMemorySaver] = {}


class MemoryStorage(Storage):
    """The engine's reads of an in-memory saver's rows."""

    kind = "memory"

    def __init__(self, saver: InMemorySaver, label: str) -> None:
        self._saver = saver
        self.label = label

    def thread_ids(self) -> list[str]:
        return [thread for thread, spaces in self._saver.storage.items() if spaces.get("")]

    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = ""
                           ) -> list[StoredCheckpoint]:
        rows = self._saver.storage.get(thread_id, {}).get(checkpoint_ns, {})
        found = []
        for checkpoint_id, (typed, typed_metadata, parent) in rows.items():
            checkpoint = decode_typed(*typed)
            checkpoint = checkpoint if isinstance(checkpoint, dict) else {}
            values = {}
            for channel, version in (checkpoint.get("channel_versions") or {}).items():
                blob = self._saver.blobs.get((thread_id, checkpoint_ns, channel, version))
                if blob is not None and blob[0] != "empty":
                    values[channel] = decode_typed(*blob)
            metadata = decode_typed(*typed_metadata)
            found.append(StoredCheckpoint(
                checkpoint_id, parent, metadata if isinstance(metadata, dict) else {},
                {**checkpoint, "channel_values": values}, len(typed[1]), len(typed_metadata[1])))
        return sorted(found, key=lambda item: item.checkpoint_id)

    def stored_writes(self, thread_id: str, checkpoint_ns: str = "",
                      checkpoint_ids: Iterable[str] | None = None,
                      channels: Iterable[str] | None = None) -> list[StoredWrite]:
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        found = []
        for (thread, namespace, checkpoint_id), writes in sorted(self._saver.writes.items()):
            if thread != thread_id or namespace != checkpoint_ns or (
                    wanted is not None and checkpoint_id not in wanted):
                continue
            for (_task, _idx), (_task_id, channel, typed, path) in sorted(
                    writes.items(), key=lambda item: (item[1][3], item[0][1])):
                if channels is None or channel in channels:
                    found.append(StoredWrite(checkpoint_id, path, channel, decode_typed(*typed),
                                             len(typed[1])))
        return found


class MemoryPlace(Place):
    """``memory://NAME``: an in-memory saver of this process."""

    kind = "memory"

    @classmethod
    def claims(cls, target: Any) -> bool:
        return isinstance(target, str) and target.startswith(PREFIX)

    def _saver(self) -> InMemorySaver:
        from playground.serde import graph_serde

        return _SAVERS.setdefault(self.target, InMemorySaver(serde=graph_serde()))

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> MemoryStorage:
        return MemoryStorage(self._saver(), self.label)

    @contextmanager
    def saver(self, serde: Any = None) -> Iterator[InMemorySaver]:
        yield self._saver()
