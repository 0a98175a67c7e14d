"""Databases and exports built to hurt a reader: to make it loop, wait or allocate without end,
or to put markup in a viewer's page. One writer per class of attack, SQLite and Postgres.

- parent cycles: a checkpoint that is its own parent; two that name each other beside a branch;
- views instead of tables: an endless recursive CTE, a view of 200,000 rows, (Postgres) a view
  that sleeps;
- deep nesting: a 1 KB value nested 1,000 levels; an export nested 100,000 levels;
- blowup within the size limit: a 30 MB blob of 3-byte extension values; a 10 MB thread id;
- markup: every text field (chat text, tool names and arguments, ids, source, writers, next
  node, ts, an interrupt's question and node, an error, an answer, a state key) carrying a
  markdown image pointing at a local "pixel", a fake link and raw HTML.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import ormsgpack

CYCLE_THREAD = "loops"
ROOT, LOOP_A, LOOP_B, BRANCH = (f"1f0a0000-0000-6000-8000-{i:012d}" for i in range(1, 5))


def _ids(n: int) -> list[str]:
    return [f"1f0a0000-0000-6000-8000-{i:012d}" for i in range(1, n + 1)]


def _checkpoint(cid: str, values: dict | None = None, next_node: str | None = None,
                seen: dict | None = None, ts: str = "2026-11-30T12:00:00+00:00") -> bytes:
    values = dict(values or {})
    versions = {key: "1" for key in values}
    if next_node:
        values[f"branch:to:{next_node}"] = None
        versions[f"branch:to:{next_node}"] = "9"
    return ormsgpack.packb({"v": 4, "ts": ts, "id": cid, "channel_values": values,
                            "channel_versions": versions,
                            "versions_seen": seen or {"__start__": {"__start__": "1"}},
                            "updated_channels": None})


def _metadata(step: int = 0, source: str = "loop") -> bytes:
    return json.dumps({"source": source, "step": step, "parents": {}}).encode()


def _saver_file(path: Path) -> sqlite3.Connection:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path)
    SqliteSaver(conn).setup()
    return conn


def _insert(conn: sqlite3.Connection, thread: str, rows: list[tuple]) -> None:
    conn.executemany(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,"
        " type, checkpoint, metadata) VALUES (?, '', ?, ?, 'msgpack', ?, ?)",
        [(thread, cid, parent, blob, _metadata(step)) for step, (cid, parent, blob)
         in enumerate(rows)])


# -- parent cycles ------------------------------------------------------------------------------


def write_cycles(path: Path) -> Path:
    """Thread ``self``: one checkpoint whose parent is itself. Thread ``loops``: a root, then
    A and B naming each other, and C a branch off the root."""
    a, b, c, root = LOOP_A, LOOP_B, BRANCH, ROOT
    conn = _saver_file(path)
    _insert(conn, "self", [(root, root, _checkpoint(root))])
    _insert(conn, CYCLE_THREAD, [(root, None, _checkpoint(root)), (a, b, _checkpoint(a)),
                                 (b, a, _checkpoint(b)), (c, root, _checkpoint(c))])
    conn.commit()
    conn.close()
    return path


def cycle_export() -> dict:
    """A small export (a few hundred bytes) whose only checkpoint is its own parent."""
    blob = base64.b64encode(_checkpoint(ROOT)).decode()
    meta = base64.b64encode(_metadata()).decode()
    return {"format": "langgraph-playground-thread", "version": 1, "storage": "sqlite",
            "thread_id": "self", "checkpoints": [
                {"checkpoint_ns": "", "checkpoint_id": ROOT, "parent_checkpoint_id": ROOT,
                 "type": "msgpack", "checkpoint": blob, "metadata": meta}],
            "writes": []}


def deep_export(levels: int = 100_000) -> str:
    """Export text nested ``levels`` deep (a JSON parser recursing on it runs out of stack)."""
    return '{"format": "langgraph-playground-thread", "deep": ' + "[" * levels + \
        "]" * levels + "}"


# -- views instead of tables ---------------------------------------------------------------------

_WRITES = ("CREATE TABLE writes (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
           "task_id TEXT, task_path TEXT, idx INT, channel TEXT, type TEXT, value BLOB)")


def write_endless_view(path: Path) -> Path:
    """A 4 KB file whose ``checkpoints`` is a recursive CTE that never ends."""
    conn = sqlite3.connect(path)
    conn.executescript(f"""{_WRITES};
        CREATE VIEW checkpoints AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1
        FROM r) SELECT 't' AS thread_id, '' AS checkpoint_ns, printf('%020d', n) AS
        checkpoint_id, NULL AS parent_checkpoint_id, 'msgpack' AS type, x'80' AS checkpoint,
        '{{}}' AS metadata FROM r;""")
    conn.close()
    return path


def write_rows_view(path: Path, rows: int = 200_000) -> Path:
    """``checkpoints`` as a view of ``rows`` generated rows (each read of it rescans them)."""
    conn = sqlite3.connect(path)
    conn.executescript(f"""{_WRITES};
        CREATE VIEW checkpoints AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1
        FROM r WHERE n < {rows}) SELECT 't' AS thread_id, '' AS checkpoint_ns,
        printf('%020d', n) AS checkpoint_id, CASE WHEN n > 1 THEN printf('%020d', n - 1) END
        AS parent_checkpoint_id, 'msgpack' AS type, x'80' AS checkpoint, '{{}}' AS metadata
        FROM r;""")
    conn.close()
    return path


def write_postgres_sleeping_view(url: str, seconds: int = 600) -> None:
    """PostgresSaver-named relations where ``checkpoints`` is a view over ``pg_sleep``."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE checkpoint_blobs (thread_id TEXT, checkpoint_ns TEXT, "
                     "channel TEXT, version TEXT, type TEXT, blob BYTEA)")
        conn.execute("CREATE TABLE checkpoint_writes (thread_id TEXT, checkpoint_ns TEXT, "
                     "checkpoint_id TEXT, task_id TEXT, task_path TEXT, idx INT, channel TEXT, "
                     "type TEXT, blob BYTEA)")
        conn.execute(f"CREATE VIEW checkpoints AS SELECT 't'::text AS thread_id, ''::text AS "
                     f"checkpoint_ns, 'c'::text AS checkpoint_id, NULL::text AS "
                     f"parent_checkpoint_id, NULL::text AS type, '{{}}'::jsonb AS checkpoint, "
                     f"'{{}}'::jsonb AS metadata FROM pg_sleep({seconds})")


# -- deep and huge values -------------------------------------------------------------------------


def _nested(levels: int) -> bytes:
    return b"\x91" * levels + b"\xc0"


def write_deep_value(path: Path, levels: int = 1_000) -> Path:
    """Thread ``deep``: its head's state key ``tree`` holds a value nested ``levels`` deep
    (about 1 KB), which the decoder passes and every recursive walker would choke on."""
    a, b = _ids(2)
    # Spliced in as bytes: ormsgpack's own packer refuses to nest this deep.
    deep = _checkpoint(b, {"tree": None}).replace(b"\xa4tree\xc0", b"\xa4tree" + _nested(levels))
    conn = _saver_file(path)
    _insert(conn, "deep", [(a, None, _checkpoint(a, {"tree": []})), (b, a, deep)])
    conn.commit()
    conn.close()
    return path


def blowup_blob(megabytes: int = 30) -> bytes:
    """A msgpack array of 3-byte extension values, under the 32 MB blob limit."""
    count = megabytes * 1024 * 1024 // 3
    one = b"\xd4\x05\xc0"  # fixext 1, code 5 (a pydantic model), payload nil
    header = b"\xdd" + count.to_bytes(4, "big")
    return header + one * count


def write_blowup(path: Path) -> Path:
    """Thread ``blowup``: one checkpoint whose ``items`` is :func:`blowup_blob`."""
    (cid,) = _ids(1)
    blob = _checkpoint(cid, {"items": None}).replace(b"\xa5items\xc0",
                                                     b"\xa5items" + blowup_blob())
    conn = _saver_file(path)
    _insert(conn, "blowup", [(cid, None, blob)])
    conn.commit()
    conn.close()
    return path


def write_long_thread_id(path: Path, megabytes: int = 10) -> Path:
    """A thread whose id is ``megabytes`` long, beside a normal one."""
    (cid,) = _ids(1)
    conn = _saver_file(path)
    _insert(conn, "x" * (megabytes * 1024 * 1024), [(cid, None, _checkpoint(cid))])
    _insert(conn, "normal", [(cid, None, _checkpoint(cid))])
    conn.commit()
    conn.close()
    return path


# -- markup in every text field -------------------------------------------------------------------


def payload(pixel_url: str) -> str:
    """Markdown and HTML that would fetch ``pixel_url`` or dress a link, if rendered."""
    return (f"![pixel]({pixel_url}) [Sign in again]({pixel_url}/login) "
            f"<img src=\"{pixel_url}/html\" onerror=\"alert(1)\"> **bold** :red[red]")


def write_markup(path: Path, pixel_url: str) -> Path:
    """Thread ``<payload>``: every text the pages show carries :func:`payload`."""
    text = payload(pixel_url)
    first, head = _ids(2)
    message = {"content": text, "type": "human", "id": f"m-{text}"}
    call = {"name": f"tool {text}", "args": {"q": text}, "id": f"c-{text}", "type": "tool_call"}
    ai = {"content": text, "type": "ai", "id": f"a-{text}", "tool_calls": [call]}
    tool = {"content": text, "type": "tool", "id": f"t-{text}", "name": f"tool {text}",
            "tool_call_id": f"c-{text}"}

    def msg(module: str, cls: str, fields: dict) -> ormsgpack.Ext:
        return ormsgpack.Ext(5, ormsgpack.packb((module, cls, fields, "model_validate_json")))

    values = {
        "messages": [msg("langchain_core.messages.human", "HumanMessage", message),
                     msg("langchain_core.messages.ai", "AIMessage", ai),
                     msg("langchain_core.messages.tool", "ToolMessage", tool)],
        f"key {text}": text,
    }
    seen = {"__start__": {"__start__": "1"}, f"node {text}": {"messages": "1"}}
    conn = _saver_file(path)
    conn.executemany(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,"
        " type, checkpoint, metadata) VALUES (?, '', ?, ?, 'msgpack', ?, ?)",
        [(text, first, None, _checkpoint(first, {}, None, None, ts=text),
          json.dumps({"source": text, "step": 0}).encode()),
         (text, head, first, _checkpoint(head, values, f"next {text}", seen, ts=text),
          json.dumps({"source": text, "step": 1}).encode())])
    question = ormsgpack.Ext(2, ormsgpack.packb(("langgraph.types", "Interrupt", {
        "value": {"question": text}, "id": "i-1"})))
    writes = [(f"~__pregel_pull, asker {text}", "__interrupt__", ormsgpack.packb([question])),
              (f"~__pregel_pull, failer {text}", "__error__", ormsgpack.packb(text)),
              (f"~__pregel_pull, answerer {text}", "__resume__", ormsgpack.packb(text))]
    conn.executemany(
        "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx,"
        " channel, type, value) VALUES (?, '', ?, 't1', ?, ?, ?, 'msgpack', ?)",
        [(text, head, task_path, idx, channel, blob)
         for idx, (task_path, channel, blob) in enumerate(writes)])
    conn.commit()
    conn.close()
    return path
