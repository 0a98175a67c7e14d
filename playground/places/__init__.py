"""Where threads live, behind one door.

door.py          ``open_place``: the one code that picks the kind of place a target names;
                 ``KINDS``, where a kind registers by one line
base.py          ``Place``: what every place answers (label, kind, the engine's reads, the saver
                 and store graphs run on, restart, close)
sqlite/          a SQLite file (SqliteSaver's tables; the store in a sibling file), a package
                 by concern: sql, reads, thread_list, writes, place, store_log, own_tables
postgres/        a Postgres database (PostgresSaver's tables, pools, the store; one connect
                 deadline over every host), by concern as sqlite/ is
saver_object.py  any saver object a program hands in, read through the saver
urls.py          database URLs: which are Postgres, the one redactor, what a typed URL may ask
settings.py      every connection's options and timeouts

The engine's read seam, which every kind's reads implement, is
:class:`playground.timetravel.storage.Storage`. See docs/architecture.md.
"""
