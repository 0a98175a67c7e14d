"""A Postgres database as a place threads live, one module per concern:

- :mod:`.place`: the place (:class:`PostgresDatabase`): what it claims, its savers and store;
- :mod:`.reads`: the engine's reads (:class:`PostgresStorage`), the read seam;
- :mod:`.sql`: the statements the reads send;
- :mod:`.thread_list`: the thread list's walk and filters, in SQL;
- :mod:`.writes`: the write primitives (edit, fork, prune, migrate, import);
- :mod:`.connections`: connections, pools, deadlines and the saver's tables' set-up;
- :mod:`.store_log`: the log of store changes.
"""

from playground.places.postgres.place import PostgresDatabase
from playground.places.postgres.reads import PostgresStorage

__all__ = ["PostgresDatabase", "PostgresStorage"]
