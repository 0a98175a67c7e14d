"""The statements the Postgres kind's reads send, as constants (the thread list's are in
thread_list.py, the writes' in writes.py, the tables' set-up in connections.py, the store
log's in places/base.py)."""

from __future__ import annotations

# Every statement. A template's {placeholders} are filled with SQL the code builds
# (a column list, an optional clause, the heads' subquery), never with data: values are always
# bound (%s, %(name)s).

# Opening: a session that refuses writes (the saver's tables are checked in
# connections.py).
READ_ONLY_SESSION = "SET default_transaction_read_only = on"

# Reads.
SELECT_NAMESPACES = (
    "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = %s "
    "ORDER BY checkpoint_ns")
# A thread's line of the thread list: its checkpoints, head, bytes and branch tips.
THREAD_AGGREGATES = (
    "count(*) AS n, max(c.checkpoint_id) AS head, "
    "sum(octet_length(c.checkpoint::text) + octet_length(c.metadata::text)) AS bytes, "
    "count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM checkpoints k WHERE "
    "  k.thread_id = c.thread_id AND k.checkpoint_ns = '' AND "
    "  k.parent_checkpoint_id = c.checkpoint_id)) AS leaves ")
SELECT_THREAD_AGGREGATES = (
    f"SELECT c.thread_id, {THREAD_AGGREGATES}"
    "FROM checkpoints c WHERE c.checkpoint_ns = '' GROUP BY c.thread_id")
SELECT_THREAD_BLOB_BYTES = (
    "SELECT thread_id, sum(size) AS size FROM ("
    " SELECT thread_id, octet_length(blob) AS size FROM checkpoint_blobs "
    "  WHERE checkpoint_ns = ''"
    " UNION ALL SELECT thread_id, octet_length(blob) FROM checkpoint_writes "
    "  WHERE checkpoint_ns = '') parts GROUP BY thread_id")
# One thread's own aggregates for its line of the thread list (the list's own SQL is in
# thread_list.py).
SELECT_ONE_THREAD = (
    f"SELECT {THREAD_AGGREGATES}"
    "FROM checkpoints c WHERE c.thread_id = %(thread)s AND c.checkpoint_ns = ''")
SELECT_ONE_THREAD_BLOB_BYTES = (
    "SELECT (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs "
    " WHERE thread_id = %(thread)s AND checkpoint_ns = '') + "
    "(SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes "
    " WHERE thread_id = %(thread)s AND checkpoint_ns = '') AS size")
SELECT_RECORDS = (
    "SELECT checkpoint_id, parent_checkpoint_id, metadata->>'step' AS step, "
    "metadata->>'source' AS source, left(metadata->>'run_id', 100) AS run_id, "
    "left(metadata->>'run_started_at', 100) AS run_started, "
    "left(metadata->>'playground_action', 100) AS action, "
    "octet_length(checkpoint::text) AS blob, "
    "octet_length(metadata::text) AS meta, checkpoint->'channel_versions' AS versions "
    "FROM checkpoints WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
    "ORDER BY checkpoint_id")
SELECT_RECORD_BLOB_SIZES = (
    "SELECT channel, version, octet_length(blob) AS size FROM checkpoint_blobs "
    "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s")
SELECT_CHECKPOINT_WRITE_BYTES = (
    "SELECT checkpoint_id, sum(octet_length(blob)) AS size FROM checkpoint_writes "
    "WHERE thread_id = %(thread_id)s AND checkpoint_ns = %(ns)s "
    "GROUP BY checkpoint_id")
# Each checkpoint's blobs, one primary-key lookup per channel version it names. The LIMIT keeps
# the lookup a subquery of its own: joined plainly, the planner hashes every blob of the thread
# once per checkpoint (13 s for 10,000 checkpoints, against 0.2 s this way).
# A checkpoint's value blobs: those of the channels its versions name that match a pattern.
BLOBS_OF_ROW = (
    " (SELECT array_agg(array[bl.channel::bytea, bl.type::bytea, bl.blob]) "
    "  FROM jsonb_each_text(CASE jsonb_typeof(c.checkpoint->'channel_versions') "
    "   WHEN 'object' THEN c.checkpoint->'channel_versions' ELSE '{}' END) v "
    "  CROSS JOIN LATERAL (SELECT b.channel, b.type, b.blob FROM checkpoint_blobs b "
    "   WHERE b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns "
    "   AND b.channel = v.key AND b.version = v.value LIMIT 1) bl "
    "  WHERE v.key LIKE ANY(%(channels)s)) AS blobs ")
SELECT_CHECKPOINTS = (
    "SELECT c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, " + BLOBS_OF_ROW +
    "FROM checkpoints c WHERE c.thread_id = %(t)s AND c.checkpoint_ns = %(ns)s "
    "AND c.checkpoint_id = ANY(%(ids)s)")
# One checkpoint of each of many threads (a page's heads), and the questions, answers and errors
# stored under them: (thread, checkpoint) pairs given as two arrays.
PAIRS = ("unnest(%(threads)s::text[], %(ids)s::text[]) AS k(thread_id, checkpoint_id)")
SELECT_CHECKPOINTS_OF_THREADS = (
    "SELECT c.thread_id, c.checkpoint_id, c.parent_checkpoint_id, c.checkpoint, "
    + BLOBS_OF_ROW + f"FROM {PAIRS} JOIN checkpoints c ON c.thread_id = k.thread_id "
    "AND c.checkpoint_ns = '' AND c.checkpoint_id = k.checkpoint_id")
SELECT_WRITES_OF_THREADS = (
    "SELECT w.thread_id, w.checkpoint_id, w.task_path, w.channel, w.type, w.blob "
    f"FROM {PAIRS} JOIN checkpoint_writes w ON w.thread_id = k.thread_id "
    "AND w.checkpoint_ns = '' AND w.checkpoint_id = k.checkpoint_id "
    "WHERE w.channel = ANY(%(channels)s) ORDER BY w.thread_id, w.task_path, w.task_id, w.idx")
# A checkpoint's next ancestors' ids, newest first, along the parent links, at most %(limit)s
# steps at a time. The LATERAL ... LIMIT 1 keeps each step one primary-key lookup: joined
# plainly, the planner scans the thread's every row for each step (seen without statistics).
SELECT_ANCESTRY = (
    "WITH RECURSIVE chain(checkpoint_id, parent_checkpoint_id, n) AS ("
    "SELECT checkpoint_id, parent_checkpoint_id, 0 FROM checkpoints WHERE thread_id = %(t)s "
    "AND checkpoint_ns = %(ns)s AND checkpoint_id = %(id)s UNION ALL "
    "SELECT c.checkpoint_id, c.parent_checkpoint_id, a.n + 1 FROM chain a CROSS JOIN LATERAL "
    "(SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = %(t)s "
    "AND checkpoint_ns = %(ns)s AND checkpoint_id = a.parent_checkpoint_id LIMIT 1) c "
    "WHERE a.n < %(limit)s) "
    "SELECT checkpoint_id, parent_checkpoint_id FROM chain ORDER BY n")
SELECT_METADATA = (
    "SELECT metadata FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s "
    "AND checkpoint_id = %(id)s")
# {task_path} is the column, or '' for a database without it (LangGraph.js, older Python).
WRITES = (
    "SELECT checkpoint_id, {task_path} AS task_path, task_id, channel, type, blob "
    "FROM checkpoint_writes WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND {where} "
    "ORDER BY checkpoint_id, {order}task_id, idx")
# Who wrote what under which checkpoint, without the values (a timeline's writers).
WRITE_OWNERS = (
    "SELECT checkpoint_id, task_path, task_id, channel FROM checkpoint_writes "
    "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND checkpoint_id = ANY(%(c)s) "
    "ORDER BY checkpoint_id, task_path, task_id, idx")
# A checkpoint's ts is a key of its JSONB row: read by the server, no blob fetched (and cut
# where no time is that long: parse_time refuses it then).
SELECT_TIMES = (
    "SELECT checkpoint_id, left(checkpoint->>'ts', 65) AS ts FROM checkpoints "
    "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND checkpoint_id = ANY(%(c)s)")
# versions_seen["__interrupt__"] (decode.interrupt_seen: where it moves, a run resumed).
SELECT_RESUME_MARKS = (
    "SELECT checkpoint_id, checkpoint->'versions_seen'->'__interrupt__' AS seen FROM checkpoints "
    "WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s AND checkpoint_id = ANY(%(c)s)")
HAS_TASK_PATH = (
    "SELECT count(*) AS n FROM information_schema.columns WHERE table_schema = "
    "current_schema() AND table_name = 'checkpoint_writes' AND column_name = 'task_path'")
# A sample of the rows' types (a scan of every row would be as long as the database is big).
HAS_JSON_ROWS = (
    "SELECT 'json' IN (SELECT type FROM checkpoint_blobs LIMIT 50) OR 'json' IN (SELECT type "
    "FROM checkpoint_writes LIMIT 50) AS json")
EVERY_WRITE = "TRUE"
AND_CHECKPOINT_ID_ANY = " AND checkpoint_id = ANY(%(c)s)"
AND_CHANNEL_ANY = " AND channel = ANY(%(channels)s)"
THREAD_IDS = "SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''"
METADATA = ("SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = %(t)s AND "
             "checkpoint_ns = %(ns)s")
SELECT_FINGERPRINT = (
    "SELECT count(*) AS n, max(checkpoint_id) AS newest, "
    "(SELECT md5(checkpoint::text) FROM checkpoints WHERE thread_id = %(t)s AND "
    " checkpoint_ns = %(ns)s ORDER BY checkpoint_id DESC LIMIT 1) AS head, "
    "(SELECT count(*) FROM checkpoint_writes WHERE thread_id = %(t)s AND "
    " checkpoint_ns = %(ns)s) AS writes "
    "FROM checkpoints WHERE thread_id = %(t)s AND checkpoint_ns = %(ns)s")

# The store: LangGraph's store table, if the database has one.
HAS_STORE_TABLE = (
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = "
    "current_schema() AND table_name = 'store' AND table_type = 'BASE TABLE'")
SELECT_STORE_ITEMS = (
    "SELECT prefix, key, CASE WHEN octet_length(value::text) > %s THEN NULL "
    "ELSE value::text END AS value, octet_length(value::text) AS size, "
    "created_at::text AS created_at, updated_at::text AS updated_at FROM store "
    "ORDER BY prefix, key LIMIT %s")

# Channels whose values decide what runs next (records.next_nodes): the input, the branch
# triggers and the fan-in barriers. Details read only these blobs, never the state's values.
TRIGGERS = ["\\_\\_start\\_\\_", "branch:to:%", "join:%"]


