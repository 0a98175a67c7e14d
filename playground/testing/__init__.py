"""Helpers that drive the playground from outside, for the tests and the benchmarks.

Nothing in the playground itself imports this package. ``browser`` needs the test extras
(``pip install -e '.[test]'``: Playwright) and Debian's chromium.
"""
