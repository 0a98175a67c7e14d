"""``playground mcp PLACE``: the engine's reads of one place, served to an assistant over MCP.

An MCP client (Claude Code, Claude Desktop, Cursor, VS Code) starts ``playground mcp PLACE`` and
talks to it on stdio. The server offers the read tools (``list_threads``, ``get_thread``,
``get_checkpoint``, ``diff_checkpoints``, ``get_conversation``, ``get_timeline``,
``compare_branches``), a thread's export as the ``thread://{thread_id}`` resource, and the
``debug_failed_thread`` prompt. Each tool reads through the door with the CLI's deadlines and
memory bounds and answers within fixed caps; nothing a database holds is run. Started with
``--allow-writes`` and a graph named on its command line (or on an Agent Server), it also offers
``fork_with_edit``, ``replay_from`` and ``resume``, each refused, with nothing written, when the
thread's head is no longer the ``expected_head`` the assistant read.

- :mod:`.server`: the server, its tools' signatures and descriptions, the resource, the prompt;
- :mod:`.reads`: how a tool reads the place (one read per call, through the door);
- :mod:`.bounds`: the caps, cutting a value, fitting an answer, cursors;
- :mod:`.answers`: an answer as a tool result (with the copies its client hands its model), a
  refusal in one sentence;
- :mod:`.arguments`: checkpoints and thread-list filters, read as the CLI reads them;
- :mod:`.threads`, :mod:`.checkpoints`, :mod:`.conversation`, :mod:`.timeline`,
  :mod:`.branches`: the read tools, each over the engine's own calls;
- :mod:`.writes`: the graph the write tools run, opened once, and its runs one at a time;
- :mod:`.write_tools`: the write tools over the runtime's own fork, replay and resume, and the
  stale-head refusal;
- :mod:`.export`: the thread resource (whole under the answer cap, else its size and the
  ``playground export`` line that writes it); :mod:`.prompts`: the prompt;
- :mod:`.setup`: how to add the server to each client (``--help``'s setup section).
"""
