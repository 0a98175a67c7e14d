"""Checkpoints of a PostgresSaver database, through the official saver.

For now the reads go through :class:`SaverSource` (the saver's own ``list``), which is correct for
every feature and slower than SQL on very long threads. PostgresSaver stores each channel value
once per version in ``checkpoint_blobs``, so its byte counts differ from SQLite's: a checkpoint row
holds only versions and small inline values.
"""

from __future__ import annotations

import re

from playground.timetravel.errors import CheckpointDbError
from playground.timetravel.saver_source import SaverSource

_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@]+:)[^@]*@")


def redact(url: str) -> str:
    """A Postgres URL with its password replaced, safe to print or show."""
    return _PASSWORD.sub(r"\1***@", url)


class PostgresSource(SaverSource):
    """A Postgres database written by PostgresSaver.

    Raises:
        CheckpointDbError: the server cannot be reached, or has no PostgresSaver tables.
    """

    kind = "postgres"

    def __init__(self, url: str, writable: bool = False) -> None:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        self.writable = writable
        try:
            self.conn = psycopg.connect(url, autocommit=True, prepare_threshold=0,
                                        row_factory=dict_row, connect_timeout=10)
        except psycopg.Error as exc:
            raise CheckpointDbError(f"{redact(url)}: cannot connect ({exc})".strip()) from None
        found = {
            row["table_name"]
            for row in self.conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                "current_schema() AND table_name IN ('checkpoints', 'checkpoint_blobs', "
                "'checkpoint_writes')"
            )
        }
        if len(found) < 3:
            self.conn.close()
            raise CheckpointDbError(
                f"{redact(url)}: not a LangGraph checkpoint database (no PostgresSaver tables)"
            )
        super().__init__(PostgresSaver(self.conn))
        self.label = redact(url)

    def saver(self):
        """The PostgresSaver (for edits and replays), only when opened writable."""
        if not self.writable:
            raise CheckpointDbError(f"{self.label} is open read-only: reopen it writable to edit")
        return super().saver()

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()
