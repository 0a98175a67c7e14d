"""Checkpoint databases whose values name code to run, for the "untrusted data never runs" tests.

Each value is what a hostile or careless writer could put in a LangGraph checkpoint database: one
value per msgpack extension code (0-7), a json ``lc`` constructor envelope, pickle rows, and
blobs that are broken, too deep or declare a huge array. Every value that names a callable names
a shell command that creates a canary file, so a test sees at once whether anything ran.

The same values are written as SqliteSaver rows (:func:`write_sqlite`) and as PostgresSaver rows
(:func:`write_postgres`).
"""

from __future__ import annotations

import json
import os
import pickle
import sqlite3
import struct
from pathlib import Path

import ormsgpack

THREAD = "hostile"
PLAIN_THREAD = "plain"
# Checkpoint ids sort by creation, as LangGraph's do.
IDS = [f"1f0a0000-0000-6000-8000-{n:012d}" for n in range(1, 8)]
RUNNING_CODES = (0, 1, 2, 4, 5)  # the extension codes LangGraph's default serializer executes


def canary(folder: Path, name: str) -> Path:
    """Where a value named ``name`` would leave its mark if it ran."""
    return folder / f"canary-{name}"


def canaries(folder: Path) -> list[Path]:
    """Every canary file that exists: empty when nothing ran."""
    return sorted(folder.glob("canary-*"))


def _ext(code: int, payload: object) -> ormsgpack.Ext:
    return ormsgpack.Ext(code, ormsgpack.packb(payload))


class _Runs:
    """Pickles to a call of os.system: unpickling it runs the command."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def ext_values(folder: Path) -> dict[str, ormsgpack.Ext]:
    """One value per extension code, each naming a command that makes its canary."""
    def touch(name: str) -> str:
        return f"touch {canary(folder, name)}"

    return {
        "ext0": _ext(0, ("os", "system", touch("ext0"))),
        "ext1": _ext(1, ("os", "system", [touch("ext1")])),
        "ext2": _ext(2, ("subprocess", "run", {"args": touch("ext2"), "shell": True})),
        "ext3": _ext(3, ("os", "system", touch("ext3"), "__call__")),
        "ext4": _ext(4, ("subprocess", "run", {"args": touch("ext4"), "shell": True})),
        "ext5": _ext(5, ("subprocess", "run", {"args": touch("ext5"), "shell": True},
                         "model_validate_json")),
        "ext6": _ext(6, ("<f8", [2], "C", struct.pack("<2d", 1.5, 2.5))),
        "ext7": _ext(7, _ext(1, ("os", "system", [touch("ext7")]))),
        "order": _ext(5, ("myapp.models", "Order", {"id": "o1", "total": 9.5},
                          "model_validate_json")),
        "messages": [
            _ext(5, ("langchain_core.messages.human", "HumanMessage",
                     {"content": "Where is my order A17?", "type": "human", "id": "m1"},
                     "model_validate_json")),
            _ext(5, ("langchain_core.messages.ai", "AIMessage",
                     {"content": "", "type": "ai", "id": "m2", "tool_calls": [
                         {"name": "lookup_order", "args": {"order_id": "A17"}, "id": "c1",
                          "type": "tool_call"}]}, "model_validate_json")),
            _ext(5, ("langchain_core.messages.tool", "ToolMessage",
                     {"content": "shipped", "type": "tool", "id": "m3", "name": "lookup_order",
                      "tool_call_id": "c1"}, "model_validate_json")),
        ],
    }


def lc_envelope(folder: Path) -> dict:
    """LangChain's json constructor envelope, naming os.system."""
    return {"lc": 2, "type": "constructor", "id": ["os", "system"],
            "args": [f"touch {canary(folder, 'json-lc')}"]}


def pickle_blob(folder: Path) -> bytes:
    """A pickle that runs a command when unpickled."""
    return pickle.dumps(_Runs(f"touch {canary(folder, 'pickle')}"))


def deep_blob(levels: int = 100_000) -> bytes:
    """A msgpack value nested far deeper than anything real: one-element arrays."""
    return b"\x91" * levels + b"\xc0"


def huge_array_blob() -> bytes:
    """A msgpack array that declares four billion elements and holds none."""
    return b"\xdd" + struct.pack(">I", 2**32 - 1) + b"\xc0" * 8


def _checkpoint(checkpoint_id: str, values: dict, versions: dict, next_node: str | None,
                ts: str | None = None) -> dict:
    seen = {"__start__": {"__start__": "1"}}
    values = dict(values)
    if next_node:
        values[f"branch:to:{next_node}"] = None
        versions = {**versions, f"branch:to:{next_node}": "9"}
    # Later checkpoints are newer; the hostile thread's head is the database's newest.
    ts = ts or f"2026-11-30T12:00:{IDS.index(checkpoint_id):02d}+00:00"
    return {"v": 4, "ts": ts, "id": checkpoint_id,
            "channel_values": values, "channel_versions": versions, "versions_seen": seen,
            "updated_channels": None}


def _metadata(step: int, source: str = "loop") -> bytes:
    return json.dumps({"source": source, "step": step, "parents": {}}).encode()


def write_sqlite(path: Path, folder: Path) -> Path:
    """A SqliteSaver file holding the hostile thread and a plain one beside it.

    Checkpoints of ``hostile``, oldest first: #1 every extension value in one msgpack blob;
    #2 a pickle-typed checkpoint; #3 bytes that are not msgpack; #4 nesting beyond any limit;
    #5 an array declaring four billion elements; #6 a json checkpoint with an ``lc`` envelope;
    #7 the head, paused before ``approve`` with an interrupt, an error and hostile writes.
    """
    from langgraph.checkpoint.sqlite import SqliteSaver

    values = ext_values(folder)
    conn = sqlite3.connect(path)
    SqliteSaver(conn).setup()
    versions = {name: f"{i + 1}" for i, name in enumerate(values)}
    first = ormsgpack.packb(_checkpoint(IDS[0], values, versions, None))
    head = ormsgpack.packb(_checkpoint(IDS[6], {"order": values["order"]}, {"order": "1"},
                                       "approve"))
    json_checkpoint = json.dumps(_checkpoint(IDS[5], {"call": lc_envelope(folder)},
                                             {"call": "1"}, None)).encode()
    rows = [
        (IDS[0], None, "msgpack", first),
        (IDS[1], IDS[0], "pickle", pickle_blob(folder)),
        (IDS[2], IDS[1], "msgpack", b"\xc1\xc1 not msgpack"),
        (IDS[3], IDS[2], "msgpack", deep_blob()),
        (IDS[4], IDS[3], "msgpack", huge_array_blob()),
        (IDS[5], IDS[4], "json", json_checkpoint),
        (IDS[6], IDS[5], "msgpack", head),
    ]
    conn.executemany(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,"
        " type, checkpoint, metadata) VALUES (?, '', ?, ?, ?, ?, ?)",
        [(THREAD, cid, parent, type_, blob, _metadata(i)) for i, (cid, parent, type_, blob)
         in enumerate(rows)],
    )
    conn.executemany(
        "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx,"
        " channel, type, value) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?)",
        [(THREAD, IDS[6], "t1", task_path, idx, channel, type_, blob)
         for idx, (task_path, channel, type_, blob) in enumerate(_writes(folder))],
    )
    plain = ormsgpack.packb(_checkpoint(IDS[0], {"note": "hello"}, {"note": "1"}, None,
                                        ts="2026-11-29T08:00:00+00:00"))
    conn.execute(
        "INSERT INTO checkpoints VALUES (?, '', ?, NULL, 'msgpack', ?, ?)",
        (PLAIN_THREAD, IDS[0], plain, _metadata(0, "input")),
    )
    conn.commit()
    conn.close()
    return path


def _writes(folder: Path) -> list[tuple[str, str, str, bytes]]:
    """(task_path, channel, type, bytes) of the head's pending writes."""
    question = _ext(2, ("langgraph.types", "Interrupt",
                        {"value": {"question": "Approve a refund of $40 for order A17?"},
                         "id": "i-1"}))
    return [
        ("~__pregel_pull, approve", "__interrupt__", "msgpack", ormsgpack.packb([question])),
        ("~__pregel_pull, charge", "__error__", "msgpack",
         ormsgpack.packb("ValueError('card declined')")),
        ("~__pregel_pull, approve", "note", "pickle", pickle_blob(folder)),
        ("~__pregel_pull, approve", "call", "json", json.dumps(lc_envelope(folder)).encode()),
        ("~__pregel_pull, approve", "run", "msgpack",
         ormsgpack.packb(ext_values(folder)["ext1"])),
    ]


def write_postgres(url: str, folder: Path) -> None:
    """The same thread as PostgresSaver rows, in the database at ``url`` (tables made here).

    Each hostile value is a ``checkpoint_blobs`` row of its own type (msgpack, pickle, json);
    checkpoint #2's JSONB nests far beyond Python's recursion limit; #3 is the paused head.
    """
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.types.json import Jsonb

    values = ext_values(folder)
    blobs = {name: ("msgpack", ormsgpack.packb(value)) for name, value in values.items()}
    blobs.update({
        "pickled": ("pickle", pickle_blob(folder)),
        "call": ("json", json.dumps(lc_envelope(folder)).encode()),
        "broken": ("msgpack", b"\xc1\xc1 not msgpack"),
        "deep": ("msgpack", deep_blob()),
        "huge": ("msgpack", huge_array_blob()),
        "odd": ("strange-type", b"1234"),
    })
    with psycopg.connect(url, autocommit=True) as conn:
        PostgresSaver(conn).setup()
        versions = {name: "1" for name in blobs}
        deep = '{"v": 4, "channel_values": {"deep": ' + "[" * 5000 + "]" * 5000 + "}}"
        checkpoints = [
            (IDS[0], None, json.dumps(_checkpoint(IDS[0], {}, versions, None))),
            (IDS[1], IDS[0], deep),
            (IDS[2], IDS[1], json.dumps(_checkpoint(IDS[2], {}, {"order": "1"}, "approve"))),
        ]
        for step, (cid, parent, checkpoint) in enumerate(checkpoints):
            conn.execute(
                "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, "
                "parent_checkpoint_id, type, checkpoint, metadata) "
                "VALUES (%s, '', %s, %s, NULL, %s::jsonb, %s)",
                (THREAD, cid, parent, checkpoint, Jsonb(json.loads(_metadata(step)))),
            )
        for name, (type_, blob) in blobs.items():
            conn.execute(
                "INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type,"
                " blob) VALUES (%s, '', %s, '1', %s, %s)", (THREAD, name, type_, blob))
        for idx, (task_path, channel, type_, blob) in enumerate(_writes(folder)):
            conn.execute(
                "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id,"
                " task_path, idx, channel, type, blob) VALUES (%s, '', %s, 't1', %s, %s, %s, %s,"
                " %s)", (THREAD, IDS[2], task_path, idx, channel, type_, blob))
        conn.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint,"
            " metadata) VALUES (%s, '', %s, NULL, %s, %s)",
            (PLAIN_THREAD, IDS[0], Jsonb(_checkpoint(IDS[0], {"note": "hello"}, {}, None,
                                                     ts="2026-11-29T08:00:00+00:00")),
             Jsonb(json.loads(_metadata(0, "input")))))
