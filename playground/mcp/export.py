"""The ``thread://{thread_id}`` resource: a thread as the playground's export JSON, the very text
``playground export`` writes (:func:`~playground.timetravel.transfer.export_thread`): every row
of the thread, blobs base64-encoded and never decoded.

An export holds a thread's rows whole, so it is not cut like a tool's answer: one larger than
:data:`EXPORT_CAP` is refused in one sentence that names the command to use instead.
"""

from __future__ import annotations

from playground.mcp.answers import Refused
from playground.mcp.bounds import clip
from playground.mcp.reads import thread_tree
from playground.timetravel.storage import Storage
from playground.timetravel.transfer import dumps_export, export_thread
from playground.timetravel.tree import TreeCache

EXPORT_CAP = 4 * 1024 * 1024  # bytes of export JSON one resource read may hand a client
MIME_TYPE = "application/json"


def thread_export(storage: Storage, thread_id: str, trees: TreeCache | None = None) -> str:
    """The thread's export JSON.

    Raises:
        UnknownThread: no such thread.
        TransferRefused: a place whose threads cannot be exported.
        Refused: the export is larger than :data:`EXPORT_CAP`.
    """
    thread_tree(storage, thread_id, trees)  # an unknown thread: one line, as `export` says
    text = dumps_export(export_thread(storage, thread_id))
    size = len(text.encode("utf-8"))
    if size > EXPORT_CAP:
        raise Refused(f"thread {clip(thread_id)}'s export is {size:,} bytes, more than the "
                      f"{EXPORT_CAP:,} a resource read hands over: write it to a file with "
                      f"`playground export PLACE --thread {clip(thread_id)}`")
    return text
