"""Answer one run's chat-model calls (and, if asked, its tool calls) from a recording.

A re-run on changed code must ask no model and no person: each chat-model call of the run gets
the next AI message the original branch recorded, in order, and each tool call may get the
result the original recorded for the same tool and arguments. Only the run that carries an
:class:`Answerer` is answered: it is set in a context variable of the run's own task (LangGraph
copies the context into every node it starts, threads included), so the runs of every other tab
call their models as usual.

The hooks go on LangChain's base classes once per process (:func:`install`): ``BaseChatModel``'s
generation and streaming and ``BaseTool``'s ``invoke``. Outside an answered run they call
straight through.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

from playground.timetravel.recording import Recording, ToolResult

_CURRENT: contextvars.ContextVar[Answerer | None] = contextvars.ContextVar(
    "playground_answerer", default=None)
_INSTALLED = threading.Lock()
_installed = False


class ReRunStopped(Exception):
    """A call the recording cannot answer: the re-run stops there (the message says why)."""


class Answerer:
    """The recorded replies and tool results of one re-run, handed out in order.

    Args:
        recording: what the original branch recorded.
        tools_from_recording: answer tool calls from the recorded results (by default the
            tools run for real).
        real_model_after: once the recorded replies run out, call the real model instead of
            stopping.
    """

    def __init__(self, recording: Recording, *, tools_from_recording: bool = False,
                 real_model_after: bool = False) -> None:
        self.recording = recording
        self.tools_from_recording = tools_from_recording
        self.real_model_after = real_model_after
        self.replies_given = 0
        self.real_calls = 0
        self._unused = list(recording.tool_results)
        self._lock = threading.Lock()  # parallel tool calls ask at the same time
        self.stopped: str | None = None

    def next_reply(self) -> Any | None:
        """The next recorded reply as an ``AIMessage``, or None to call the real model.

        Raises:
            ReRunStopped: the model was called more times than the branch recorded.
        """
        with self._lock:
            if self.stopped:
                raise ReRunStopped(self.stopped)
            if self.replies_given < len(self.recording.replies):
                reply = self.recording.replies[self.replies_given]
                self.replies_given += 1
                return ai_message(reply)
            if self.real_model_after:
                self.real_calls += 1
                return None
            self.stopped = (f"the model was called {self.replies_given + 1} times, and the "
                            f"recording holds {len(self.recording.replies)} replies")
            raise ReRunStopped(self.stopped)

    def tool_result(self, name: str, args: Any) -> ToolResult | None:
        """The recorded result of this tool call, or None to run the tool for real.

        Raises:
            ReRunStopped: the tool was called with arguments the recording never saw.
        """
        if not self.tools_from_recording:
            return None
        with self._lock:
            if self.stopped:
                raise ReRunStopped(self.stopped)
            for index, result in enumerate(self._unused):
                if result.name == name and _same_args(result.args, args):
                    return self._unused.pop(index)
            recorded = [r for r in self.recording.tool_results if r.name == name]
            if recorded:
                self.stopped = (f"the tool {name} was called with other arguments "
                                f"({_args_text(args)}) than recorded "
                                f"({_args_text(recorded[0].args)})")
            else:
                self.stopped = (f"the tool {name} was called, and the recording never "
                                "called it")
            raise ReRunStopped(self.stopped)


@contextlib.contextmanager
def answering(answerer: Answerer) -> Iterator[None]:
    """Answer the calls made in this context (and the tasks it starts) from ``answerer``."""
    install()
    token = _CURRENT.set(answerer)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):  # finalized in another context: nothing to undo
            _CURRENT.reset(token)


async def answered(events: AsyncIterator[Any], answerer: Answerer) -> AsyncIterator[Any]:
    """A run's events, its calls answered from ``answerer``: set in the task that walks the
    stream, the variable reaches every node LangGraph starts from it."""
    install()
    token = _CURRENT.set(answerer)
    try:
        async for event in events:
            yield event
    finally:
        with contextlib.suppress(ValueError):
            _CURRENT.reset(token)


def ai_message(reply: dict) -> Any:
    """A recorded reply (plain data) as LangChain's ``AIMessage``."""
    from langchain_core.messages import AIMessage

    calls = [{"name": call.get("name", ""), "args": call.get("args") or {},
              "id": call.get("id"), "type": "tool_call"}
             for call in reply.get("tool_calls") or ()]
    content = reply.get("content")
    if not isinstance(content, (str, list)):
        content = "" if content is None else str(content)
    return AIMessage(content=content, tool_calls=calls, id=reply.get("id"))


def install() -> None:
    """Put the answering hooks on LangChain's base classes (once per process)."""
    global _installed
    with _INSTALLED:
        if _installed:
            return
        _hook_models()
        _hook_tools()
        _installed = True


def _hook_models() -> None:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessageChunk
    from langchain_core.outputs import ChatGeneration, ChatResult

    generate, agenerate = BaseChatModel._generate_with_cache, BaseChatModel._agenerate_with_cache
    stream, astream = BaseChatModel.stream, BaseChatModel.astream

    def recorded() -> Any | None:
        answerer = _CURRENT.get()
        return None if answerer is None else answerer.next_reply()

    def _generate_with_cache(self, messages, stop=None, run_manager=None, **kwargs):
        reply = recorded()
        if reply is None:
            return generate(self, messages, stop=stop, run_manager=run_manager, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate_with_cache(self, messages, stop=None, run_manager=None, **kwargs):
        reply = recorded()
        if reply is None:
            return await agenerate(self, messages, stop=stop, run_manager=run_manager, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def stream_hook(self, input, config=None, *, stop=None, **kwargs):
        if _CURRENT.get() is None:
            yield from stream(self, input, config, stop=stop, **kwargs)
            return
        reply = recorded()
        if reply is None:
            yield from stream(self, input, config, stop=stop, **kwargs)
            return
        yield AIMessageChunk(content=reply.content, tool_call_chunks=_chunks(reply),
                             id=reply.id)

    async def astream_hook(self, input, config=None, *, stop=None, **kwargs):
        if _CURRENT.get() is None:
            async for chunk in astream(self, input, config, stop=stop, **kwargs):
                yield chunk
            return
        reply = recorded()
        if reply is None:
            async for chunk in astream(self, input, config, stop=stop, **kwargs):
                yield chunk
            return
        yield AIMessageChunk(content=reply.content, tool_call_chunks=_chunks(reply),
                             id=reply.id)

    BaseChatModel._generate_with_cache = _generate_with_cache
    BaseChatModel._agenerate_with_cache = _agenerate_with_cache
    BaseChatModel.stream = stream_hook
    BaseChatModel.astream = astream_hook


def _chunks(reply: Any) -> list[dict]:
    return [{"name": call["name"], "args": json.dumps(call["args"]), "id": call["id"],
             "index": index} for index, call in enumerate(reply.tool_calls)]


def _hook_tools() -> None:
    from langchain_core.tools import BaseTool

    invoke, ainvoke = BaseTool.invoke, BaseTool.ainvoke

    def answer(tool: Any, input: Any) -> Any | None:
        answerer = _CURRENT.get()
        if answerer is None:
            return None
        call = input if isinstance(input, dict) and input.get("type") == "tool_call" else None
        args = _model_args(tool, (call or {}).get("args", input))
        result = answerer.tool_result(tool.name, args)
        if result is None:
            return None
        if call is None:
            return result.content
        from langchain_core.messages import ToolMessage

        return ToolMessage(content=result.content if result.content is not None else "",
                           tool_call_id=call.get("id") or "", name=tool.name)

    def _invoke(self, input, config=None, **kwargs):
        found = answer(self, input)
        return invoke(self, input, config, **kwargs) if found is None else found

    async def _ainvoke(self, input, config=None, **kwargs):
        found = answer(self, input)
        return await ainvoke(self, input, config, **kwargs) if found is None else found

    BaseTool.invoke = _invoke
    BaseTool.ainvoke = _ainvoke


def _model_args(tool: Any, args: Any) -> Any:
    """The arguments the model gave, without what ToolNode injects before the call (the
    state, the store, the runtime: ``InjectedState``, ``ToolRuntime``), which the recorded
    tool call never held."""
    if not isinstance(args, dict):
        return args
    try:
        schema = tool.tool_call_schema
        fields = (set(schema.get("properties", {})) if isinstance(schema, dict)
                  else set(schema.model_fields))
    except Exception:  # a tool without a readable schema: compare what was passed
        return args
    return {key: value for key, value in args.items() if key in fields}


def _same_args(recorded: Any, now: Any) -> bool:
    try:
        return json.dumps(recorded, sort_keys=True, default=str) == json.dumps(
            now, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return recorded == now


def _args_text(args: Any) -> str:
    text = json.dumps(args, sort_keys=True, default=str)
    return text if len(text) <= 120 else text[:117] + "..."
