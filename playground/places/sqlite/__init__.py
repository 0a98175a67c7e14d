"""A SQLite file as a place threads live, one module per concern:

- :mod:`.place`: the place (:class:`SqliteFile`): what it claims, its savers and store;
- :mod:`.reads`: the engine's reads (:class:`SqliteStorage`), the read seam;
- :mod:`.sql`: the statements the reads send;
- :mod:`.thread_list`: the thread list's walk and filters, in SQL;
- :mod:`.writes`: the write primitives (edit, fork, prune, migrate, import);
- :mod:`.guard`: a read's deadline, interrupt and lock errors;
- :mod:`.store_log`: the log of store changes.
"""

from playground.places.sqlite.place import SqliteFile
from playground.places.sqlite.reads import SqliteStorage

__all__ = ["SqliteFile", "SqliteStorage"]
