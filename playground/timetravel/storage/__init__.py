"""Where checkpoints live, behind one protocol: each database is a backend of its own.

base.py      the Storage protocol (reads, and the few primitives prune, migrate and transfer
             need), and the value types every backend returns; it imports no backend
sqlite.py    a SqliteSaver file: its SQL and row shapes
postgres.py  a PostgresSaver database: its SQL and row shapes (JSONB, blobs per version)
saver.py     any BaseCheckpointSaver object, read-only, through its own ``list``
open.py      ``open_storage``: the one place the engine, the CLI, the pages and the lessons
             connect, picking the backend
urls.py      database URLs: which are Postgres, the one redactor, what a typed URL may ask for
settings.py  the options and timeouts of every checkpoint connection (PLAYGROUND_SQLITE_TIMEOUT,
             Postgres's), which the savers that run graphs use too

A third backend is one more file here: a class with base.Storage's attributes and methods, and
a line in open_storage that picks it.
"""
