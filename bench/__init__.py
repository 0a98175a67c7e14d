"""Benchmarks of the playground; ``make bench`` runs them all and writes bench/RESULTS.md."""


def not_run(name: str, why: str) -> dict:
    """The result of a benchmark that could not run here: one row saying why."""
    return {"rows": [{"name": name, "ours": "not run", "baseline_value": "-", "baseline": why,
                      "ratio": "n/a", "goal": "report"}]}
