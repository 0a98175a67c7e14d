"""The ticket API on its own: its redactor shows URLs as the playground's does, and a SQLite
store makes its file's folder."""

from __future__ import annotations

import pytest

from playground.places.urls import redact_url as playground_redact_url
from ticket_api.ticket_store_sqlite import TicketStore, open_store
from ticket_api.urls import redact_url

URLS = [
    ("postgresql://u:secret@host/db", "postgresql://u:***@host/db"),
    ("postgresql://u:p@ss@host/db", "postgresql://u:***@host/db"),
    ("postgresql://u:a@b@c@host:5433/db?sslmode=require", "postgresql://u:***@host:5433/db"
     "?sslmode=require"),
    ("postgresql://u@host/db?password=secret&sslmode=require",
     "postgresql://u@host/db?password=***&sslmode=require"),
    ("postgresql://u@host/db?sslmode=require&PASSWORD=secret",
     "postgresql://u@host/db?sslmode=require&PASSWORD=***"),
    ("postgres://host/db", "postgres://host/db"),
    (".playground/tickets.sqlite", ".playground/tickets.sqlite"),
]


@pytest.mark.parametrize(("url", "shown"), URLS)
def test_the_api_redactor_hides_every_password_as_the_playgrounds_does(url, shown):
    assert redact_url(url) == shown
    assert redact_url(url) == playground_redact_url(url)


def test_a_sqlite_store_makes_its_files_missing_folder(tmp_path):
    path = tmp_path / "new" / "deeper" / "tickets.sqlite"
    store = TicketStore(str(path))
    try:
        assert store.get_ticket("a", "t7") is not None
    finally:
        store.close()
    assert path.is_file()

    again = open_store(str(tmp_path / "other" / "tickets.sqlite"))
    again.close()
    assert (tmp_path / "other" / "tickets.sqlite").is_file()
