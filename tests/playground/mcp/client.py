"""A real ``playground mcp`` process, driven by the official ``mcp`` client over stdio, from a
test's plain (synchronous) code.

:func:`mcp_session` starts ``python -m playground.cli mcp PLACE ...`` as an MCP client starts
it, connects with :class:`mcp.Client` on an event loop of its own (a blocking portal's thread),
and hands back a :class:`Session` whose calls wait for their answers. One process serves every
call of a session, as one does for an assistant.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, Implementation

from playground.mcp.bounds import ANSWER_CAP

ROOT = Path(__file__).resolve().parents[3]
CALL_TIMEOUT_S = 90  # one call's answer, on a busy two-core machine


# Runs ``python -m playground.cli`` with the address space capped first (the hostile tests'
# memory bound: what a crafted blob would take past its limit).
_CAPPED = ("import resource, runpy, sys; cap = int(sys.argv.pop(1)); "
           "resource.setrlimit(resource.RLIMIT_AS, (cap, cap)); "
           "sys.argv[0] = 'playground'; runpy.run_module('playground.cli', run_name='__main__')")


def server_command(*args: str, memory_cap: int | None = None) -> list[str]:
    """The command line an MCP client runs: ``playground mcp`` with ``args`` (its address
    space capped at ``memory_cap`` bytes when given)."""
    if memory_cap is not None:
        return [sys.executable, "-c", _CAPPED, str(memory_cap), "mcp", *args]
    return [sys.executable, "-m", "playground.cli", "mcp", *args]


class Session:
    """One connected client of one ``playground mcp`` process."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client

    def tools(self) -> dict[str, Any]:
        """The listed tools, by name."""
        listed = self.portal.call(self.client.list_tools)
        return {tool.name: tool for tool in listed.tools}

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        """A tool's result, whatever it is (an answer or a tool error); every result stays
        within the answer cap."""
        result = self.portal.call(self.client.call_tool, name, arguments or {})
        assert wire_bytes(result) <= ANSWER_CAP, (name, wire_bytes(result))
        return result

    def answer(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """A tool's structured answer; fails the test on a tool error. (This client is none of
        those that hand their model the structured content alone, so it gets both copies.)"""
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        assert result.structured_content is not None
        # The JSON text block carries the same data, for clients that read only text.
        assert json.loads(result.content[1].text) == result.structured_content
        return result.structured_content

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """A tool error's sentence; fails the test when the tool answered."""
        result = self.call(name, arguments)
        assert result.is_error, f"{name} answered {arguments!r}"
        (block,) = result.content
        return block.text

    def read(self, uri: str) -> str:
        """A resource's text."""
        found = self.portal.call(self.client.read_resource, uri)
        return found.contents[0].text

    def prompt(self, name: str, arguments: dict[str, str] | None = None) -> list:
        """A prompt's messages."""
        return self.portal.call(self.client.get_prompt, name, arguments or {}).messages


def wire_bytes(result: CallToolResult) -> int:
    """Bytes of a tool result as the server writes it on stdout."""
    return len(result.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8"))


@contextmanager
def mcp_session(*args: str, env: dict[str, str] | None = None, memory_cap: int | None = None,
                client_name: str | None = None) -> Iterator[Session]:
    """A session with ``playground mcp *args`` (the process ends with the session), the
    client introducing itself as ``client_name`` when given (as Claude Code says
    ``claude-code``)."""
    params = StdioServerParameters(
        command=sys.executable, args=server_command(*args, memory_cap=memory_cap)[1:], cwd=ROOT,
        env={"PYTHONPATH": os.environ.get("PYTHONPATH", ""), **(env or {})})
    info = Implementation(name=client_name, version="0") if client_name else None
    with start_blocking_portal() as portal:
        client = Client(params, read_timeout_seconds=CALL_TIMEOUT_S, client_info=info)
        with portal.wrap_async_context_manager(client) as connected:
            yield Session(portal, connected)
