"""Benchmarks of the playground; ``make bench`` runs them all and writes bench/RESULTS.md."""
