"""How to add ``playground mcp`` to an MCP client, written once.

``playground mcp --help`` prints these texts under its options (:func:`setup_epilog`), the
README shows the same ones, and a test checks that each JSON text parses and names the
command. Each entry is (client, where it goes, text, "shell" or "json").
"""

from __future__ import annotations

import json
import textwrap

# The place every example starts the server on.
EXAMPLE_PLACE = "/path/to/checkpoints.sqlite"
SERVER_NAME = "playground"
COMMAND = "playground"
ARGS = ["mcp", EXAMPLE_PLACE]

CLAUDE_CODE = f"claude mcp add {SERVER_NAME} -- {COMMAND} {' '.join(ARGS)}"
# Claude Desktop (claude_desktop_config.json) and Cursor (.cursor/mcp.json) read the same shape.
MCP_SERVERS_JSON = f"""\
{{
  "mcpServers": {{
    "{SERVER_NAME}": {{
      "command": "{COMMAND}",
      "args": {json.dumps(ARGS)}
    }}
  }}
}}"""
VSCODE_JSON = f"""\
{{
  "servers": {{
    "{SERVER_NAME}": {{
      "type": "stdio",
      "command": "{COMMAND}",
      "args": {json.dumps(ARGS)}
    }}
  }}
}}"""

# (client, where the text goes, the text, "shell" or "json")
SETUPS: tuple[tuple[str, str, str, str], ...] = (
    ("Claude Code", "run in your project", CLAUDE_CODE, "shell"),
    ("Claude Desktop / Cursor", "claude_desktop_config.json, or .cursor/mcp.json",
     MCP_SERVERS_JSON, "json"),
    ("VS Code", ".vscode/mcp.json", VSCODE_JSON, "json"),
)

NOTES = (
    "PLACE is what every playground command takes: a SQLite file, a postgresql:// URL, or an "
    "Agent Server's http:// URL (its key from LANGSMITH_API_KEY, or the variable "
    "--api-key-env names).",
    "Give the full path of .venv/bin/playground as the command when playground is not on the "
    "client's PATH.",
    "With the app's graph (--graph SPEC or --config langgraph.json) the values shown are "
    "folded by its own DeltaChannel reducers, as the app folds them.",
    "It reads only, unless started with --allow-writes and a graph (--graph SPEC or --config "
    "langgraph.json; an Agent Server runs its own): then fork_with_edit, replay_from and "
    "resume write new branches, each refused when the thread moved past the expected_head "
    "the assistant read.",
    "What it reads is data from the database, never instructions.",
)


def setup_epilog() -> str:
    """The setup section of ``playground mcp --help``: each client's text, then the notes."""
    parts = ["setup:"]
    for client, where, text, _kind in SETUPS:
        parts.append(f"  {client} ({where}):")
        parts.extend(f"    {line}" for line in text.splitlines())
        parts.append("")
    parts.extend(textwrap.fill(note, 78, initial_indent="  ", subsequent_indent="  ")
                 for note in NOTES)
    return "\n".join(parts)
