"""Benchmarks of the playground; ``make bench`` runs them all and writes bench/RESULTS.md."""

import os


def not_run(name: str, why: str) -> dict:
    """The result of a benchmark that could not run here: one row saying why."""
    return {"rows": [{"name": name, "ours": "not run", "baseline_value": "-", "baseline": why,
                      "ratio": "n/a", "goal": "report"}]}


def fresh_databases(names: tuple[str, ...]) -> tuple[str, ...] | None:
    """Empty databases of these names (dropped first if there) beside
    PLAYGROUND_BENCH_DATABASE_URL's (or the local server's); None where no server answers."""
    import psycopg

    base = os.environ.get("PLAYGROUND_BENCH_DATABASE_URL",
                          "postgresql://postgres@127.0.0.1:5432/postgres")
    try:
        with psycopg.connect(base, autocommit=True, connect_timeout=3) as admin:
            for name in names:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                admin.execute(f"CREATE DATABASE {name}")
    except psycopg.Error:
        return None
    root = base.rsplit("/", 1)[0]
    return tuple(f"{root}/{name}" for name in names)
