"""A saver object as a place: any ``BaseCheckpointSaver`` handed in by code, read through its
own ``list``.

The fallback for savers this tool has no SQL for, and only for a saver object a program hands
in (a graph's own checkpointer, a test's): it reads with that saver's serializer, so it is never
used on a database the playground did not write. Every checkpoint and write is passed through
the safe decoder all the same, so this kind gives pages the same plain data as every other.
Sizes are the serializer's output length, which is what a saver that stores serialized blobs
keeps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playground.places.base import Place
from playground.timetravel.decode import decode_typed
from playground.timetravel.storage import Storage, StoredCheckpoint, StoredWrite

if TYPE_CHECKING:  # a CLI that reads files never imports LangGraph for this kind
    from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple


class SaverStorage(Storage):
    """Any saver, read through ``saver.list`` (the kind supplies only the three questions)."""

    kind = "saver"
    writable = False  # edits go through the saver itself; prune, migrate and import need SQL
    keeps_task_paths = False  # a saver's list gives (task id, channel, value), no path

    def __init__(self, saver: BaseCheckpointSaver) -> None:
        self._saver = saver
        self.label = type(saver).__name__

    def saver(self, serde: object = None) -> BaseCheckpointSaver:
        """The saver itself (it keeps its own serializer)."""
        return self._saver

    def _tuples(self, thread_id: str | None, checkpoint_ns: str | None = ""
                ) -> list[CheckpointTuple]:
        config = None
        if thread_id is not None:
            config = {"configurable": {"thread_id": thread_id}}
            if checkpoint_ns is not None:
                config["configurable"]["checkpoint_ns"] = checkpoint_ns
        # Materialize before anything else touches the saver: SqliteSaver holds its lock while
        # a list() iterator is open, so a call inside the loop would deadlock
        # (docs/architecture.md, "LangGraph facts").
        return list(self._saver.list(config))

    def _plain(self, value: object) -> tuple[Any, int]:
        """The value as the safe decoder gives it, and its serialized size."""
        try:
            type_, blob = self._saver.serde.dumps_typed(value)
        except Exception:  # a value the saver's serializer cannot write back
            return repr(value), 0
        return decode_typed(type_, blob), len(blob)

    def thread_ids(self) -> list[str]:
        """Every thread with a root checkpoint."""
        return list(dict.fromkeys(
            item.config["configurable"]["thread_id"] for item in self._tuples(None, None)
            if item.config["configurable"].get("checkpoint_ns", "") == ""))

    def namespaces(self, thread_id: str) -> list[str]:
        """Namespaces of a thread."""
        return sorted({item.config["configurable"].get("checkpoint_ns", "")
                       for item in self._tuples(thread_id, None)})

    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = ""
                           ) -> list[StoredCheckpoint]:
        """A thread's checkpoints, oldest first, decoded through the safe decoder."""
        found = []
        for item in self._tuples(thread_id, checkpoint_ns):
            checkpoint, size = self._plain(item.checkpoint)
            metadata = dict(item.metadata or {})
            parent = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            found.append(StoredCheckpoint(
                item.config["configurable"]["checkpoint_id"], parent, metadata,
                checkpoint if isinstance(checkpoint, dict) else {}, size,
                len(json.dumps(metadata, default=str).encode())))
        return sorted(found, key=lambda stored: stored.checkpoint_id)

    def stored_writes(self, thread_id: str, checkpoint_ns: str = "",
                      checkpoint_ids: Iterable[str] | None = None,
                      channels: Iterable[str] | None = None) -> list[StoredWrite]:
        """Pending writes under the thread's checkpoints (the saver's list gives no task path:
        their node is not known)."""
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        names = None if channels is None else set(channels)
        found = []
        for item in sorted(self._tuples(thread_id, checkpoint_ns),
                           key=lambda t: t.config["configurable"]["checkpoint_id"]):
            checkpoint_id = item.config["configurable"]["checkpoint_id"]
            if wanted is not None and checkpoint_id not in wanted:
                continue
            for task_id, channel, value in item.pending_writes or ():
                if names is None or channel in names:
                    plain, size = self._plain(value)
                    found.append(StoredWrite(checkpoint_id, "", channel, plain, size,
                                             task_id=task_id))
        return found


class SaverObject(Place):
    """A saver object a program handed in: read through the saver, never changed by the
    engine (edits and replays go through the saver itself, which graphs run on)."""

    kind = "saver"

    def __init__(self, target: BaseCheckpointSaver, typed: bool = False,
                 label: str | None = None) -> None:
        super().__init__(target, typed, label or type(target).__name__)

    @classmethod
    def claims(cls, target: object) -> bool:
        """Any ``BaseCheckpointSaver`` object (a path or URL is never one)."""
        if isinstance(target, (str, Path)):
            return False
        from langgraph.checkpoint.base import BaseCheckpointSaver

        return isinstance(target, BaseCheckpointSaver)

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> SaverStorage:
        """Reads through the saver (always read-only)."""
        return SaverStorage(self.target)

    @contextmanager
    def saver(self, serde: Any = None) -> Iterator[BaseCheckpointSaver]:
        """The saver itself, left open: its owner closes it."""
        yield self.target
