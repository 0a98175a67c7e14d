"""``playground prune/migrate/export/import`` as separate processes, on a SQLite file and on
Postgres: the same commands, output and refusals on each."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.playground.databases import Database
from tests.playground.timetravel.sample_graphs import config, make_forked, make_long
from tests.playground.timetravel.test_migrate import SchemaA, SchemaB, ticket_graph


def playground(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "playground.cli", *args],
                          capture_output=True, text=True, timeout=120)


def test_prune_dry_run_reports_and_changes_nothing_then_prune_writes(database):
    make_long(database.saver, "long", turns=20)
    before = database.rows()

    dry = playground("prune", database.target, "--thread", "long", "--keep", "10", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would delete 90 of 100 checkpoints" in dry.stdout
    assert database.rows() == before

    real = playground("prune", database.target, "--thread", "long", "--keep", "10")
    assert real.returncode == 0 and "deleted 90 of 100 checkpoints" in real.stdout
    assert database.count("long") == 10


def test_prune_branch_deletes_one_fork_and_refuses_the_head_branch(database):
    make_forked(database.saver, "forked")
    history = json.loads(playground("history", database.target, "--thread", "forked",
                                    "--json").stdout)
    update = next(c for c in history["checkpoints"] if c["source"] == "update")

    deleted = playground("prune", database.target, "--thread", "forked", "--branch",
                         update["checkpoint_id"])
    refused = playground("prune", database.target, "--thread", "forked", "--branch", "#1")

    assert deleted.returncode == 0 and "deleted 2 of 9 checkpoints" in deleted.stdout
    assert refused.returncode == 2 and "head" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_migrate_is_a_dry_run_until_apply_and_the_thread_then_resumes(database):
    ticket_graph(database.saver, SchemaA, "etag").invoke({"ticket_id": "t7"}, config("a"))
    before = database.rows()

    dry = playground("migrate", database.target, "--rename", "etag=version", "--thread", "a")
    assert dry.returncode == 0, dry.stderr
    assert "a: would rename etag -> version" in dry.stdout
    assert "dry run: nothing changed" in dry.stdout and database.rows() == before

    applied = playground("migrate", database.target, "--rename", "etag=version", "--apply")
    assert applied.returncode == 0 and "a: renamed etag -> version" in applied.stdout
    with database.fresh_saver() as saver:
        result = ticket_graph(saver, SchemaB, "version").invoke(None, config("a"))
    assert result["outcome"] == "wrote at v1-t7"


def test_a_refused_migrate_is_one_line_and_changes_nothing(database):
    ticket_graph(database.saver, SchemaA, "etag").invoke({"ticket_id": "t7"}, config("a"))
    before = database.rows()

    refused = playground("migrate", database.target, "--rename", "etag=outcome", "--thread",
                         "a", "--apply")

    assert refused.returncode == 2 and "already holds a value" in refused.stderr
    assert "Traceback" not in refused.stderr and database.rows() == before


def test_export_then_import_into_a_new_database_round_trips(database, empty_target, tmp_path):
    make_forked(database.saver, "forked")
    exported = playground("export", database.target, "--thread", "forked")
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["storage"] == database.kind
    dump = tmp_path / "forked.json"
    dump.write_text(exported.stdout)

    imported = playground("import", empty_target, str(dump))
    again = playground("import", empty_target, str(dump))

    assert imported.returncode == 0, imported.stderr
    assert "imported thread forked: 9 checkpoints" in imported.stdout
    assert again.returncode == 2 and "already has checkpoints" in again.stderr
    assert Database(database.kind, empty_target, None).rows() == database.rows("forked")
    original = playground("history", database.target, "--thread", "forked", "--json").stdout
    copy = playground("history", empty_target, "--thread", "forked", "--json").stdout
    assert json.loads(copy) == json.loads(original)


def test_an_export_imported_into_the_other_kind_is_refused_and_makes_nothing(database,
                                                                            tmp_path):
    from tests.playground import databases

    make_forked(database.saver, "forked")
    dump = tmp_path / "forked.json"
    dump.write_text(playground("export", database.target, "--thread", "forked").stdout)
    other = "sqlite" if database.kind == "postgres" else "postgres"
    hint = {"sqlite": "import it into a postgresql:// URL", "postgres": "import it into a SQLite"}

    with databases.empty_target(other, tmp_path) as target:
        refused = playground("import", target, str(dump))

        assert refused.returncode == 2 and hint[other] in refused.stderr
        assert "Traceback" not in refused.stderr
        if other == "sqlite":
            assert not (tmp_path / "imported.sqlite").exists()  # no file left behind
        else:
            (tables,) = Database(other, target, None).execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
            assert tables == (0,)  # no saver tables made for a refused import
