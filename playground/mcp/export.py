"""The ``thread://{thread_id}`` resource: a thread as the playground's export JSON, the very text
``playground export`` writes (:func:`~playground.timetravel.transfer.export_thread`): every row
of the thread, blobs base64-encoded and never decoded.

An export holds a thread's rows whole, so it is never cut like a tool's answer: it is answered
whole when its read result stays under :data:`~playground.mcp.bounds.ANSWER_CAP` bytes on the
wire (the cap every answer of the server keeps), and otherwise answered by what it weighs and
the ``playground export`` command that writes it to a file (:func:`too_large`): a JSON object
of its own ``format``, which no importer mistakes for an export. A thread whose rows alone
are past :data:`BUILD_CAP` is not even built to be weighed: its size is then a floor.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from playground.mcp.bounds import ANSWER_CAP, json_text
from playground.mcp.reads import thread_tree
from playground.places.door import open_place
from playground.timetravel.storage import Storage
from playground.timetravel.transfer import dumps_export, export_thread
from playground.timetravel.tree import CheckpointTree, TreeCache

RESOURCE = "thread://{thread_id}"  # the resource's URI template (server.py serves it)

MIME_TYPE = "application/json"
# What the JSON-RPC envelope of a resource read adds to its text beside the escaping (the id,
# the uri, the mime type, the keys).
_ENVELOPE = 512
# Bytes of rows past which an export is not built in memory only to be weighed (the cap the
# resource had before it was bounded like every answer).
BUILD_CAP = 4 * 1024 * 1024
# The ``format`` of the answer that stands for an export over the cap.
TOO_LARGE = "langgraph-playground-thread-too-large"
# Characters of a thread id written into the command; a longer one is named by a placeholder.
COMMAND_ID_CHARS = 1_024


def thread_export(storage: Storage, thread_id: str, trees: TreeCache | None = None,
                  uri: str | None = None) -> str:
    """The thread's export JSON when its read result fits the answer cap; else
    :func:`too_large`'s answer.

    Raises:
        UnknownThread: no such thread.
        TransferRefused: a place whose threads cannot be exported.
    """
    tree = thread_tree(storage, thread_id, trees)  # an unknown thread: one line, as `export`
    floor = rows_floor(tree)
    if floor > BUILD_CAP:
        return too_large(storage.label, thread_id, floor, exact=False)
    text = dumps_export(export_thread(storage, thread_id))
    uri = uri or RESOURCE.format(thread_id=thread_id)
    if wire_bytes(text, uri) > ANSWER_CAP:
        return too_large(storage.label, thread_id, len(text.encode("utf-8")), exact=True)
    return text


def rows_floor(tree: CheckpointTree) -> int:
    """The least a thread's export can weigh: its main branch's stored bytes (checkpoints,
    metadata, pending writes), base64-encoded (4 bytes for 3). Other namespaces and the JSON
    around the rows only add to it."""
    return sum(record.stored_bytes for record in tree.nodes.values()) * 4 // 3


def wire_bytes(text: str, uri: str) -> int:
    """Bytes a resource read answering ``text`` takes on the wire: the text as a JSON string
    (every quote and newline escaped) and the envelope around it."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) + len(
        json.dumps(uri).encode("utf-8")) + _ENVELOPE


def too_large(place: str, thread_id: str, size: int, exact: bool) -> str:
    """What the resource answers for an export over the cap: its size and the command that
    writes it to a file, as JSON."""
    command = export_command(place, thread_id)
    said = (f"This thread's export is {'' if exact else 'at least '}{size:,} bytes, more than "
            f"the {ANSWER_CAP:,} an answer of this server holds: write it to a file with "
            f"`{command}`, or read the thread with get_thread and get_checkpoint.")
    found: dict[str, Any] = {
        "format": TOO_LARGE, "thread_id": thread_id if len(thread_id) <= COMMAND_ID_CHARS
        else None, "bytes": size if exact else None, "bytes_at_least": None if exact else size,
        "cap": ANSWER_CAP, "export_command": command, "said": said}
    return json_text(found)


def export_command(place: str, thread_id: str) -> str:
    """The ``playground export`` line that writes the thread's export to a file, each part
    quoted for a shell (a thread id is the database's text: never run, only quoted).

    ``place`` is the place as the server shows it; the door says how a command names it
    again (:meth:`~playground.places.base.Place.command_words`: a file made absolute, a URL
    without its password, a server's key variable).
    """
    words = open_place(place).command_words()
    parts = ["playground", "export", *(shlex.quote(word) for word in words)]
    shown = thread_id if len(thread_id) <= COMMAND_ID_CHARS else "THREAD_ID"
    # --thread=ID: an id that starts with "-" is still the option's value, not an option.
    parts += [shlex.quote(f"--thread={shown}"), ">", shlex.quote(file_name(thread_id))]
    return " ".join(parts)


def file_name(thread_id: str) -> str:
    """A file name for a thread's export: its id's letters, digits, dots and dashes (others
    become ``_``), 60 at most."""
    stem = re.sub(r"[^A-Za-z0-9.-]+", "_", thread_id).strip("._")[:60] or "thread"
    return f"{stem}.export.json"
