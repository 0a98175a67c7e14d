"""Checkpoints of any BaseCheckpointSaver, read through the saver's own ``list``.

The fallback for savers this tool has no SQL for, and only for a saver object handed in by code
(a graph's own checkpointer): it reads with that saver's serializer, so it is never used on a
database the playground did not write. Values are passed through the safe decoder all the same,
so every source gives pages the same plain data. Sizes are the serializer's output length, which
is what a saver that stores serialized blobs keeps.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

from playground.timetravel.decode import decode_typed
from playground.timetravel.errors import CheckpointDbError, UnknownThread
from playground.timetravel.records import (
    CheckpointDetail,
    CheckpointRecord,
    ThreadSummary,
    detail_of,
    state_values,
)
from playground.timetravel.signals import SIGNAL_CHANNELS, TaskSignal, signals_of
from playground.timetravel.storage.base import PendingWrite


class SaverStorage:
    """Any saver, read through ``saver.list``."""

    kind = "saver"
    writable = False  # edits go through the saver itself; prune, migrate and import need SQL
    saver_tables = "checkpoint tables this tool has SQL for"
    export_tables: tuple = ()  # nothing to export row by row: transfer refuses in one line

    def __init__(self, saver: BaseCheckpointSaver) -> None:
        self._saver = saver
        self.label = type(saver).__name__

    def has_saver_tables(self) -> bool:
        """False: a saver object has no tables this tool can change."""
        return False

    def saver(self, serde: object = None) -> BaseCheckpointSaver:
        """The saver itself (it keeps its own serializer)."""
        return self._saver

    def close(self) -> None:
        """Nothing to close: the caller owns the saver."""

    def _tuples(
        self, thread_id: str | None, checkpoint_ns: str | None = ""
    ) -> list[CheckpointTuple]:
        config = None
        if thread_id is not None:
            config = {"configurable": {"thread_id": thread_id}}
            if checkpoint_ns is not None:
                config["configurable"]["checkpoint_ns"] = checkpoint_ns
        # Materialize before anything else touches the saver: SqliteSaver holds its lock while a
        # list() iterator is open, so a call inside the loop would deadlock (DESIGN.md).
        return list(self._saver.list(config))

    def _size(self, value: object) -> int:
        try:
            return len(self._saver.serde.dumps_typed(value)[1])
        except Exception:
            return 0

    def _plain(self, value: object) -> object:
        """The value as the safe decoder gives it: what every other source returns."""
        try:
            return decode_typed(*self._saver.serde.dumps_typed(value))
        except Exception:  # a value the saver's serializer cannot write back
            return repr(value)

    def threads(self) -> list[ThreadSummary]:
        """Every thread, newest first."""
        by_thread: dict[str, list[CheckpointTuple]] = defaultdict(list)
        for item in self._tuples(None, None):
            if item.config["configurable"].get("checkpoint_ns", "") == "":
                by_thread[item.config["configurable"]["thread_id"]].append(item)
        summaries = []
        for thread_id, items in by_thread.items():
            records, details = self._read(items)
            head = details[records[-1].checkpoint_id]
            parents = {r.parent_id for r in records}
            summaries.append(
                ThreadSummary(
                    thread_id=thread_id,
                    checkpoints=len(records),
                    newest_at=head.created_at,
                    head_next=head.next,
                    branches=sum(1 for r in records if r.checkpoint_id not in parents),
                    stored_bytes=sum(r.stored_bytes for r in records),
                )
            )
        summaries.sort(key=lambda s: s.newest_at or "", reverse=True)
        return summaries

    def namespaces(self, thread_id: str) -> list[str]:
        """Namespaces of a thread."""
        return sorted(
            {
                item.config["configurable"].get("checkpoint_ns", "")
                for item in self._tuples(thread_id, None)
            }
        )

    def _read(
        self, items: list[CheckpointTuple]
    ) -> tuple[list[CheckpointRecord], dict[str, CheckpointDetail]]:
        items = sorted(items, key=lambda t: t.config["configurable"]["checkpoint_id"])
        by_id = {t.config["configurable"]["checkpoint_id"]: t.checkpoint for t in items}
        records, details = [], {}
        for item in items:
            configurable = item.config["configurable"]
            checkpoint_id = configurable["checkpoint_id"]
            parent_id = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            metadata = dict(item.metadata or {})
            records.append(
                CheckpointRecord(
                    checkpoint_id=checkpoint_id,
                    parent_id=parent_id,
                    checkpoint_ns=configurable.get("checkpoint_ns", ""),
                    step=metadata.get("step"),
                    source=metadata.get("source"),
                    blob_bytes=self._size(item.checkpoint),
                    metadata_bytes=len(json.dumps(metadata, default=str).encode()),
                    writes_bytes=sum(self._size(w[2]) for w in item.pending_writes or ()),
                )
            )
            details[checkpoint_id] = detail_of(
                checkpoint_id, item.checkpoint, by_id.get(parent_id)
            )
        return records, details

    def records(self, thread_id: str, checkpoint_ns: str = "") -> list[CheckpointRecord]:
        """Every checkpoint of a thread and namespace, oldest first."""
        items = self._tuples(thread_id, checkpoint_ns)
        if not items:
            raise UnknownThread(f"no thread {thread_id!r} in {self.label}")
        return self._read(items)[0]

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """None: a saver offers no cheap change marker, so trees read through it are not cached."""
        return None

    def details(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, CheckpointDetail]:
        """Details of some checkpoints (the saver decodes every one anyway)."""
        wanted = set(checkpoint_ids)
        _, details = self._read(self._tuples(thread_id, checkpoint_ns))
        return {cid: detail for cid, detail in details.items() if cid in wanted}

    def _tuple(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str) -> CheckpointTuple:
        item = self._saver.get_tuple(
            {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                              "checkpoint_id": checkpoint_id}}
        )
        if item is None:
            raise CheckpointDbError(f"no checkpoint {checkpoint_id} in thread {thread_id!r}")
        return item

    def values(self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = "") -> dict:
        """The state values stored in one checkpoint (LangGraph's bookkeeping channels left out)."""
        checkpoint = self._tuple(thread_id, checkpoint_id, checkpoint_ns).checkpoint
        return {k: self._plain(v) for k, v in state_values(checkpoint).items()}

    def store_items(self, limit: int = 500) -> None:
        """A saver has no store table: always None."""
        return None

    def pending_writes(
        self, thread_id: str, checkpoint_id: str, checkpoint_ns: str = ""
    ) -> list[PendingWrite]:
        """Writes stored under one checkpoint (the node is not known here)."""
        item = self._tuple(thread_id, checkpoint_id, checkpoint_ns)
        return [
            PendingWrite("?", channel, self._plain(value), self._size(value))
            for _task, channel, value in item.pending_writes or ()
        ]

    def pending_writes_of(
        self, thread_id: str, checkpoint_ids: Iterable[str], checkpoint_ns: str = ""
    ) -> dict[str, list[PendingWrite]]:
        """Writes stored under each of some checkpoints."""
        return {cid: self.pending_writes(thread_id, cid, checkpoint_ns)
                for cid in dict.fromkeys(checkpoint_ids)}

    def signals(self, thread_id: str, checkpoint_ns: str = "") -> dict[str, tuple[TaskSignal, ...]]:
        """Questions, answers and errors under each checkpoint (the node is not known here)."""
        found = {}
        for item in self._tuples(thread_id, checkpoint_ns):
            writes = [("", channel, self._plain(value))
                      for _task, channel, value in item.pending_writes or ()
                      if channel in SIGNAL_CHANNELS]
            if writes:
                found[item.config["configurable"]["checkpoint_id"]] = signals_of(writes)
        return found
