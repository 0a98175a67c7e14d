"""The ``playground`` command's subcommands: ``run`` first, and the byte table under its name
``state-sizes`` with ``compare`` still accepted."""

from __future__ import annotations

import argparse

from playground.cli import build_parser


def test_run_is_the_first_command_of_the_help():
    parser = build_parser()
    (sub,) = (action for action in parser._actions
              if isinstance(action, argparse._SubParsersAction))
    listed = [entry.dest for entry in sub._choices_actions]  # as --help lists them
    assert listed[0] == "run"
    assert "state-sizes" in listed
    text = parser.format_help()
    assert text.index("    run ") < text.index("    turn ") < text.index("    state-sizes ")


def test_state_sizes_and_its_old_name_compare_run_the_same_command():
    parser = build_parser()
    new = parser.parse_args(["state-sizes", "--turns", "1,2"])
    old = parser.parse_args(["compare", "--turns", "1,2"])
    assert new.handler is old.handler
    assert (new.turns, old.turns) == ("1,2", "1,2")


def test_run_takes_a_graph():
    args = build_parser().parse_args(["run", "--graph", "app.py:graph", "--port", "9000"])
    assert (args.graph, args.port, args.handler.__module__) == (
        "app.py:graph", 9000, "playground.cli.serve")
