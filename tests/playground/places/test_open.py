"""Database URLs: the one redactor, and what a URL typed into a page may make the server do."""

from __future__ import annotations

import pytest

from playground.places.urls import UrlRefused, redact_url, typed_connection


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://u:secret@host/db", "postgresql://u:***@host/db"),
    ("postgresql://u:p@ss@host/db", "postgresql://u:***@host/db"),
    ("postgresql://u@host/db?password=secret&sslmode=require",
     "postgresql://u@host/db?password=***&sslmode=require"),
    ("postgres://host/db", "postgres://host/db"),
])
def test_the_redactor_hides_every_password_a_url_can_carry(url, shown):
    assert redact_url(url) == shown


def _typed(url: str) -> dict:
    return typed_connection(url, connect_cap=10, statement_timeout=20)


def test_a_typed_url_connects_with_nothing_of_the_servers(monkeypatch):
    monkeypatch.setenv("PGPASSWORD", "the-servers-own")
    monkeypatch.setenv("PGPASSFILE", "/root/.pgpass")

    where = _typed("postgresql://app@db.internal.example:6543/playground")

    assert where["host"] == "db.internal.example" and where["port"] == 6543
    assert where["user"] == "app" and where["dbname"] == "playground"
    assert where["password"] != "the-servers-own"  # a stand-in: PGPASSWORD is not looked up
    assert where["passfile"].startswith("/nonexistent/")  # nor the server's pgpass
    assert where["sslcert"].startswith("/nonexistent/")  # nor its client certificate
    assert where["options"] == "-c statement_timeout=20000"
    assert where["connect_timeout"] == 10


def test_a_typed_url_keeps_the_password_it_carries():
    assert _typed("postgresql://app:p%40ss@h/db")["password"] == "p@ss"


@pytest.mark.parametrize("url", [
    "postgresql://app@db.internal.example/playground?hostaddr=203.0.113.9",
    "postgresql://app@h1,h2/db",
    "postgresql://app@h/db?passfile=/tmp/p",
    "postgresql://app@h/db?service=prod",
    "postgresql://app@h/db?options=-c%20x",
    "postgresql://app@h/db?sslmode=trust-me",
    "postgresql://app@h/db?connect_timeout=3600",
    "postgresql://app@%2Fvar%2Frun%2Fpostgresql/db",
    "postgresql://app@h:notaport/db",
])
def test_a_typed_url_asking_for_more_than_one_database_is_refused(url):
    with pytest.raises(UrlRefused):
        _typed(url)


def test_a_server_whose_environment_names_a_service_refuses_typed_urls(monkeypatch):
    monkeypatch.setenv("PGSERVICE", "prod")

    with pytest.raises(UrlRefused, match="environment sets PGSERVICE"):
        _typed("postgresql://app@h/db")
