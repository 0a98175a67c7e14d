"""The statements the SQLite kind's reads send, as constants (the thread list's are in
thread_list.py, the writes' in writes.py, the store log's in places/base.py)."""

from __future__ import annotations

from playground.timetravel.decode import (
    RESUME_TAIL_BYTES,
    TS_HEAD_BYTES,
)

# Every statement. A template's {placeholders} are filled with SQL the code builds
# (? marks, a column list, an optional clause), never with data: values are always bound.

# Opening: the file's tables, and a first touch of its data.
SELECT_REQUIRED_TABLES = "SELECT name, type, sql FROM sqlite_master WHERE name IN (?, ?)"
TABLE_INFO = "PRAGMA table_info({table})"
TOUCH_CHECKPOINTS = "SELECT checkpoint_id FROM checkpoints LIMIT 1"

# Reads.
SELECT_THREAD_ROWS = (
    "SELECT thread_id, checkpoint_id, parent_checkpoint_id, "
    "length(checkpoint) + length(metadata) FROM checkpoints WHERE checkpoint_ns = '' "
    "LIMIT ?")
SELECT_THREAD_WRITE_BYTES = "SELECT thread_id, sum(length(value)) FROM writes GROUP BY thread_id"
# One thread's rows and write bytes for its line of the thread list (the list's own SQL is in
# thread_list.py).
SELECT_ONE_THREAD_ROWS = (
    "SELECT thread_id, checkpoint_id, parent_checkpoint_id, "
    "length(checkpoint) + length(metadata) FROM checkpoints WHERE thread_id = ? AND "
    "checkpoint_ns = ''")
SELECT_ONE_THREAD_WRITE_BYTES = "SELECT sum(length(value)) FROM writes WHERE thread_id = ?"
SELECT_HEAD_BLOB = (
    "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND "
    "checkpoint_ns = '' AND checkpoint_id = ?")
SELECT_NAMESPACES = (
    "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ? "
    "ORDER BY checkpoint_ns")
SELECT_CHECKPOINT_WRITE_BYTES = (
    "SELECT checkpoint_id, sum(length(value)) FROM writes "
    "WHERE thread_id = ? AND checkpoint_ns = ? GROUP BY checkpoint_id")
SELECT_RECORDS = (
    "SELECT checkpoint_id, parent_checkpoint_id, CASE WHEN length(metadata) > ? THEN "
    "NULL ELSE metadata END, length(checkpoint), length(metadata), {head} "
    "FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id "
    "LIMIT ?")
SELECT_COUNT_AND_NEWEST = (
    "SELECT count(*), max(checkpoint_id) FROM checkpoints "
    "WHERE thread_id = ? AND checkpoint_ns = ?")
SELECT_CHECKPOINT_BLOB = (
    "SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
    "AND checkpoint_id = ?")
COUNT_NAMESPACE_WRITES = "SELECT count(*) FROM writes WHERE thread_id = ? AND checkpoint_ns = ?"
SELECT_BLOBS_IN = (
    "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint FROM "
    "checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
    "AND checkpoint_id IN ({marks})")
SELECT_TYPED_BLOB = (
    "SELECT type, checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
    "AND checkpoint_id = ?")
# A checkpoint's next ancestors' ids, newest first, along the parent links: each step one
# primary-key lookup that reads no blob (CROSS JOIN keeps the walk the outer loop, as
# SqliteSaver's own walk does), at most ?4 steps at a time.
SELECT_ANCESTRY = (
    "WITH RECURSIVE chain(checkpoint_id, parent_checkpoint_id, n) AS ("
    "SELECT checkpoint_id, parent_checkpoint_id, 0 FROM checkpoints "
    "WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id = ?3 "
    "UNION ALL SELECT c.checkpoint_id, c.parent_checkpoint_id, a.n + 1 FROM chain a "
    "CROSS JOIN checkpoints c ON c.thread_id = ?1 AND c.checkpoint_ns = ?2 "
    "AND c.checkpoint_id = a.parent_checkpoint_id WHERE a.n < ?4) "
    "SELECT checkpoint_id, parent_checkpoint_id FROM chain ORDER BY n")
SELECT_BLOBS_AND_META_IN = (
    "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, CASE WHEN length(metadata) "
    "> ? THEN NULL ELSE metadata END FROM checkpoints WHERE thread_id = ? AND "
    "checkpoint_ns = ? AND checkpoint_id IN ({marks})")
THREAD_IDS = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
STORED_CHECKPOINTS = (
    "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, CASE WHEN length(metadata) "
    "> ? THEN NULL ELSE metadata END FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
    "ORDER BY checkpoint_id LIMIT ?")
# {task_path} and {order} are the column and order a file has: task_path, or for a file without
# that column the order rows were stored in.
WRITES = ("SELECT checkpoint_id, {task_path}, task_id, channel, type, value FROM writes "
           "WHERE {where} ORDER BY checkpoint_id, {order}")
# Who wrote what under which checkpoint, without the values (a timeline's writers), in the
# primary key's order (ordering by task path too would cost a sort of every row).
WRITE_OWNERS = ("SELECT checkpoint_id, task_path, task_id, channel FROM writes "
                 "WHERE {where} ORDER BY checkpoint_id")
# Each checkpoint's ts, from its blob's head: first where Python's LangGraph puts it
# (decode.ts_at_head), then, for the blobs that had none there, by reading the head
# (decode.checkpoint_time); a JSON blob (LangGraph.js) comes whole, as JSON keeps no order of
# keys to rely on.
TIME_HEAD = f"substr(checkpoint, 1, {TS_HEAD_BYTES})"
SELECT_TIME_HEADS = f"SELECT checkpoint_id, {TIME_HEAD} FROM checkpoints WHERE {{where}}"
SELECT_TIMES = (
    "SELECT checkpoint_id, CASE WHEN type = 'json' THEN checkpoint ELSE "
    "substr(checkpoint, 1, 96) END, type FROM checkpoints WHERE {where}")
# Each checkpoint's last bytes, where versions_seen sits (decode.interrupt_seen); JSON whole.
SELECT_TAILS = (
    "SELECT checkpoint_id, type, CASE WHEN type = 'json' THEN checkpoint ELSE substr(checkpoint, "
    f"max(1, length(checkpoint) - {RESUME_TAIL_BYTES - 1})) END FROM checkpoints WHERE {{where}}")
WITH_TASK_PATH = {"task_path": "task_path", "order": "task_path, idx"}
WITHOUT_TASK_PATH = {"task_path": "''", "order": "rowid"}
SELECT_ROW_TYPES = "SELECT DISTINCT type FROM (SELECT type FROM checkpoints LIMIT 50)"
WRITES_OF_NAMESPACE = "thread_id = ? AND checkpoint_ns = ?"
CHECKPOINTS_OF_NAMESPACE = WRITES_OF_NAMESPACE  # the same columns lead both primary keys
AND_CHANNEL_IN = " AND channel IN ({marks})"
AND_CHECKPOINT_ID_IN = " AND checkpoint_id IN ({marks})"

# The store: LangGraph's store table, if the file has one.
HAS_STORE_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'store'"
SELECT_STORE_ITEMS = (
    "SELECT prefix, key, CASE WHEN length(value) > ? THEN NULL ELSE value END, "
    "length(value), created_at, updated_at FROM store ORDER BY prefix, key LIMIT ?")

