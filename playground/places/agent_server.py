"""A LangGraph Agent Server as a place threads live: read through its public HTTP API.

``langgraph dev``, a self-hosted server or a deployment keeps its threads behind the API that
``langgraph-sdk`` speaks; the playground never opens the server's own files (``langgraph dev``'s
``.langgraph_api/*.pckl`` are pickles: opening one would run what it names). What the API gives
is plain JSON, so no decoder is involved: values, messages (dicts with a ``type``), tasks with
their interrupts, results and errors.

How the API's answers map onto the read seam:

- a thread's checkpoints are ``threads.get_history``, paged with ``before`` (newest first, a
  page at most :data:`PAGE`), each entry's ``created_at`` as its time and ``values`` as its
  channel values;
- its next nodes are the entry's ``next``; the nodes that wrote it are the tasks its parent ran;
- the writes under a checkpoint are its tasks' results (one write per channel), interrupts
  (``__interrupt__``) and errors (``__error__``). The answer a person gave to resume is not in
  the history at all: pages say so rather than guess it;
- subgraph checkpoints are not in the root history: a subgraph task names its namespace, whose
  own history the same call lists (``checkpoint={"checkpoint_ns": ...}``);
- the store is ``store.list_namespaces`` and ``store.search_items``.

Every call goes through :class:`~playground.places.server_client.ServerClient` (bounded in
time and size, the key kept to its server).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar

import orjson

from playground.places.base import Place
from playground.places.server_address import (
    KEY_ENV_SETTING,
    NAME_KEY,
    ServerError,
    carries_key,
    check_allowed,
    is_server_url,
    server_label,
    server_thread_id,
)
from playground.timetravel.errors import UnknownThread
from playground.timetravel.limits import clip, limits
from playground.timetravel.records import CheckpointDetail, ThreadSummary
from playground.timetravel.signals import ERROR, INTERRUPT, TaskSignal
from playground.timetravel.status import Status
from playground.timetravel.storage import (
    SERVER,
    Storage,
    StoredCheckpoint,
    StoredWrite,
)
from playground.timetravel.store_items import StoreItem
from playground.timetravel.thread_list import (
    RUNNING,
    STATUSES,
    ThreadQuery,
    counted_cursor,
    metadata_holds,
)

if TYPE_CHECKING:
    from playground.places.server_client import ServerClient

PAGE = 500  # history entries per request (servers cap a page; 500 passes langgraph dev's)
THREAD_PAGE = 100
# threads.search options a server may refuse, each with the options that go with it: the
# list is read without them (the same threads, in the server's own order, answers a bit larger).
# A refused ``status`` or ``metadata`` filter is then checked here instead (the thread list
# checks each row's status anyway; see thread_candidates for the metadata).
_OPTIONAL_SEARCH = {"select": ("select",), "sort_by": ("sort_by", "sort_order"),
                    "status": ("status",), "metadata": ("metadata",)}
# Said wherever a page would show the answer a run resumed with.
NO_RESUME_VALUE = ("Answered: an Agent Server's history does not keep the answer a run resumed "
                   "with, so it is not shown here.")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _task_namespace(task: dict) -> str | None:
    """The subgraph namespace a history task names, in the shapes servers use: its
    ``checkpoint`` (``langgraph dev``), or its ``state``'s config when ``checkpoint`` is null
    (Aegra 0.11)."""
    for holder in (task.get("checkpoint"),
                   (task.get("state") or {}).get("configurable")
                   if isinstance(task.get("state"), dict) else None):
        if isinstance(holder, dict) and isinstance(holder.get("checkpoint_ns"), str) \
                and holder["checkpoint_ns"]:
            return holder["checkpoint_ns"]
    return None


def _size(value: Any) -> int:
    try:
        return len(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError):  # nested past orjson's limit
        return 0


def _differs(a: Any, b: Any) -> bool:
    try:
        return a != b
    except RecursionError:  # values nested deeper than Python compares
        return True


class ServerStorage(Storage):
    """The engine's reads on an Agent Server (read-only: actions are runs on the server)."""

    kind: ClassVar[str] = "server"
    saver_tables: ClassVar[str] = "an Agent Server's API"
    writer = SERVER
    keeps_task_paths = False
    answers_unkept = NO_RESUME_VALUE

    def __init__(self, client: ServerClient) -> None:
        self.client = client
        self.label = client.label
        self._history: dict[tuple[str, str], list[dict]] = {}  # (thread, ns) -> entries
        self._index: dict[str, dict] = {}  # checkpoint id -> its entry
        self._stored: dict[tuple[str, str], list[StoredCheckpoint]] = {}
        self._statuses: dict[str, str | None] = {}  # thread -> its status, as last listed

    # -- the three questions --------------------------------------------------------------

    def _search(self, **options: Any) -> list:
        """``threads.search`` with ``options``, leaving out the options this server refuses.

        ``select`` (a projection: only the fields asked for) and ``sort_by`` make answers
        smaller and ordered on ``langgraph dev``; a server that refuses one (Aegra 0.11 answers
        422 to ``select``) is asked again without it, and not asked with it again: the client,
        which every read of the place shares, keeps what the server refused.
        """
        def leave_out(option: str) -> None:
            for name in _OPTIONAL_SEARCH[option]:
                options.pop(name, None)

        for refused in self.client.refused_options:
            leave_out(refused)
        while True:
            try:
                found = self.client.call(self.client.sdk.threads.search, **options)
                break
            except ServerError as exc:
                refused = next((name for name in _OPTIONAL_SEARCH
                                if name in options and name in str(exc)), None)
                if exc.status not in (400, 422) or refused is None:
                    raise
                self.client.refused_options.add(refused)
                leave_out(refused)
        if not isinstance(found, list):
            raise ServerError(f"{self.label}: threads.search did not answer a list")
        return found

    def _name_of(self, item: Any) -> str | None:
        """A thread of a search answer by the name the playground shows: a thread the
        playground made, by its playground name (which maps back to the same id)."""
        thread_id = item.get("thread_id") if isinstance(item, dict) else None
        if not isinstance(thread_id, str):
            return None
        metadata = item.get("metadata")
        name = metadata.get(NAME_KEY) if isinstance(metadata, dict) else None
        if isinstance(name, str) and server_thread_id(name) == thread_id:
            return name
        return thread_id

    def thread_ids(self) -> list[str]:
        """Every thread the server lists (``threads.search``, paged), newest first."""
        found: list[str] = []
        cap = limits().max_rows
        offset = 0
        while len(found) < cap:
            page = self._search(limit=THREAD_PAGE, offset=offset,
                                select=["thread_id", "metadata"])
            offset += len(page)
            found += [name for item in page if (name := self._name_of(item))]
            if len(page) < THREAD_PAGE:
                break
        return found[:cap]

    # The server's own statuses for the thread list's: it knows a thread is running, which a
    # database cannot.
    statuses: ClassVar[tuple[str, ...]] = (*STATUSES, RUNNING)
    _SERVER_STATUS: ClassVar[dict[str, str]] = {
        "paused": "interrupted", "stopped": "interrupted", "failed": "error",
        "finished": "idle", "running": "busy"}

    def thread_candidates(self, query: ThreadQuery) -> Iterator[tuple[str, str]]:
        """The server's threads newest first (``threads.search`` by ``updated_at``), a page of
        :data:`THREAD_PAGE` at a time from the offset ``query.after`` gives (``o<N>``).

        The status and each metadata value that is plain text go to the server as its own
        filters, on the thread's metadata (where a run's or a person's thread metadata is
        kept); a number or true/false is checked here on each thread's metadata, as written
        and as JSON, since the server would match only one of the two.

        Raises:
            QueryRefused: ``query.after`` is not a cursor of this kind.
        """
        offset = counted_cursor(query.after, "o")
        wanted = query.meta_values()
        pushed = {key: typed for key, typed, text in wanted if typed == text}
        here = [item for item in wanted if item[0] not in pushed]
        options: dict[str, Any] = {"sort_by": "updated_at", "sort_order": "desc"}
        if query.status:
            options["status"] = self._SERVER_STATUS[query.status]
        if pushed:
            options["metadata"] = pushed
        while True:
            page = self._search(limit=THREAD_PAGE, offset=offset,
                                select=["thread_id", "metadata", "status"], **options)
            # a server that refused the metadata filter lists every thread: check it all here
            local = wanted if "metadata" in self.client.refused_options else here
            for index, item in enumerate(page, offset + 1):
                name = self._name_of(item)
                if name is None:
                    continue
                status = item.get("status")
                self._statuses[name] = status if isinstance(status, str) else None
                if local and not metadata_holds(item.get("metadata"), local):
                    continue
                yield name, f"o{index}"
            offset += len(page)
            if len(page) < THREAD_PAGE:
                return

    def counted(self, query: ThreadQuery) -> int | None:
        """The server's own count (``threads.count``) of its threads with the status and the
        text metadata values asked; None where the server has no count (it refused one once:
        the thread list then walks), or a filter it cannot take (a time, a number's metadata,
        which it would match in only one of its two spellings)."""
        wanted = query.meta_values()
        if query.since or query.until or "count" in self.client.refused_options or any(
                typed != text for _, typed, text in wanted):
            return None
        options: dict[str, Any] = {}
        if query.status:
            options["status"] = self._SERVER_STATUS[query.status]
        if wanted:
            options["metadata"] = {key: text for key, _, text in wanted}
        try:
            found = self.client.call(self.client.sdk.threads.count, **options)
        except ServerError as exc:
            if exc.status not in (404, 405, 422):
                raise
            self.client.refused_options.add("count")
            return None
        return found if isinstance(found, int) and not isinstance(found, bool) else None

    def thread_status(self, summary: ThreadSummary, head_signals: tuple[TaskSignal, ...]
                      ) -> Status:
        """As any place reads it, except that a thread the server says is busy is running."""
        if self._statuses.get(summary.thread_id) == "busy":
            return Status(RUNNING, detail="a run is going on")
        return super().thread_status(summary, head_signals)

    def entries(self, thread_id: str, checkpoint_ns: str = "") -> list[dict]:
        """A thread's whole history in a namespace as the server gives it, oldest first (read
        once per storage; pages of :data:`PAGE` with ``before``)."""
        held = self._history.get((thread_id, checkpoint_ns))
        if held is not None:
            return held
        entries: list[dict] = []
        pages = self.client.history_pages(server_thread_id(thread_id), PAGE, limits().max_rows,
                                          checkpoint_ns)
        try:
            for page in self.client.call(list, pages):
                entries += [entry for entry in page if _checkpoint_id(entry)]
        except ServerError as exc:
            # No such thread yet (422: not even a thread id): no history, as a file's thread
            # with no checkpoints has none, and every page shows its empty view.
            if exc.status not in (404, 422):
                raise
        entries.reverse()
        self._history[(thread_id, checkpoint_ns)] = entries
        self._index.update((_checkpoint_id(entry), entry) for entry in entries)
        return entries

    def namespaces(self, thread_id: str) -> list[str]:
        """The root, and each subgraph namespace a task of the root history names."""
        found = {ns for entry in self.entries(thread_id) for task in _tasks(entry)
                 if (ns := _task_namespace(task))}
        return ["", *sorted(clip(ns, 300) for ns in found)]

    def stored_checkpoints(self, thread_id: str, checkpoint_ns: str = ""
                           ) -> list[StoredCheckpoint]:
        """A namespace's history entries as checkpoints: ``created_at`` as ``ts``, ``values``
        as the channel values."""
        held = self._stored.get((thread_id, checkpoint_ns))
        if held is not None:
            return held
        found = []
        for entry in self.entries(thread_id, checkpoint_ns):
            values = entry.get("values")
            metadata = entry.get("metadata")
            parent = entry.get("parent_checkpoint")
            found.append(StoredCheckpoint(
                checkpoint_id=_checkpoint_id(entry),
                parent_id=_text(parent.get("checkpoint_id")) if isinstance(parent, dict)
                else None,
                metadata=metadata if isinstance(metadata, dict) else {},
                checkpoint={"ts": _text(entry.get("created_at")),
                            "channel_values": values if isinstance(values, dict)
                            else {"(value)": values}},
                blob_bytes=_size(values), metadata_bytes=_size(metadata)))
        self._stored[(thread_id, checkpoint_ns)] = found
        return found

    def stored_writes(self, thread_id: str, checkpoint_ns: str = "",
                      checkpoint_ids: Iterable[str] | None = None,
                      channels: Iterable[str] | None = None) -> list[StoredWrite]:
        """Each checkpoint's tasks: a result is one write per channel, an interrupt and an
        error each a write on LangGraph's own channel."""
        wanted = set(checkpoint_ids) if checkpoint_ids is not None else None
        on = set(channels) if channels is not None else None
        writes = []
        for entry in self.entries(thread_id, checkpoint_ns):
            checkpoint_id = _checkpoint_id(entry)
            if wanted is not None and checkpoint_id not in wanted:
                continue
            for task in _tasks(entry):
                node = _text(task.get("name")) or "?"
                task_id = _text(task.get("id")) or ""
                found: list[tuple[str, Any]] = []
                result = task.get("result")
                if isinstance(result, dict):
                    found += list(result.items())
                interrupts = task.get("interrupts")
                if isinstance(interrupts, list) and interrupts:
                    found.append((INTERRUPT, interrupts))
                if task.get("error") is not None:
                    found.append((ERROR, task["error"]))
                writes += [StoredWrite(checkpoint_id, "", channel, value, _size(value), node,
                                       task_id)
                           for channel, value in found if on is None or channel in on]
        return writes

    # -- what the API says better than the values could -----------------------------------

    def _detail(self, item: StoredCheckpoint, by_id: dict[str, StoredCheckpoint]
                ) -> CheckpointDetail:
        """Next nodes as the server says them; writers are the tasks the parent ran."""
        entry = self._entry(item)
        parent = by_id.get(item.parent_id) if item.parent_id else None
        values = item.checkpoint.get("channel_values") or {}
        before = parent.checkpoint.get("channel_values") or {} if parent else {}
        source = item.metadata.get("source")
        writers: tuple[str, ...] = ()
        if parent is not None and source == "loop":
            writers = tuple(dict.fromkeys(
                name for task in _tasks(self._entry(parent))
                if isinstance(name := task.get("name"), str)))
        return CheckpointDetail(
            checkpoint_id=item.checkpoint_id,
            created_at=_text(item.checkpoint.get("ts")),
            next=tuple(name for name in entry.get("next") or () if isinstance(name, str)),
            writers=writers,
            changed=tuple(key for key in values if _differs(values.get(key), before.get(key))),
            problem=item.problem)

    def _entry(self, item: StoredCheckpoint) -> dict:
        return self._index.get(item.checkpoint_id, {})

    def fingerprint(self, thread_id: str, checkpoint_ns: str = "") -> tuple | None:
        """The thread's ``updated_at`` and status: a run, an edit or a fork moves them."""
        found = self._search(ids=[server_thread_id(thread_id)], limit=1,
                             select=["thread_id", "updated_at", "status"])
        if not found or not isinstance(found[0], dict):
            raise UnknownThread(f"no thread {thread_id!r} on {self.label}")
        return ("server", self.label, thread_id, _text(found[0].get("updated_at")),
                _text(found[0].get("status")))

    def store_items(self, limit: int = 500) -> list | None:
        """The server's store: every namespace's items, up to ``limit`` in all."""
        namespaces = self.client.call(self.client.sdk.store.list_namespaces, limit=100)
        names = namespaces.get("namespaces") if isinstance(namespaces, dict) else None
        items: list[StoreItem] = []
        for namespace in names if isinstance(names, list) else ():
            if len(items) >= limit or not isinstance(namespace, list):
                break
            answer = self.client.call(self.client.sdk.store.search_items, tuple(namespace),
                                limit=min(100, limit - len(items)))
            for item in (answer.get("items") if isinstance(answer, dict) else None) or ():
                if isinstance(item, dict) and isinstance(item.get("key"), str):
                    items.append(StoreItem(
                        namespace=tuple(str(part) for part in item.get("namespace") or ()),
                        key=item["key"], value=item.get("value"),
                        created_at=_text(item.get("created_at")),
                        updated_at=_text(item.get("updated_at"))))
        return items

    def own_export(self, thread_id: str) -> dict | None:
        """The thread's history as the server gave it, oldest first: an export of a server
        holds values, not a saver's rows."""
        if not self.stored_checkpoints(thread_id):
            return None
        return {"history": self.entries(thread_id)}

    def close(self) -> None:
        """Nothing: the client belongs to the place."""


def _checkpoint_id(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    checkpoint = entry.get("checkpoint")
    found = checkpoint.get("checkpoint_id") if isinstance(checkpoint, dict) else None
    return clip(found, 200) if isinstance(found, str) and found else None


def _tasks(entry: dict) -> list[dict]:
    tasks = entry.get("tasks")
    return [task for task in tasks if isinstance(task, dict)] if isinstance(tasks, list) else []


class AgentServer(Place):
    """An Agent Server's URL: its threads read through the API, runs started through it."""

    kind: ClassVar[str] = "server"
    typeable: ClassVar[bool] = True

    def __init__(self, target: Any, typed: bool = False, label: str | None = None) -> None:
        super().__init__(target, typed, label)
        self.url = str(target).strip()
        self.label = label or server_label(self.url)
        self._client: ServerClient | None = None

    @classmethod
    def claims(cls, target: Any) -> bool:
        """An ``http://`` or ``https://`` URL."""
        return is_server_url(target)

    @classmethod
    def errors(cls) -> tuple[type[Exception], ...]:
        return (ServerError,)

    def check_typed(self) -> None:
        """Only what the person who started the server allowed a page to open
        (:func:`~playground.places.server_address.check_allowed`: on loopback also loopback
        and ``--server``'s; beyond loopback never ``--server``'s, the server's own)."""
        check_allowed(self.url)

    @property
    def client(self) -> ServerClient:
        """The server's bounded client, made once per place. A typed one carries the key only
        when it is ``--server``'s (:func:`~playground.places.server_address.carries_key`)."""
        if self._client is None:
            from playground.places.server_client import ServerClient  # httpx and the SDK: only now

            self._client = ServerClient(self.url,
                                        credentials=carries_key(self.url, self.typed))
        return self._client

    def reads(self, writable: bool = False, create: bool = False, shared: bool = False
              ) -> ServerStorage:
        """The engine's reads through the API (never writable: edits are runs)."""
        if writable:
            raise ServerError(f"{self.label}: an Agent Server's threads are changed by runs "
                              "through its API; nothing is pruned, migrated or imported there "
                              "from here")
        return ServerStorage(self.client)

    def command_words(self) -> list[str]:
        """The server's URL, and the variable its key is read from when it is not the
        default one (``--api-key-env``)."""
        key_env = os.environ.get(KEY_ENV_SETTING)
        return [self.label, *(["--api-key-env", key_env] if key_env else [])]

    def check_runnable(self) -> None:
        """A server runs its own graphs: a local graph never writes checkpoints there."""
        raise ServerError(f"{self.label}: an Agent Server runs its own graphs; to run them "
                          "here start the playground with --server URL")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
